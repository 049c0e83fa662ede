// The Companion tab (issue 23): the player types, the companion answers.
// Each message through `companion_say`; the host streams the turn as
// `companion-turn` events, the lines of `dcplugin chat --json`: the answer
// grows with each delta, and under it one line per tool call (the plugin's
// name and the action's hint, both given by the line; the outcome in words,
// from the family of its code the line also gives), which opens on what was
// sent and what the AI read (the view of Try an action). An event turn (§16) comes the
// same way, from the program, and typing tells the host the player speaks.
// While a turn runs (issue 33), Stop (or Esc in the text box) ends it, the
// words so far kept and marked stopped; a message sent then waits, shown as
// waiting, and runs next; New conversation works at any time.
// The answer shows as the safe subset of Markdown of `markdown.tsx` (issue 34): its
// links open in the system browser, by the player's click only.
// Live on Twitch makes the turns live (§12); while the Twitch chat is connected
// (issue 36) stream mode is on: the switch shows on and locked, a status line
// says the chat's state, and each viewer's message the chat hands over comes
// as a `viewer` line, "NAME (Twitch chat): TEXT", then its answer. No AI set,
// no AI reachable, no plugin installed: each says what to do, with a button
// to the tab that does it; what the companion is not offered is listed with
// why (§24).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import { EVENTS, listenTo } from '../bindings/events';
import type { Translate } from '../i18n';
import type { AiSettings, ApiError, Card, TurnEvent } from '../types';
import { errorWords, familyWords, outcomeText } from '../words';
import { slugOf, toolName } from '../toolref';
import { isAiCode, problemWords } from './ai-words';
import { CallView } from './call-view';
import { Markdown } from './markdown';
import { PluginIcon, Switch, useId } from './common';
import { stampOf } from './stale';
import { useApp } from './context';
import { NotOfferedList } from './not-offered';
import { chatLineWords } from './twitch';

/** One line of a turn, as `dcplugin chat --json` prints it (the engine's `TurnEvent`, generated). */
export type TurnLine = TurnEvent;

type ToolLine = Extract<TurnLine, { type: 'tool' }>;
type ConfirmLine = Extract<TurnLine, { type: 'confirm' }>;

/** One exchange: what the player (or a program, through an event) said, the answer so far, its
 * tool calls (an R3 one after the player's answer to its question), its failure. */
export interface Exchange {
  said: string;
  /** Who said it: the player, (an event turn, §16) the plugin of the program, once known, or (a chat
   * turn, issue 36) the viewer by the display name the chat gave. */
  from: { kind: 'player' } | { kind: 'event'; plugin: string | null } | { kind: 'viewer'; name: string };
  /** Its turn started (a typed exchange waits for its `turn` line). */
  started: boolean;
  answer: string;
  tools: (ToolLine | ConfirmLine)[];
  error: { code: string; message: string } | null;
  over: boolean;
  /** Its turn was stopped (its `end` line says so): the words so far stay, marked stopped. */
  stopped?: boolean;
  /** The AI's server cut its answer at the length limit (its `reply` line says so, issue 34). */
  cut?: boolean;
  /** The AI's server says its model cannot use tools (a `no_tools` line, once a conversation; issue 34). */
  noTools?: Extract<TurnLine, { type: 'no_tools' }>['server'];
  /** Earlier turns its requests left out (§13, issue 32): they touched a plugin kept on this PC and the AI is online. */
  leftOut?: LeftOutLine;
  /** The plugins whose events the online AI was not told (§13, issue 32), by slug. */
  held?: string[];
}

type LeftOutLine = Extract<TurnLine, { type: 'left_out' }>;

