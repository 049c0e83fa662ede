// The Actions tab (§19): every call and event, newest first, with who
// asked (the player's voice or keyboard, the Twitch chat, an event, an AI
// app, a test) and how it ended, in words first, the §22 code beside them
// as the detail; an R3 call says what the player answered, and where its
// request was redirected when it did not end at the URL shown (issue 32).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { Key, Translate } from '../i18n';
import type { JournalLine, JournalOutcome, JournalQuery } from '../types';
import { formatTime, timeLocale, journalAction, outcomeText, reasonWords, familyWords, whoText } from '../words';
import { JournalOutcomeValues } from '../bindings/values';
import { useId } from './common';
import { journalBus } from './bus';
import { useApp } from './context';

export const PAGE = 100;

/** How a line ended, in words, and the code beside them (none when the words say it all). */
export function lineOutcome(t: Translate, line: Pick<JournalLine, 'outcome' | 'code' | 'family' | 'confirmation' | 'ended_at'>): { words: string; code: string | null } {
  const known = (key: string) => t(key as Key) !== key;
  const code = line.code;
  let out: { words: string; code: string | null };
  if (line.outcome === 'failed' && code) out = { words: t('journal.failed', { words: familyWords(t, line.family, code, code) }), code };
  else if ((line.outcome === 'refused' || line.outcome === 'dropped') && code && !known(`reason.${code}`)) {
    // A reason this version has no words for: the outcome alone, the code as the detail.
    out = { words: t(`outcome.${line.outcome}`), code };
  } else if (line.outcome === 'refused') out = { words: t('outcome.refused_reason', { reason: reasonWords(t, code) }), code: null };
  else out = { words: outcomeText(t, line), code: null };
  const decision = line.confirmation;
  // A no, or no answer in time, is already the refusal's own words ("you did not confirm it"): said once.
  const said = (decision === 'declined' || decision === 'expired') && code === decision;
  if (decision && !said && known(`journal.${decision}`)) out.words = `${out.words} · ${t(`journal.${decision}` as Key)}`;
  // A server's URL (origin and path, masked and cleaned by the journal), rendered as text, never markup.
  if (line.ended_at) out.words = `${out.words} · ${t('journal.redirected', { url: line.ended_at })}`;
  return out;
}

/** Who asked, in words; an AI app that named itself (an MCP client, issue 24) by its name, which
 *  the journal already cleaned and cut (rendered as text, never markup). */
export function lineWho(t: Translate, line: Pick<JournalLine, 'who' | 'client'>): string {
  return line.client ? t('who.mcp_client', { name: line.client }) : whoText(t, line.who);
}

function Outcome(props: { t: Translate; line: JournalLine }) {
  const { words, code } = lineOutcome(props.t, props.line);
  return <>{words}{code && <> <span class="muted detail">({props.t('journal.code', { code })})</span></>}</>;
}

export function Journal(props: { lost: string | null }) {
  const app = useApp();
  const { t, language, cards } = app;
  const [plugin, setPlugin] = useState('');
  const [outcome, setOutcome] = useState<JournalOutcome | ''>('');
  const [lines, setLines] = useState<JournalLine[]>([]);
  const [end, setEnd] = useState(false);
  const [loading, setLoading] = useState(true);
  const filters = useRef({ plugin, outcome });
  filters.current = { plugin, outcome };
  const pluginId = useId('jp');
  const outcomeId = useId('jo');

  const load = async (before?: number) => {
    setLoading(true);
    const q: JournalQuery = { limit: PAGE };
    if (plugin) q.plugin = plugin;
    if (outcome) q.outcome = outcome;
    if (before !== undefined) q.before = before;
    try {
      const page = await api.journal(q);
      setLines((old) => (before === undefined ? page : [...old, ...page]));
      setEnd(page.length < PAGE);
    } catch (e) { app.showError(asApiError(e)); }
    setLoading(false);
  };
  useEffect(() => { setLines([]); setEnd(false); load(); }, [plugin, outcome]);
  useEffect(() => journalBus.subscribe((line) => {
    const f = filters.current;
    if (f.plugin && line.plugin !== f.plugin) return;
    if (f.outcome && line.outcome !== f.outcome) return;
    setLines((old) => (old.some((l) => l.id === line.id) ? old : [line, ...old]));
  }), []);
  const slugs = [...cards.keys()].sort();
  const nameOf = (slug: string) => cards.get(slug)?.name ?? slug;
  return (
    <section class="journal" aria-labelledby="journal-h">
      <h2 id="journal-h" class="visually-hidden">{t('journal.heading')}</h2>
      <p class="help">{t('journal.explain')}</p>
      {props.lost && <p class="banner error" role="alert">{t('journal.lost', { message: props.lost })}</p>}
      <div class="filters">
        <div class="field inline">
          <label for={pluginId}>{t('journal.filter_plugin')}</label>
          <select id={pluginId} data-testid="journal-plugin" value={plugin} onChange={(e) => setPlugin((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">{t('journal.all_plugins')}</option>
            {slugs.map((s) => <option key={s} value={s}>{nameOf(s)}</option>)}
          </select>
        </div>
        <div class="field inline">
          <label for={outcomeId}>{t('journal.filter_outcome')}</label>
          <select id={outcomeId} data-testid="journal-outcome" value={outcome} onChange={(e) => setOutcome((e.currentTarget as HTMLSelectElement).value as JournalOutcome | '')}>
            <option value="">{t('journal.all_outcomes')}</option>
            {JournalOutcomeValues.map((o) => <option key={o} value={o}>{t(`outcome.${o}`)}</option>)}
          </select>
        </div>
      </div>
      {lines.length === 0 && !loading ? <p class="empty">{t('journal.empty')}</p> : (
        <table class="journal-table">
          <thead>
            <tr>
              <th scope="col">{t('journal.time')}</th><th scope="col">{t('journal.plugin')}</th><th scope="col">{t('journal.action')}</th>
              <th scope="col">{t('journal.who')}</th><th scope="col">{t('journal.outcome')}</th><th scope="col">{t('journal.subject')}</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l.id} data-testid="journal-row" class={`outcome-${l.outcome}`}>
                <td><time dateTime={new Date(l.at).toISOString()}>{formatTime(l.at, timeLocale(language))}</time></td>
                <td>{nameOf(l.plugin)}</td>
                <td><code>{journalAction(t, l)}</code></td>
                <td>{lineWho(t, l)}</td>
                <td class="outcome" data-testid="journal-outcome-cell"><Outcome t={t} line={l} /></td>
                <td>{l.subject ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="row">
        {!end && lines.length > 0 && (
          <button type="button" data-testid="journal-older" disabled={loading} onClick={() => load(lines[lines.length - 1].id)}>{t('journal.load_older')}</button>
        )}
        {end && lines.length > 0 && <p class="muted">{t('journal.end')}</p>}
        {loading && <p role="status">{t('app.loading')}</p>}
      </div>
    </section>
  );
}
