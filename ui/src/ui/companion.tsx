// The Companion tab (issue 23): the player types, the companion answers.
// One turn at a time through `companion_say`; the host streams the turn as
// `companion-turn` events, the lines of `dcplugin chat --json`: the answer
// grows with each delta, and under it one line per tool call (the plugin's
// name, the action, the outcome in words). No AI set, no AI reachable, no
// plugin installed: each says what to do, with a button to the tab that
// does it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { listen } from '@tauri-apps/api/event';
import { api, asApiError } from '../api';
import type { Translate } from '../i18n';
import type { AiSettings, ApiError, Card, JournalOutcome } from '../types';
import { errorWords, outcomeText, runWords } from '../words';
import { slugOf } from '../toolref';
import { isAiCode, problemWords } from './ai-words';
import { Switch, useId } from './common';
import { useApp } from './context';

/** The event that carries one turn line. */
export const COMPANION_EVENT = 'companion-turn';

/** One line of a turn, as `dcplugin chat --json` prints it (the host's `TurnEvent`). */
export type TurnLine =
  | { type: 'turn'; id: string; source: string; text: string }
  | { type: 'delta'; text: string }
  | { type: 'tool'; step: number; tool: string; args: unknown; outcome: JournalOutcome; code: string | null; reason: string | null }
  | { type: 'confirm'; tool: string; method: string; url: string; decision: string }
  | { type: 'reply'; text: string }
  | { type: 'event'; plugin: string; event: string; text: string }
  | { type: 'error'; code: string; message: string }
  | { type: 'end'; steps: number };

type ToolLine = Extract<TurnLine, { type: 'tool' }>;
type ConfirmLine = Extract<TurnLine, { type: 'confirm' }>;

/** One exchange: what the player said, the answer so far, its tool calls (an R3 one after
 * the player's answer to its question), its failure. */
export interface Exchange {
  said: string;
  answer: string;
  tools: (ToolLine | ConfirmLine)[];
  error: { code: string; message: string } | null;
  over: boolean;
}

/** The exchange after one more line of its turn. */
export function withLine(x: Exchange, line: TurnLine): Exchange {
  switch (line.type) {
    case 'delta': return { ...x, answer: x.answer + line.text };
    // The whole answer replaces the pieces: what the AI finally said is what counts.
    case 'reply': return { ...x, answer: line.text };
    case 'tool':
    case 'confirm': return { ...x, tools: [...x.tools, line] };
    case 'error': return { ...x, error: { code: line.code, message: line.message } };
    case 'end': return { ...x, over: true };
    default: return x;
  }
}

/** A full tool name as the player reads it: the plugin's name (its card's, else its slug), and the action. */
function named(cards: ReadonlyMap<string, Pick<Card, 'name'>>, tool: string): { plugin: string; action: string } {
  const slug = slugOf(tool);
  return { plugin: cards.get(slug)?.name ?? slug, action: tool.length > slug.length ? tool.slice(slug.length + 2) : tool };
}

/** A tool call in words, how it ended; an R3 question, what the player answered and what was sent. */
export function toolWords(t: Translate, cards: ReadonlyMap<string, Pick<Card, 'name'>>, line: ToolLine | ConfirmLine): string {
  const { plugin, action } = named(cards, line.tool);
  if (line.type === 'confirm') {
    const decision = ['confirmed', 'declined', 'expired'].includes(line.decision) ? line.decision : 'declined';
    return t(`ask.${decision}` as 'ask.declined', { plugin, action, method: line.method, url: line.url });
  }
  // Words first, in both cases: a refusal's from its reason, a failure's
  // from its code (§22), which stays beside them as the detail.
  const outcome = line.outcome === 'failed' && line.code
    ? t('companion.failed', { words: runWords(t, line.code), code: line.code })
    : outcomeText(t, { outcome: line.outcome, code: line.outcome === 'refused' ? line.reason : line.code });
  return t('companion.tool', { plugin, action, outcome });
}

/** A failure to reach or use the AI, worded as the Tools tab words it. */
export function failureWords(t: Translate, e: { code: string; message: string }, ai: AiSettings | null): string {
  if (isAiCode(e.code)) return problemWords(t, e.code, ai?.url ?? null, ai?.model ?? null);
  return errorWords(t, { problems: [], fields: [], ...e } as ApiError);
}

/** Live on Twitch (§12 stream mode): kept while the app runs, whichever tab is shown. */
let liveNow = false;

/** The plugins paused while live, by name (a card's name, else its slug), in the player's words. */
export function pausedWords(t: Translate, cards: ReadonlyMap<string, Pick<Card, 'name'>>, slugs: readonly string[]): string {
  if (!slugs.length) return t('companion.live_nothing');
  return t('companion.live_paused', { plugins: slugs.map((s) => cards.get(s)?.name ?? s).join(', ') });
}