/** The exchange after one more line of its turn. */
export function withLine(x: Exchange, line: TurnLine): Exchange {
  switch (line.type) {
    case 'delta': return { ...x, answer: x.answer + line.text };
    // The whole answer replaces the pieces: what the AI finally said is what counts.
    case 'reply': return line.cut ? { ...x, answer: line.text, cut: true } : { ...x, answer: line.text };
    case 'tool':
    case 'confirm': return { ...x, tools: [...x.tools, line] };
    case 'error': return { ...x, error: { code: line.code, message: line.message } };
    case 'end': return line.stopped ? { ...x, over: true, stopped: true } : { ...x, over: true };
    case 'left_out': return { ...x, leftOut: line };
    case 'no_tools': return { ...x, noTools: line.server };
    default: return x;
  }
}

/** An exchange the player typed, waiting for its turn to start. */
export function typed(said: string): Exchange {
  return { said, from: { kind: 'player' }, started: false, answer: '', tools: [], error: null, over: false };
}

/** An event turn's exchange with one more of its events: the player reads the event's title and
 * the program's own words, not the AI's framing of them (§16); the first event's plugin names who spoke. */
function withEvent(x: Exchange, line: Extract<TurnLine, { type: 'event' }>): Exchange {
  const shown = line.details ? `${line.title} — ${line.details}` : line.title;
  // An event the online AI was not told (its plugin is kept on this PC) is still shown, and said so.
  const held = line.held && !x.held?.includes(line.plugin) ? { held: [...(x.held ?? []), line.plugin] } : {};
  if (x.from.kind === 'event' && x.from.plugin) return { ...x, ...held, said: `${x.said} · ${shown}` };
  return { ...x, ...held, from: { kind: 'event', plugin: line.plugin }, said: shown };
}

/** `all` with `x` before the exchanges still waiting (they run after it). */
function beforeWaiting(all: readonly Exchange[], x: Exchange): Exchange[] {
  const firstWaiting = all.findIndex((o) => !o.started);
  const at = firstWaiting < 0 ? all.length : firstWaiting;
  return [...all.slice(0, at), x, ...all.slice(at)];
}

/** The conversation after one more turn line. Turns run one at a time, in the order sent (issue 33):
 * a `turn` line starts the exchange typed and waiting with its words (or, for an event, a new one from
 * the program, before the exchanges still waiting: they run after it); a chat turn's `viewer` line,
 * which comes before its `turn` line, starts one from the viewer the same way; every other line goes
 * to the exchange started and not over. */
export function conversationWith(all: readonly Exchange[], line: TurnLine): Exchange[] {
  if (line.type === 'viewer') {
    return beforeWaiting(all, { ...typed(line.text), from: { kind: 'viewer', name: line.name }, started: true });
  }
  if (line.type === 'turn') {
    const firstWaiting = all.findIndex((x) => !x.started);
    if (line.source === 'event') return beforeWaiting(all, { ...typed(line.text), from: { kind: 'event', plugin: null }, started: true });
    // A chat turn's exchange was started by its `viewer` line.
    if (line.source === 'twitch') return [...all];
    // By its words: two messages sent at once may reach the host in either order.
    const mine = all.findIndex((x) => !x.started && x.said === line.text);
    const waiting = mine < 0 ? firstWaiting : mine;
    if (waiting < 0) return [...all, { ...typed(line.text), started: true }];
    return all.map((x, i) => (i === waiting ? { ...x, started: true } : x));
  }
  const running = all.findIndex((x) => x.started && !x.over);
  if (running < 0) return [...all];
  return all.map((x, i) => {
    if (i !== running) return x;
    if (line.type === 'event') return x.from.kind === 'event' ? withEvent(x, line) : x;
    return withLine(x, line);
  });
}

/** The conversation, kept while the app runs whichever tab is shown: the page's turn lines are
 * listened to from the start (`keepConversation`), so an event said on another tab is there. */
let kept: Exchange[] = [];
const watchers = new Set<(all: Exchange[]) => void>();
let listening: Promise<unknown> | null = null;

function update(change: (all: readonly Exchange[]) => Exchange[]): void {
  kept = change(kept);
  watchers.forEach((w) => w(kept));
}

/** Listens to the companion's turn lines for the rest of the app's life (called once at start). */
export function keepConversation(): void {
  listening ??= listenTo(EVENTS.COMPANION_EVENT, (line) => update((all) => conversationWith(all, line)))
    .catch(() => { listening = null; });
}

