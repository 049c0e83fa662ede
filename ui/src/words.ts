// Plain words for the facts the host reports: statuses, origins, a card's
// lines, levels, import refusals, errors, journal lines, door states; and
// the My plugins filters. The host sends facts, never sentences to parse.
import type { Key, Translate } from './i18n';
import { en } from './locales/en';
import { own } from './own';
import { isOneOf, LevelValues } from './bindings/values';
import type { ApiError, Card, DataReach, DoorState, DoorView, Failing, FieldProblem, JournalLine, Origin, PermissionChange, Problem, Status, ToolFamily } from './types';

/** An error as it arrives: a mocked or older host may leave `problems` and `fields` out. */
export type WireError = Omit<ApiError, 'problems' | 'fields'> & { problems?: Problem[]; fields?: FieldProblem[] };
/** The door as it arrives: the host leaves `state` out when this process runs no door. */
export type WireDoor = Omit<DoorView, 'state'> & { state?: DoorState | null };

export function statusText(t: Translate, status: Status): string {
  return t(`status.${status}` as Key);
}
export function statusHelp(t: Translate, status: Status): string {
  return t(`status_help.${status}` as Key);
}
export function badgeText(t: Translate, origin: Origin): string {
  return t(`badge.${origin}`);
}
export function levelText(t: Translate, level: string): string {
  return isOneOf(LevelValues, level) ? t(`level.${level}` as Key) : level;
}

/** The card's extra lines (§13, §15) in the player's language: kept on this PC, each program on this PC. */
export function cardLines(t: Translate, card: Pick<Card, 'kept_on_pc' | 'local_ports'>): string[] {
  const out = card.kept_on_pc ? [t('line.kept')] : [];
  for (const port of card.local_ports) out.push(t('line.talks', { port }));
  return out;
}

/** A card whose calls keep failing (§18: Active alone would mislead): how many, why in words
 *  with what to do (the newest failure's code), and that code as the detail. */
export function failingWords(t: Translate, failing: Failing): { words: string; code: string } {
  return { words: t('card.failing', { count: failing.calls, words: familyWords(t, failing.family, null, failing.code) }), code: failing.code };
}

/** An official plugin's description in the player's language. The bundled manifests carry no
 *  translation of it (§10 translates settings and hints only): the window's own tables do, keyed by
 *  slug, and only while the manifest says what was translated (else its own text). */
export function officialDescription(t: Translate, slug: string, description: string | null): string | null {
  const key = `official.${slug}` as Key;
  return description !== null && own(en, key) === description ? t(key) : description;
}

/** An argument's JSON Schema type (§7) in words: "(whole number)" rather than "(integer)". */
export function typeText(t: Translate, type: string): string {
  const key = `type.${type}` as Key;
  const known = t(key);
  return known === key ? type : known;
}

// ---------------------------------------------------------------- import refusals

export type Category = 'invalid' | 'too_big' | 'text' | 'network' | 'secrets' | 'risk' | 'name' | 'app_too_old' | 'dev_mode' | 'folder' | 'other';

const CATEGORY_OF: Record<string, Category> = {
  too_large: 'too_big',
  unsupported_package: 'invalid', bad_zip: 'invalid', no_manifest: 'invalid', read_failed: 'invalid', not_json: 'invalid',
  bad_format: 'invalid', bad_api_version: 'invalid', unsupported_kind: 'invalid', bad_version: 'invalid',
  bad_slug: 'invalid', no_tools: 'invalid', too_many_tools: 'invalid', bad_tool_name: 'invalid', bad_hint: 'invalid',
  bad_risk: 'invalid', bad_schema: 'invalid', bad_request: 'invalid', bad_placeholder: 'invalid', bad_header: 'invalid',
  bad_response: 'invalid', bad_user_config: 'invalid', bad_events: 'invalid', bad_text: 'invalid',
  invisible_chars: 'text', instructions: 'text', url_in_text: 'text', mentions_tool: 'text', superlative: 'text',
  bad_hosts: 'network', bad_local_ports: 'network', local_port_not_declared: 'network', lan_unsupported: 'network',
  host_not_declared: 'network', host_permissions_unsupported: 'network',
  secret_not_sensitive: 'secrets', bad_auth: 'secrets',
  risk_forbidden: 'risk',
  reserved_slug: 'name',
  app_too_old: 'app_too_old',
  dev_mode_required: 'dev_mode',
  bad_folder: 'folder',
};

/** The §22 import codes this window knows. */
export const IMPORT_CODES = Object.keys(CATEGORY_OF);

export function categoryOf(code: string): Category {
  return own(CATEGORY_OF, code) ?? 'other';
}

/** A problem's category: by its code, except a bad request URL, which is about network access. */
export function problemCategory(p: Pick<Problem, 'code' | 'path'>): Category {
  if (p.code === 'bad_request' && /(^|\.)request\.url$/.test(p.path)) return 'network';
  return categoryOf(p.code);
}