export function CompanionTab(props: { onTools: () => void; onCatalog: () => void }) {
  const app = useApp();
  const { t } = app;
  const [live, setLiveState] = useState(liveNow);
  const [paused, setPaused] = useState<string[] | null>(null);
  const setLive = (on: boolean) => { liveNow = on; setLiveState(on); };
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [text, setText] = useState('');
  const [answering, setAnswering] = useState(false);
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const [ai, setAi] = useState<AiSettings | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const ids = useId('companion');

  useEffect(() => {
    let live = true;
    let stop: (() => void) | null = null;
    listen<TurnLine>(COMPANION_EVENT, (e) => {
      // Only the player's turns are shown here; a line comes for the last exchange.
      setExchanges((all) => (all.length ? [...all.slice(0, -1), withLine(all[all.length - 1], e.payload)] : all));
    }).then((u) => (live ? (stop = u) : u()));
    api.ai().then(setAi, () => undefined);
    return () => { live = false; stop?.(); };
  }, []);

  // What is paused is asked again when the switch goes on and when a plugin changes.
  useEffect(() => {
    if (!live) { setPaused(null); return; }
    let current = true;
    api.pausedWhileLive().then((p) => current && setPaused(p), (e) => app.showError(asApiError(e)));
    return () => { current = false; };
  }, [live, app.cards]);

  const send = async (e: Event) => {
    e.preventDefault();
    const words = text.trim();
    if (!words || answering) return;
    setRefusal(null);
    setAnswering(true);
    setText('');
    setExchanges((all) => [...all, { said: words, answer: '', tools: [], error: null, over: false }]);
    try {
      setAi(await api.ai());
      await api.companionSay(words, live);
    } catch (err) {
      // Refused before the turn started: the exchange did not happen.
      setExchanges((all) => all.slice(0, -1));
      setText(words);
      setRefusal(asApiError(err));
    }
    setAnswering(false);
    input.current?.focus();
  };

  const newConversation = async () => {
    await api.companionNewConversation().catch((e) => app.showError(asApiError(e)));
    setExchanges([]);
    setRefusal(null);
    input.current?.focus();
  };

  return (
    <section class="panel companion" aria-labelledby={`${ids}-h`}>
      <h2 id={`${ids}-h`}>{t('companion.heading')}</h2>
      <Switch label={t('companion.live')} help={t('companion.live_explain')} checked={live} testid="companion-live" onChange={setLive} />
      {live && paused && <p class="banner warn" role="status" data-testid="companion-paused">{pausedWords(t, app.cards, paused)}</p>}
      {app.cards.size === 0 && (
        <p class="banner" data-testid="companion-no-plugin">
          {t('companion.no_plugin')} <button type="button" onClick={props.onCatalog}>{t('companion.to_catalog')}</button>
        </p>
      )}
      {refusal && (
        <div class="banner error" role="alert" data-testid="companion-refusal">
          <p>{refusal.code === 'ai_not_set' ? t('companion.no_ai') : failureWords(t, refusal, ai)}</p>
          {isAiCode(refusal.code) && <button type="button" data-testid="companion-to-tools" onClick={props.onTools}>{t('companion.to_tools')}</button>}
        </div>
      )}
      <ol class="conversation" data-testid="conversation" aria-live="polite">
        {exchanges.map((x, i) => (
          <li key={i} class="exchange" data-testid="exchange">
            <p class="said" data-testid="said"><strong>{t('companion.you')}</strong> {x.said}</p>
            <p class="answer" data-testid="answer" aria-busy={!x.over}>
              <strong>{t('companion.companion')}</strong> {x.answer || (x.over ? '' : t('companion.thinking'))}
            </p>
            {x.tools.length > 0 && (
              <ul class="tool-lines">
                {x.tools.map((line, i) => (
                  <li key={i} data-testid={`${line.type}-line`}>{toolWords(t, app.cards, line)}</li>
                ))}
              </ul>
            )}
            {x.error && <p class="banner error" data-testid="turn-error">{failureWords(t, x.error, ai)}</p>}
          </li>
        ))}
      </ol>
      <form class="say" onSubmit={send}>
        <label for={`${ids}-text`}>{t('companion.say')}</label>
        <input id={`${ids}-text`} ref={input} type="text" data-testid="companion-text" value={text} autoComplete="off"
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" data-testid="companion-send" disabled={answering}>{t('companion.send')}</button>
        <button type="button" data-testid="companion-new" disabled={answering} onClick={newConversation}>{t('companion.new')}</button>
      </form>
    </section>
  );
}