/** After this long without a key pressed, the player stopped typing (§16: a waiting event is said then). */
export const TYPING_PAUSE_MS = 2000;

/** The program an event came from, by its plugin's card (else its slug; none known yet: a program). */
function programName(cards: ReadonlyMap<string, Pick<Card, 'name'>>, slug: string | null): string {
  return slug ? cards.get(slug)?.name ?? slug : '…';
}

/** Who said an exchange, as the conversation names them. */
function saidBy(t: Translate, cards: ReadonlyMap<string, Pick<Card, 'name'>>, from: Exchange['from']): string {
  switch (from.kind) {
    case 'player': return t('companion.you');
    case 'event': return t('companion.program', { name: programName(cards, from.plugin) });
    case 'viewer': return t('companion.viewer', { name: from.name });
  }
}

/** A tool line's action as the player reads it: its plugin's name and the action's hint, as the
 * line gives them (issue 33); for a tool the AI made up, the card of its slug (else the slug) and
 * the name it wrote. */
function named(cards: ReadonlyMap<string, Pick<Card, 'name'>>, line: ToolLine | ConfirmLine): { plugin: string; action: string } {
  const slug = slugOf(line.tool);
  return { plugin: line.plugin ?? cards.get(slug)?.name ?? slug, action: line.hint || toolName(line.tool) };
}

/** A tool call in words, how it ended; an R3 question, what the player answered and what was sent. */
export function toolWords(t: Translate, cards: ReadonlyMap<string, Pick<Card, 'name'>>, line: ToolLine | ConfirmLine): string {
  const { plugin, action } = named(cards, line);
  if (line.type === 'confirm') return t(`ask.${line.decision}`, { plugin, action, method: line.method, url: line.url });
  // Words first, in both cases: a refusal's from its reason, a failure's
  // from its code's family (§22), the code beside them as the detail.
  const outcome = line.outcome === 'failed' && line.code && line.family
    ? t('companion.failed', { words: familyWords(t, line.family, line.reason), code: line.code })
    : outcomeText(t, { outcome: line.outcome, code: line.outcome === 'refused' ? line.reason : line.code });
  return t('companion.tool', { plugin, action, outcome });
}

/** A failure to reach or use the AI, worded as the Tools tab words it. */
export function failureWords(t: Translate, e: { code: string; message: string }, ai: AiSettings | null): string {
  if (isAiCode(e.code)) return problemWords(t, e.code, ai);
  return errorWords(t, { problems: [], fields: [], ...e } as ApiError);
}

/** What an online AI was not given (§13, issue 32), in the player's words, plugins by name: earlier
 * turns left out of its requests, and events it was not told. */