/** The categories of a refusal, each once, in the order they first appear. */
export function refusalCategories(problems: Problem[], fallbackCode?: string): Category[] {
  const cats = problems.length ? problems.map(problemCategory) : fallbackCode ? [categoryOf(fallbackCode)] : [];
  const out: Category[] = [];
  for (const c of cats) {
    if (!out.includes(c)) out.push(c);
  }
  return out;
}

/** What the player can do next about a refusal. */
export function refusalNextStep(t: Translate, categories: Category[]): string {
  if (categories.includes('dev_mode')) return t('next.dev_mode');
  if (categories.includes('folder')) return t('next.folder');
  if (categories.includes('app_too_old')) return t('next.app_too_old');
  return t('next.invalid');
}

export function isImportRefusal(e: WireError): boolean {
  const known = (code: string) => own(CATEGORY_OF, code) !== undefined;
  return known(e.code) || (e.problems ?? []).some((p) => known(p.code));
}

/** A host error in plain words (codes stay in Technical details). */
export function errorWords(t: Translate, e: WireError): string {
  if (isImportRefusal(e)) {
    const cats = refusalCategories(e.problems ?? [], e.code);
    return `${cats.map((c) => t(`cat.${c}` as Key)).join(' · ')}. ${refusalNextStep(t, cats)}`;
  }
  const key = `err.${e.code}` as Key;
  const known = t(key);
  return known === key ? t('err.internal') : known;
}

// ---------------------------------------------------------------- settings errors

/** A number setting's range (§10 `min`/`max`), as the host sends it. */
export interface Bounds { key: string; min: number | null; max: number | null }

/** The problem of each setting field, by the setting's key, from a failed
 * install or save: the host lists them in `fields`, each with its key and
 * §22 code. A value out of range is told the range its setting allows, from
 * `bounds`. A Map, as the keys are the plugin's. */
export function fieldProblems(t: Translate, e: WireError, bounds: Bounds[] = []): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of e.fields ?? []) {
    const b = bounds.find((s) => s.key === f.key);
    const range = f.code === 'out_of_bounds' && b ? rangeWords(t, b) : null;
    out.set(f.key, range ?? settingReason(t, f.code, f.message));
  }
  return out;
}

/** "Enter a number from 1 to 50." or one side of it; null without a range. */
function rangeWords(t: Translate, b: Bounds): string | null {
  if (b.min !== null && b.max !== null) return t('field.range', { min: b.min, max: b.max });
  if (b.min !== null) return t('field.range_min', { min: b.min });
  if (b.max !== null) return t('field.range_max', { max: b.max });
  return null;
}

function settingReason(t: Translate, code: string, message: string): string {
  if (code === 'missing_settings') return t('field.missing');
  const key = `field.${code}` as Key;
  const known = t(key);
  return known === key ? message || t('err.bad_input') : known;
}

// ---------------------------------------------------------------- update changes

/** One permission change of an update (§18) in the player's language. `action`
 * words an action by its hint when the review has it, else by its name. */
export function changeWords(t: Translate, c: PermissionChange, action: (name: string) => string = (n) => n): string {
  const reach = (r: DataReach) => t(`reach.${r}` as Key);
  switch (c.kind) {
    case 'author_changed': {
      const named = (name: string | null) => name ?? t('change.nobody');
      return t('change.author_changed', { old: named(c.old), new: named(c.new) });
    }
    case 'site_added': return t('change.site_added', { site: c.site });
    case 'site_removed': return t('change.site_removed', { site: c.site });
    case 'port_added': return t('change.port_added', { port: c.port });
    case 'port_removed': return t('change.port_removed', { port: c.port });
    case 'action_added': return t('change.action_added', { action: action(c.action), level: levelText(t, c.level) });
    case 'action_removed': return t('change.action_removed', { action: action(c.action) });
    case 'level_changed':
      return t('change.level_changed', { action: action(c.action), old: levelText(t, c.old), new: levelText(t, c.new) });
    case 'method_changed': return t('change.method_changed', { action: action(c.action), old: c.old, new: c.new });
    case 'url_changed': return t('change.url_changed', { action: action(c.action), old: c.old, new: c.new });
    case 'request_changed': {
      const sent = (text: string) => text || t('change.nothing');
      const part = t(`change.part_${c.part}` as Key);
      return t('change.request_changed', { action: action(c.action), part, old: sent(c.old), new: sent(c.new) });
    }
    case 'secrets_sent_added':
    case 'secrets_sent_removed': {
      const where = t(c.location === 'query' ? 'change.where_query' : 'change.where_header');
      const key = c.kind === 'secrets_sent_added' ? 'change.secrets_added' : 'change.secrets_removed';
      return t(key, { where, name: c.name, secrets: c.secrets.join(', ') });
    }
    case 'secrets_to_site': return t('change.secrets_to_site', { site: c.site, secrets: c.secrets.join(', ') });
    case 'secrets_to_port': return t('change.secrets_to_port', { port: c.port, secrets: c.secrets.join(', ') });
    case 'event_added': return t('change.event_added', { event: c.event });
    case 'event_removed': return t('change.event_removed', { event: c.event });
    case 'cloud_changed': return t('change.cloud_changed', { old: reach(c.old), new: reach(c.new) });
    case 'not_recorded': return t('change.not_recorded');
    default: return t('change.other', { kind: (c as { kind: string }).kind });
  }
}