export function keptWords(t: Translate, cards: ReadonlyMap<string, Pick<Card, 'name'>>, x: Pick<Exchange, 'leftOut' | 'held'>): string[] {
  const names = (slugs: readonly string[]) => slugs.map((s) => cards.get(s)?.name ?? s).join(', ');
  const words: string[] = [];
  if (x.leftOut) words.push(t('companion.left_out', { count: x.leftOut.turns, plugins: names(x.leftOut.plugins) }));
  if (x.held?.length) words.push(t('companion.event_held', { plugins: names(x.held) }));
  return words;
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
  const [liveSwitch, setLiveState] = useState(liveNow);
  // While the Twitch chat is connected, stream mode is on whatever the switch says (issue 36).
  const chat = app.twitch;
  const live = liveSwitch || (chat?.stream_mode ?? false);
  const chatLine = chat && chatLineWords(t, chat);
  const [paused, setPaused] = useState<string[] | null>(null);
  const setLive = (on: boolean) => { liveNow = on; setLiveState(on); };
  const [exchanges, setExchanges] = useState<Exchange[]>(kept);
  const [text, setText] = useState('');
  const typing = useRef<number | null>(null);
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const [linkRefused, setLinkRefused] = useState(false);
  const [ai, setAi] = useState<AiSettings | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const ids = useId('companion');

  useEffect(() => {
    keepConversation();
    watchers.add(setExchanges);
    setExchanges(kept);
    api.ai().then(setAi, () => undefined);
    return () => { watchers.delete(setExchanges); stoppedTyping(); };
  }, []);

  // Typing counts as the player speaking (§16): the door keeps events waiting until a pause.
  const stoppedTyping = () => {
    if (typing.current === null) return;
    clearTimeout(typing.current);
    typing.current = null;
    api.companionTyping(false).catch(() => undefined);
  };
  const typingNow = () => {
    if (typing.current === null) api.companionTyping(true).catch(() => undefined);
    else clearTimeout(typing.current);
    typing.current = window.setTimeout(stoppedTyping, TYPING_PAUSE_MS);
  };

  // What is paused is asked again when the switch goes on and when a plugin changes.
  useEffect(() => {
    if (!live) { setPaused(null); return; }
    let current = true;
    api.pausedWhileLive().then((p) => current && setPaused(p), (e) => app.showError(asApiError(e)));
    return () => { current = false; };
  }, [live, app.cards]);

  // A turn runs, or a message waits for its own (issue 33): Stop is there.
  const running = exchanges.some((x) => !x.over);

  const send = async (e: Event) => {
    e.preventDefault();
    const words = text.trim();
    if (!words) return;
    stoppedTyping();
    setRefusal(null);
    setText('');
    const waiting = typed(words);
    update((all) => [...all, waiting]);
    // Sent at once, so that messages reach the host in the order typed.
    try {
      await api.companionSay(words, liveSwitch);
    } catch (err) {
      // Refused before the turn started: the exchange did not happen; its words come back to the
      // box, to send again, unless the player typed on.
      update((all) => all.filter((x) => x !== waiting));
      setText((now) => now || words);
      setRefusal(asApiError(err));
      input.current?.focus();
    }
  };

  // The running turn ends at once; what it said so far stays, marked stopped.
  const stop = () => {
    api.companionStop().catch((e) => app.showError(asApiError(e)));
    input.current?.focus();
  };

  // A link of an answer opens in the system browser, never in the window (issue 34). One the shell
  // refuses (not written in an answer it gave this window, or not a web address) is said by its code.
  const openLink = (href: string) => {
    setLinkRefused(false);
    api.openAnswerLink(href).catch((e) => {
      const a = asApiError(e);
      if (a.code === 'bad_input') setLinkRefused(true);
      else app.showError(a);
    });
  };

  const newConversation = async () => {
    await api.companionNewConversation().catch((e) => app.showError(asApiError(e)));
    update(() => []);
    setRefusal(null);
    setLinkRefused(false);
    input.current?.focus();
  };

  return (
    <section class="panel companion" aria-labelledby={`${ids}-h`}>
      <h2 id={`${ids}-h`}>{t('companion.heading')}</h2>
      {chatLine && <p class="banner" role="status" data-testid="companion-twitch">{chatLine}</p>}
      <Switch label={t('companion.live')} help={chat?.stream_mode ? t('companion.live_chat') : t('companion.live_explain')} checked={live}
        disabled={chat?.stream_mode} testid="companion-live" onChange={setLive} />
      {live && paused && <p class="banner warn" role="status" data-testid="companion-paused">{pausedWords(t, app.cards, paused)}</p>}
      {!app.switches.plugins_enabled && (
        <p class="banner warn" data-testid="companion-plugins-off">
          {t('companion.plugins_off')}{' '}
          <button type="button" onClick={() => api.setSwitches({ plugins_enabled: true }).catch((e) => app.showError(asApiError(e)))}>{t('companion.turn_on')}</button>
        </p>
      )}
      {app.switches.plugins_enabled && !app.switches.tools_enabled && (
        <p class="banner warn" data-testid="companion-tools-off">
          {t('companion.tools_off')}{' '}
          <button type="button" onClick={() => api.setSwitches({ tools_enabled: true }).catch((e) => app.showError(asApiError(e)))}>{t('companion.turn_on')}</button>
        </p>
      )}
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
      {linkRefused && <p class="banner error" role="alert" data-testid="link-refused">{t('companion.link_refused')}</p>}
      <NotOfferedList live={live} where={ai?.where ?? null} onTools={props.onTools} />
      <ol class="conversation" data-testid="conversation" aria-live="polite">
        {exchanges.map((x, i) => (
          <li key={i} class="exchange" data-testid="exchange">
            <p class="said" data-testid="said">
              <strong>{saidBy(t, app.cards, x.from)}</strong> {x.said}
            </p>
            {keptWords(t, app.cards, x).map((words, i) => <p key={i} class="banner" data-testid="kept-on-pc">{words}</p>)}
            {!x.started && exchanges.slice(0, i).some((o) => !o.over)
              ? <p class="answer waiting" data-testid="waiting">{t('companion.waiting')}</p>
              : (
                <div class="answer" data-testid="answer" aria-busy={!x.over}>
                  <strong>{t('companion.companion')}</strong>{' '}
                  {x.answer ? <Markdown text={x.answer} onLink={openLink} /> : !x.over && t('companion.thinking')}
                </div>
              )}
            {x.tools.length > 0 && (
              <ul class="tool-lines">
                {x.tools.map((line, i) => (line.type === 'tool'
                  ? <ToolCall key={i} line={line} card={app.cards.get(slugOf(line.tool))} words={toolWords(t, app.cards, line)} />
                  : <li key={i} data-testid="confirm-line">{toolWords(t, app.cards, line)}</li>
                ))}
              </ul>
            )}
            {x.cut && <p class="banner" data-testid="answer-cut">{t('companion.cut')}</p>}
            {x.noTools && <p class="banner" data-testid="no-tools">{t('companion.no_tools')}{x.noTools === 'llama_cpp' && ` ${t('ai.tools.llama_cpp')}`}</p>}
            {/* Said with the turn's end, which tells a stop from a failure. */}
            {x.stopped
              ? <p class="banner" data-testid="turn-stopped">{t('companion.stopped')}</p>
              : x.over && x.error && <p class="banner error" data-testid="turn-error">{failureWords(t, x.error, ai)}</p>}
          </li>
        ))}
      </ol>
      <form class="say" onSubmit={send}>
        <label for={`${ids}-text`}>{t('companion.say')}</label>
        <input id={`${ids}-text`} ref={input} type="text" data-testid="companion-text" value={text} autoComplete="off"
          onInput={(e) => { setText((e.currentTarget as HTMLInputElement).value); typingNow(); }}
          onKeyDown={(e) => { if (e.key === 'Escape' && running) { e.preventDefault(); stop(); } }} />
        <button type="submit" data-testid="companion-send">{t('companion.send')}</button>
        {running && <button type="button" data-testid="companion-stop" aria-keyshortcuts="Escape" onClick={stop}>{t('companion.stop')}</button>}
        <button type="button" data-testid="companion-new" onClick={newConversation}>{t('companion.new')}</button>
      </form>
    </section>
  );
}

/** A tool line: its words on a button that opens what was sent and what the AI read. */
function ToolCall(props: { line: ToolLine; card: Card | undefined; words: string }) {
  const app = useApp();
  const [open, setOpen] = useState(false);
  const id = useId('tool-call');
  const card = props.card;
  return (
    <li data-testid="tool-line">
      <button type="button" class="disclosure" aria-expanded={open} aria-controls={id} data-testid="tool-open" onClick={() => setOpen(!open)}>
        {card && <PluginIcon slug={card.slug} name={card.name} hasIcon={card.has_icon} stamp={stampOf(app.stamps, 'icon', card.slug)} small />}
        {props.words}
      </button>
      {open && (
        <div id={id} class="tool-call" data-testid="tool-call">
          <CallView sent={props.line.sent} forAi={props.line.for_ai} prefix="tool" heading="h3" />
        </div>
      )}
    </li>
  );
}