// ---------------------------------------------------------------- call outcomes

/** A refusal reason (courtier or event door) in words. */
export function reasonWords(t: Translate, reason: string | null | undefined): string {
  if (!reason) return t('outcome.refused');
  const key = `reason.${reason}` as Key;
  const known = t(key);
  return known === key ? t('reason.other', { code: reason }) : known;
}

/** A failed call in words, by what its code says happened: the family the host gives with the
 * code (issue 33: no shell classifies a code by its text), a refusal's from its reason; a code
 * this version does not know (no family) as it is. */
export function familyWords(t: Translate, family: ToolFamily | null | undefined, reason: string | null, code: string | null = null): string {
  if (!family) return t('run.other', { code: code ?? '?' });
  return family === 'refused' ? t('run.POLICY_DENIED', { reason: reasonWords(t, reason) }) : t(`family.${family}`);
}

// ---------------------------------------------------------------- journal

export function whoText(t: Translate, who: string): string {
  const key = `who.${who}` as Key;
  const known = t(key);
  return known === key ? who : known;
}

/** A journal line's outcome: done; failed with its code; refused with its reason in words; received; dropped. */
export function outcomeText(t: Translate, line: Pick<JournalLine, 'outcome' | 'code'>): string {
  switch (line.outcome) {
    case 'done': return t('outcome.done');
    case 'received': return t('outcome.received');
    case 'failed': return line.code ? t('outcome.failed_code', { code: line.code }) : t('outcome.failed');
    case 'refused': return t('outcome.refused_reason', { reason: reasonWords(t, line.code) });
    case 'dropped': return line.code ? t('outcome.dropped_reason', { reason: reasonWords(t, line.code) }) : t('outcome.dropped');
    default: return line.outcome;
  }
}

/** The locale for dates: the system's own when it is a variant of the player's language (en-GB for en), else the language. */
export function timeLocale(language: string, system: string | undefined = globalThis.navigator?.language): string {
  return system && system.split('-')[0].toLowerCase() === language ? system : language;
}

/** A local, readable time: "14:05:09" today, else a short date and the time. */
export function formatTime(at: number, language: string, now: Date = new Date()): string {
  const d = new Date(at);
  const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  const time = d.toLocaleTimeString(language, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (sameDay) return time;
  const date = d.toLocaleDateString(language, { day: 'numeric', month: 'short', ...(d.getFullYear() !== now.getFullYear() ? { year: 'numeric' } : {}) });
  return `${date} ${time}`;
}

/** What the door journals as the event of a request refused before its event was read (a bad
 *  token, a body that names none): crates/dcp-door's journal.rs writes this for "no name". */
const NO_EVENT_NAME = '-';

/** The action or event name a journal line shows: an event by the line's kind, never by who asked
 *  (a tool call of an event's turn, refused not_requested, is a call); its name only when it has one. */
export function journalAction(t: Translate, line: Pick<JournalLine, 'action' | 'kind'>): string {
  if (line.kind !== 'event') return line.action;
  const named = line.action.trim() !== '' && line.action !== NO_EVENT_NAME;
  return named ? t('journal.event', { name: line.action }) : t('journal.event_unnamed');
}

// ---------------------------------------------------------------- door

export function doorWords(t: Translate, door: WireDoor): string {
  const state = door.state;
  if (state?.state === 'port_taken') {
    return t(door.held_by_a_door ? 'door.port_taken_by_a_door' : 'door.port_taken', { port: state.port });
  }
  if (state?.state === 'listening') return t('door.listening');
  const why = state?.state === 'closed' ? state.why : door.wanted;
  if (why === 'dev_mode_off') return t('door.dev_mode_off');
  if (why === 'no_event_on') return t('door.no_event_on');
  return t('door.listening');
}

// ---------------------------------------------------------------- My plugins filters

export type Filter = 'all' | 'enabled' | 'disabled' | 'updates';

/** The cards a filter and a search show, in their order. */
export function filterCards<C extends Pick<Card, 'slug' | 'name' | 'author' | 'enabled' | 'description'>>(
  cards: C[], filter: Filter, query: string, updates: ReadonlySet<string>,
): C[] {
  const q = query.trim().toLocaleLowerCase();
  return cards.filter((c) => {
    if (filter === 'enabled' && !c.enabled) return false;
    if (filter === 'disabled' && c.enabled) return false;
    if (filter === 'updates' && !updates.has(c.slug)) return false;
    if (!q) return true;
    return [c.name, c.author ?? '', c.slug, c.description ?? ''].some((s) => s.toLocaleLowerCase().includes(q));
  });
}

/** A tile colour class for a plugin without an icon (a fixed set: no inline style under the CSP). */
export function tileClass(slug: string): string {
  let h = 0;
  for (const ch of slug) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `tile-${h % 8}`;
}
