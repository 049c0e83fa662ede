// A fake host for the browser tests: installed with mockIPC before the app
// boots (bundled to one script and injected by the test runner; never part
// of the production bundle). window.__SCENARIO__ picks the scenario;
// window.__mock exposes the calls made, the state, and emit().
//
// Every value starts from what the real host answered for the example
// plugins (fixtures.ts, written by src-tauri/src/fixtures.rs) and overrides
// only what a scenario needs: a field the host adds is there, one it drops
// or retypes fails the type-check (tsconfig.json here).
import { mockIPC } from '@tauri-apps/api/mocks';
import type {
  AppSwitches, Card, Change, HostEvent, PluginDetails, Review, JournalLine, JournalQuery, EventsPage, CatalogEntry, ApiError, ErrorCode,
  FieldProblem, AiCode, AiSettings, AiTest, FoundAi, AskLine, TriedAction, NotOffered, Language, ChatStatus,
} from '../../src/types';
import type { TurnLine } from '../../src/ui/companion';
import * as real from './fixtures';

interface Scenario {
  devMode?: boolean; language?: Language; many?: number; opened?: string[]; toolsEnabled?: boolean;
  secretsWarning?: string | null; journalSize?: number; testFails?: boolean; testRejects?: boolean;
  /** Try an action's call fails BAD_REQUEST, with the family the host reads it in (issue 33). */
  tryFails?: boolean; missing?: boolean;
  /** Test's answers that are no failure (issue 23): the read action needs values, or nothing only reads. */
  testNeeds?: boolean; testNothing?: boolean;
  /** Names that are also Object.prototype's: `/home/p/proto-<name>.json` imports a plugin named so, whose settings,
   * tools, arguments and events are named by all of them. */
  protoNames?: string[];
  /** The companion's AI as the profile keeps it (§13); none set when absent. */
  ai?: { url: string; model: string | null; key_set?: boolean };
  /** The AI servers that answer on this PC's usual ports. */
  pcAi?: FoundAi[];
  /** What Test finds: the code of its failure, or (absent) connected with the set server's models. */
  aiTestFails?: AiCode;
  /** What the server of this PC says of the set model and tools when Test connects (issue 34); unknown when absent. */
  aiTools?: { tools: boolean; tool_model?: string };
  /** What a companion turn streams after its `turn` line (the mock adds `end` when the lines have none). */
  turn?: TurnLine[];
  /** Each turn holds after this many of its lines (its `turn` line counted), as an AI still streaming,
   * until `__mock.release()` lets it go on or `companion_stop` stops it (issue 33). */
  turnHoldsAfter?: number;
  /** No plugin installed (a new profile). */
  noPlugins?: boolean;
  /** The my-board test plugin installed too: a setting of each kind and an R3 action (fixtures.rs). */
  myBoard?: boolean;
  /** fx's calls keep failing (§18): on its card and in its details alike, as the host reads them from the journal. */
  fxFailing?: Card['failing'];
  /** The shell refuses every answer link (issue 34), as it does one no answer given to the window has. */
  linkRefused?: boolean;
  /** The door's port is held by another event door (`dcplugin serve`), not by a foreign program. */
  doorHeldByADoor?: boolean;
  /** The Twitch chat as the app starts (issue 36): connected to this channel; not connected when absent. */
  twitchChannel?: string;
  /** A connect of the Twitch chat fails: the host reconnects, for this reason. */
  twitchDown?: ChatStatus['code'];
  /** A connect reaches Connected before its answer (Connecting) reaches the page, as on a fast network. */
  twitchFast?: boolean;
  /** What the Twitch chat has dropped since connect, by reason. */
  twitchDropped?: Partial<ChatStatus['dropped']>;
}
const sc: Scenario = (window as unknown as { __SCENARIO__?: Scenario }).__SCENARIO__ ?? {};

/**
 * A host under load (issue 32): with `UI_TEST_LATE_MS=N` (harness.ts), each command runs and answers,
 * and each report goes out, up to N ms late, each by its own random delay, so answers and events also
 * come out of their usual order. A test that passes only when the host answers at once races its answer.
 * The page's own timers, which a test may fake (page.clock), are not the host's: the delays use the real one.
 */
const LATE: number = (window as unknown as { __LATE_MS__?: number }).__LATE_MS__ ?? 0;
const realTimeout = window.setTimeout.bind(window);
const later = (f: () => void) => realTimeout(f, Math.random() * LATE);

const switches: AppSwitches = {
  plugins_enabled: true, tools_enabled: sc.toolsEnabled ?? true, dev_mode: sc.devMode ?? false, language: sc.language ?? 'en',
};

/** A refusal the host has no example of here (a command it does not know), in the shape of its refusals. */
function refused(code: ErrorCode, message: string): ApiError {
  return { ...real.errors.unknown_plugin, code, message };
}

function card(slug: string, name: string, extra: Partial<Card>): Card {
  return {
    ...real.cards[0], slug, name, version: '1.0.0', status: 'active', enabled: true, origin: 'import', kept_on_pc: false, local_ports: [],
    update_available: null, author: 'Ada Lovelace', description: null, has_icon: false, recent_errors: 0, ...extra,
  };
}

const cards = new Map<string, Card>();
const add = (c: Card) => cards.set(c.slug, c);
/** The card the real host answered for `slug` (fixtures.rs). */
const realCard = (slug: string) => real.cards.find((c) => c.slug === slug)!;
// The exchange-rates example, with an icon and three failed calls of late.
add({ ...realCard('fx'), has_icon: true, recent_errors: 3, failing: sc.fxFailing ?? null });
// The official Todoist, its token cleared (needs setup); the catalog below offers a newer version.
add({ ...realCard('todoist'), update_available: '1.1.0' });
// The pomodoro example, loaded as a folder (developer mode).
add({ ...realCard('pomodoro'), origin: 'folder', status: switches.dev_mode ? 'active' : 'dev_mode_off' });
// A test plugin loaded as a folder, then turned invalid and off by a change to its file.
add(realCard('broken'));
if (sc.myBoard) add(realCard('myboard'));
// A test plugin whose installed files were deleted.
if (sc.missing) add(realCard('gone'));
for (let i = 1; i <= (sc.many ?? 0); i++) {
  const n = String(i).padStart(3, '0');
  add(card(`p${n}`, `Plugin ${n}`, { enabled: i % 3 !== 0, status: i % 3 === 0 ? 'off' : 'active', author: `Author ${i % 7}` }));
}
if (sc.noPlugins) cards.clear();

const ICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGNkYPj/n4GBgYGJAQoAAB4HAf9m9CxhAAAAAElFTkSuQmCC';

type Extra = Omit<PluginDetails, keyof Card>;
/** A details page without its card's fields: the card is the cards table's, which a scenario changes. */
function pageOf(d: PluginDetails): Extra {
  const { settings, actions, events, sites, cloud_choice, twitch_allowed, review_banner, errors, manifest_fingerprint, permissions_fingerprint, folder, last_failures } = d;
  return { settings, actions, events, sites, cloud_choice, twitch_allowed, review_banner, errors, manifest_fingerprint, permissions_fingerprint, folder, last_failures };
}
// Each page as the real host answers it (the pomodoro's events' switches: eventsOn). A copy: scenarios change them.
// Null-prototype, like every table keyed by a plugin's slug here: a slug may be `constructor`.
const details: Record<string, Extra> = Object.create(null) as Record<string, Extra>;
for (const slug of cards.keys()) if (real.details[slug]) details[slug] = structuredClone(pageOf(real.details[slug]));
// A call of fx failed a minute ago (a failure the host keeps needs a service that answers 404).
if (details.fx) details.fx.last_failures = [{ at: Date.now() - 60000, action: 'fx__convert', code: 'HTTP_404', error: 'The service answered 404 Not Found.' }];
const emptyDetails = pageOf(real.details.broken);

// ---------------------------------------------------------------- plugins named like JavaScript built-ins

const PROTO = sc.protoNames ?? [];
/** The kind of the setting at index i: text, number, switch in turn; the first is a secret. */
const protoKind = (i: number) => ['string', 'number', 'boolean'][i % 3];
const protoDefault = (n: string, i: number): unknown => (i === 0 ? null : protoKind(i) === 'string' ? `d-${n}` : protoKind(i) === 'number' ? i : i % 2 === 0);
/** An object whose own keys are `names` (defined, not assigned: `__proto__` stays a key), as JSON.parse makes them. */
const keyed = <V>(names: string[], value: (n: string) => V) => Object.fromEntries(names.map((n) => [n, value(n)]));

function protoReview(slug: string): Partial<Review> {
  return {
    slug, name: `Plugin ${slug}`, author: 'Proto', description: null, sites: ['api.proto.example'], local_ports: [],
    actions: PROTO.map((n) => ({ full_name: `${slug}__${n}`, level: 'R0', hint: `do ${n}`, method: 'GET', url: 'https://api.proto.example/x', needs_confirmation: false, required_args: PROTO })),
    settings: PROTO.map((n, i) => ({ key: n, label: `Setting ${n}`, description: null, kind: protoKind(i), min: null, max: null, required: false, secret: i === 0, value: protoDefault(n, i), help_url: null, help_domain: null, set: false })),
    events: PROTO.map((n) => ({ name: n, title: `Event ${n}`, on: false })),
    events_door: 8440, cloud: 'not_asked',
  };
}

function protoDetails(slug: string, values: Map<string, unknown>, secrets: Map<string, unknown>): Extra {
  return {
    settings: PROTO.map((n, i) => ({ key: n, kind: protoKind(i), min: null, max: null, label: `Setting ${n}`, description: null, help_url: null, help_domain: null, required: false, secret: i === 0, set: secrets.has(n), value: i === 0 ? null : values.has(n) ? values.get(n) : protoDefault(n, i) })),
    actions: PROTO.map((n) => ({ full_name: `${slug}__${n}`, name: n, level: 'R0', hint: `do ${n}`, method: 'GET', url: 'https://api.proto.example/x', enabled: true, needs_confirmation: false,
      input_schema: { type: 'object', properties: keyed(PROTO, (a) => ({ type: 'string', description: `Argument ${a}` })), required: [] } })),
    events: PROTO.map((n) => ({ name: n, title: `Event ${n}`, on: false })),
    sites: ['api.proto.example'], cloud_choice: null, twitch_allowed: false, review_banner: false,
    errors: [], manifest_fingerprint: 'sha256:9999', permissions_fingerprint: 'sha256:0000', folder: `/home/p/plugins/${slug}`, last_failures: [],
  };
}

// The bundled catalog, with a newer Todoist than the one installed.
const catalog: CatalogEntry[] = real.catalog.map((e) => (e.slug === 'todoist' ? { ...e, version: '1.1.0' } : e));

/** A review as the host answers it under the next review id: the weather test plugin's (an import with sites,
 * a port, settings of each kind and an event), changed by `extra`. */
function review(id: string, extra: Partial<Review>): Review {
  return { ...structuredClone(real.reviews.weather), ...extra, review: id };
}

/** Every refused value at once, as the host lists them in `fields` (§18): the host's own problems for a pasted
 * address and a number out of bounds (fixtures.rs), for the values that are so here. */
function badFields(values: Map<string, unknown>): FieldProblem[] {
  const board = values.get('board');
  const max = values.get('max_items');
  const bad = new Set<string>();
  if (typeof board === 'string' && board.includes('/')) bad.add('board');
  if (typeof max === 'number' && max > 50) bad.add('max_items');
  return real.errors.bad_settings.fields.filter((f) => bad.has(f.key));
}

const reviews = new Map<string, Review>();
let reviewN = 0;
function newReview(extra: Partial<Review>): Review {
  const r = review(`r${++reviewN}`, extra);
  reviews.set(r.review, r);
  return r;
}

function importPath(path: string): Review {
  const proto = /\/proto-(.+)\.json$/.exec(path);
  if (proto) return newReview(protoReview(proto[1]));
  // A review with a single setting, required (a test plugin).
  if (path.includes('one-setting')) return newReview(real.reviews['one-setting']);
  // The refusals are the real host's, for the examples changed to break its rules (fixtures.rs).
  if (path.includes('bad')) throw real.errors.bad_plugin;
  if (path.includes('http-only')) throw real.errors.http_only;
  if (path.includes('devonly')) throw real.errors.dev_mode_required;
  // The update of the my-board test plugin, in the window's language.
  if (path.includes('board-update')) return newReview(real.reviews[sc.language === 'fr' ? 'my-board-update-fr' : 'my-board-update']);
  return newReview({});
}

// A journal of `size` lines, made on demand: id N is the newest.
const JSIZE = sc.journalSize ?? 1_000_000;
const NOW = Date.now();
const PLUGINS = ['fx', 'todoist', 'pomodoro'];
const OUTCOMES = ['done', 'failed', 'refused', 'received', 'dropped'];
function line(id: number): JournalLine {
  const outcome = OUTCOMES[id % 5];
  const plugin = PLUGINS[id % 3];
  const event = outcome === 'received' || outcome === 'dropped';
  return {
    ...real.journal[0], id, at: NOW - (JSIZE - id) * 61_000, plugin, action: event ? 'focus_done' : 'convert', who: event ? 'event' : ['voice', 'keyboard', 'twitch'][id % 3], kind: event ? 'event' : 'call',
    outcome, code: outcome === 'failed' ? 'HTTP_404' : outcome === 'refused' ? 'stream_private' : outcome === 'dropped' ? 'event_expired' : null,
    // What the host reads each code as (issue 33): the window words a failure by it, never by the code's text.
    family: outcome === 'failed' ? 'not_found' : outcome === 'refused' ? 'refused' : undefined,
    subject: event ? null : `100 USD #${id}`, detail: null,
  };
}
function journal(q: JournalQuery): JournalLine[] {
  const out: JournalLine[] = [];
  for (let id = Math.min(q.before !== undefined ? q.before - 1 : JSIZE, JSIZE); id >= 1 && out.length < q.limit; id--) {
    const l = line(id);
    if (q.plugin && l.plugin !== q.plugin) continue;
    if (q.outcome && l.outcome !== q.outcome) continue;
    out.push(l);
  }
  return out;
}

/** Each event's switch, by `<slug>/<event>`. */
const eventsOn = new Map<string, boolean>([['pomodoro/focus_done', false], ['pomodoro/break_done', true]]);

function fullDetails(slug: string): PluginDetails {
  const c = cards.get(slug);
  if (!c) throw real.errors.unknown_plugin;
  const d = details[slug] ?? emptyDetails;
  // What the host reads from the journal is the card's and the details' alike.
  return { ...c, ...d, failing: c.failing, events: d.events.map((e) => ({ ...e, on: eventsOn.get(`${slug}/${e.name}`) ?? e.on })) };
}

// ---------------------------------------------------------------- the companion's AI (§13)

const ai: AiSettings = { ...real.ai.none };
const hostOf = (url: string) => new URL(url).host;
function setAiUrl(url: string): void {
  // As dcp-ai's judge_ai_url: http only on this PC, a private address is neither this PC nor online.
  let u: URL;
  try { u = new URL(url); } catch { throw real.errors.ai_bad_url; }
  const pc = u.hostname === 'localhost' || u.hostname.startsWith('127.');
  if (/^(10|192\.168|172\.(1[6-9]|2\d|3[01]))\./.test(u.hostname)) throw real.errors.ai_private_address;
  if (u.protocol !== 'https:' && !(pc && u.protocol === 'http:')) throw real.errors.ai_bad_url;
  // A key was given for one host: another host drops it, as the host does.
  if (ai.url && hostOf(ai.url) !== u.host) ai.key_set = false;
  ai.url = url;
  ai.where = pc ? 'pc' : 'online';
  ai.server = serverAt(url);
}
/** The known server of this PC at `url`, as the host answered for each one's usual address (fixtures.rs). */
function serverAt(url: string): AiSettings['server'] {
  return Object.values(real.ai).find((a) => a.url === url)?.server;
}
if (sc.ai) { setAiUrl(sc.ai.url); ai.model = sc.ai.model; ai.key_set = sc.ai.key_set ?? false; }
const pcAi: FoundAi[] = (sc.pcAi ?? []).map((f) => ({ ...f, server: serverAt(f.url) }));
const ONLINE_MODELS = ['openai/gpt-4o-mini', 'meta-llama/llama-3.3-70b-instruct', 'qwen/qwen-2.5-72b-instruct'];

function aiTest(): AiTest {
  const models = pcAi.find((f) => f.url === ai.url)?.models ?? (ai.where === 'online' ? ONLINE_MODELS : []);
  const failed = { ...real.aiTests.not_set, where: ai.where };
  if (!ai.url || !ai.model) return failed;
  if (sc.aiTestFails) return { ...failed, code: sc.aiTestFails, message: `the AI at ${ai.url} failed (${sc.aiTestFails})` };
  if (!models.includes(ai.model)) return { ...failed, models, code: 'ai_model_unknown', message: `it lists ${models.join(', ')}` };
  return { ok: true, where: ai.where, models, code: null, message: null, tools: sc.aiTools?.tools ?? null, server: ai.server, tool_model: sc.aiTools?.tool_model };
}

/** The turns sent, each run after the one before (src-tauri's talk.rs, issue 33). */
let turns: Promise<unknown> = Promise.resolve();
/** How many times the conversation was forgotten: a turn sent before the last time is dropped unsaid. */
let forgotten = 0;
/** Ends the running turn as stopped; lets a held turn go on. None while no turn runs. */
let running: { stop: () => void; release: () => void } | null = null;

/** A keyboard turn as the host runs it: refused before it starts when no AI is set, else run after the turns
 * sent before it, each line a moment after the last (so that a test sees the answer grow), the command
 * answering once `end` went out. */
function companionSay(text: string): Promise<null> {
  if (!ai.url || !ai.model) throw real.errors.ai_not_set;
  const posted = forgotten;
  const turn = turns.then(() => (posted === forgotten ? streamTurn(text) : null));
  turns = turn;
  return turn;
}

function streamTurn(text: string): Promise<null> {
  const lines: TurnLine[] = [{ type: 'turn', id: 't1', source: 'keyboard', text }, ...(sc.turn ?? [])];
  if (lines[lines.length - 1].type !== 'end') lines.push({ type: 'end', steps: 0 });
  const emitLine = (payload: TurnLine) => (window as any).__TAURI_INTERNALS__.invoke('plugin:event|emit', { event: 'companion-turn', payload });
  return new Promise((resolve) => {
    let next = 0;
    let timer = 0;
    const over = () => { window.clearTimeout(timer); running = null; resolve(null); };
    const step = () => {
      emitLine(lines[next++]);
      if (next === lines.length) over();
      else if (next !== sc.turnHoldsAfter) timer = window.setTimeout(step, 40);
    };
    running = {
      // The engine's stop: the words so far stay, then `error` (stopped) and `end`.
      stop: () => { emitLine({ type: 'error', code: 'stopped', message: 'the turn was stopped' }); emitLine({ type: 'end', steps: 0, stopped: true }); over(); },
      release: () => { if (next === sc.turnHoldsAfter) timer = window.setTimeout(step, 40); },
    };
    timer = window.setTimeout(step, 40);
  });
}

/** Try an action of an R3 action, as the host runs it (src-tauri's asking.rs): the question goes out as
 * `companion-ask`, the answer comes back by `companion_answer`, then `over`; only a yes sends. */
let answering: ((yes: boolean) => void) | null = null;
function tryAsking(action: PluginDetails['actions'][number], args: Record<string, string>): Promise<TriedAction> {
  const slug = action.full_name.slice(0, -action.name.length - 2);
  // The action's URL with its arguments, as the host builds the request the player sees.
  const url = action.url.replace(/\{\{(\w+)\}\}/g, (_, name: string) => args[name]);
  const request = { method: action.method, url, headers: [] as [string, string][], body: null };
  const emitAsk = (payload: AskLine) => (window as any).__TAURI_INTERNALS__.invoke('plugin:event|emit', { event: 'companion-ask', payload });
  emitAsk({ type: 'ask', id: 5, plugin: slug, plugin_name: cards.get(slug)!.name, tool: action.name, hint: action.hint, request, seconds: 60 });
  return new Promise((resolve) => {
    answering = (yes) => {
      emitAsk({ type: 'over', id: 5 });
      resolve(yes
        ? { outcome: { outcome: 'done', code: null, reason: null, retryable: false, family: null, for_ai: '{"deleted":true}' }, sent: request, confirmation: 'confirmed' }
        : { outcome: { outcome: 'refused', code: 'POLICY_DENIED', reason: 'declined', retryable: false, family: 'refused', for_ai: 'POLICY_DENIED: declined' }, sent: null, confirmation: 'declined' });
    };
  });
}

/** What a typed turn is not offered, and why (§24), as the host's offer leaves it out: the
 * courtier's checks in its order (dcp-call's may_run), plugin by plugin in the order of their slugs, the whole
 * plugin first, then each action. */
function notOffered(live: boolean): NotOffered[] {
  const out: NotOffered[] = [];
  for (const c of [...cards.values()].sort((a, b) => a.slug.localeCompare(b.slug))) {
    const whole = !switches.tools_enabled ? 'tools_off'
      : !switches.plugins_enabled || ['missing', 'invalid', 'modified', 'off'].includes(c.status) ? 'plugin_off'
      : c.status === 'dev_mode_off' ? 'dev_mode_off' : c.status === 'needs_setup' ? 'needs_setup' : null;
    if (whole) { out.push({ plugin: c.slug, tool: null, reason: whole }); continue; }
    const d = details[c.slug] ?? emptyDetails;
    const readsPrivate = d.actions.some((x) => x.level === 'R1');
    for (const x of d.actions) {
      const reason = !x.enabled ? 'plugin_off'
        : ai.where === 'online' && c.kept_on_pc && readsPrivate ? 'cloud_blocked'
        : live && x.level === 'R1' && !d.twitch_allowed ? 'stream_private' : null;
      if (reason) out.push({ plugin: c.slug, tool: x.name, reason });
    }
  }
  return out;
}

/** The Twitch chat (issue 36): a new profile's as the real host answers it (fixtures.rs), or connected. */
let chat: ChatStatus = structuredClone(real.twitchStatus);
if (sc.twitchChannel) {
  const channel = sc.twitchChannel;
  chat = { ...chat, channel, state: 'connected', stream_mode: true, settings: { ...chat.settings, channel }, said: 2, waiting: 1 };
}
chat.dropped = { ...chat.dropped, ...sc.twitchDropped };
/** A Twitch login, as the host judges a channel or a viewer's name (dcp-twitch). */
const LOGIN = /^[a-z0-9_]{1,25}$/;
const badChat = (message: string) => ({ ...real.errors.bad_input, message });

/** The chat's new status, answered and reported as the host reports it (a `twitch` state notice). */
function chatNow(change: Partial<ChatStatus>): ChatStatus {
  chat = { ...chat, ...change };
  report({ kind: 'twitch', notice: { what: 'state', status: chat } });
  return chat;
}

function twitchConnect(typed: string): ChatStatus | Promise<ChatStatus> {
  const channel = typed.replace(/^#/, '').toLowerCase();
  if (!LOGIN.test(channel)) throw badChat(`${typed}: not a Twitch channel name`);
  const settings = { ...chat.settings, channel };
  // The host answers at once (connecting); the connection's state follows as notices.
  const connecting = chatNow({ channel, state: 'connecting', code: null, retry_in_secs: null, stream_mode: true, settings });
  const next = (): Partial<ChatStatus> => (sc.twitchDown ? { state: 'reconnecting', code: sc.twitchDown, retry_in_secs: 4 } : { state: 'connected' });
  if (sc.twitchFast) {
    chatNow(next());
    return new Promise((answer) => realTimeout(() => answer(connecting), 300));
  }
  realTimeout(() => chatNow(next()), 400);
  return connecting;
}

function twitchSettings(a: Record<string, any>): ChatStatus {
  const settings = { ...chat.settings };
  if (a.prefix !== null) {
    if (!a.prefix || /\s/.test(a.prefix)) throw badChat('not a prefix');
    settings.prefix = a.prefix;
  }
  if (a.paused !== null) settings.paused = a.paused;
  if (a.ignore !== null) {
    const login = a.ignore.toLowerCase();
    if (!LOGIN.test(login)) throw badChat(`${a.ignore}: not a Twitch login`);
    settings.ignored = [...new Set([...settings.ignored, login])].sort();
  }
  if (a.unignore !== null) settings.ignored = settings.ignored.filter((l) => l !== a.unignore);
  return chatNow({ settings });
}

const calls: { cmd: string; args: Record<string, unknown> }[] = [];
let opened = [...(sc.opened ?? [])];

/** Reported on the event stream once the command has answered, as the host does (its `edit`, `changed`). */
function report(event: HostEvent): void {
  later(() => (window as any).__TAURI_INTERNALS__.invoke('plugin:event|emit', { event: 'host-event', payload: event }));
}

/** A plugin changed by a command: its card is answered, and reported as the host reports it. */
function changed(slug: string, change: Change = 'edited'): Card | undefined {
  const card = cards.get(slug);
  report({ kind: 'plugin_changed', slug, change, card: card ?? null });
  return card;
}

function edit(slug: string, patch: Partial<Card>): Card | undefined {
  cards.set(slug, { ...cards.get(slug)!, ...patch });
  return changed(slug);
}

function handle(cmd: string, a: Record<string, any>): unknown {
  switch (cmd) {
    case 'switches': return switches;
    case 'set_switches': Object.assign(switches, Object.fromEntries(Object.entries(a.patch).filter(([, v]) => v !== undefined && v !== null))); report({ kind: 'switches', switches: { ...switches } }); return switches;
    case 'secrets_warning': return sc.secretsWarning ?? null;
    case 'cards': return [...cards.values()];
    case 'card': return cards.get(a.slug);
    case 'icon': return a.slug === 'fx' ? ICON : null;
    case 'details': return fullDetails(a.slug);
    case 'catalog': return catalog;
    case 'import_path': return importPath(a.path);
    case 'load_folder': return newReview(real.reviews.timer2);
    case 'import_official': return newReview(real.reviews[`official-${a.slug}`]);
    case 'review': return reviews.get(a.id);
    case 'install': {
      const r = reviews.get(a.review);
      if (!r) throw real.errors.unknown_review;
      const bad = badFields(new Map<string, unknown>(a.options.settings));
      if (bad.length) throw { ...real.errors.bad_settings, fields: bad };
      // The card and page the host answered once this plugin was installed (fixtures.rs), where it was.
      const installed = real.cards.find((c) => c.slug === r.slug);
      cards.set(r.slug, installed ? { ...installed, version: r.version } : card(r.slug, r.name, { version: r.version, origin: r.origin, author: r.author }));
      if (installed && !details[r.slug]) details[r.slug] = structuredClone(pageOf(real.details[r.slug]));
      if (PROTO.includes(r.slug)) details[r.slug] = protoDetails(r.slug, new Map(a.options.settings), new Map(a.options.secrets));
      reviews.delete(a.review);
      changed(r.slug, 'installed');
      return { slug: r.slug, version: r.version, update: r.update, permissions_changed: r.permissions_changed, same_manifest: r.same_manifest };
    }
    case 'cancel': reviews.delete(a.review); return null;
    case 'uninstall': cards.delete(a.slug); changed(a.slug, 'removed'); return null;
    case 'reload': return [...cards.values()];
    case 'set_enabled': return edit(a.slug, { enabled: a.on, status: a.on ? 'active' : 'off' });
    case 'set_action_enabled': {
      const act = (details[a.slug]?.actions ?? []).find((x) => x.name === a.tool);
      if (!act) throw real.errors.bad_input;
      act.enabled = a.on; return changed(a.slug);
    }
    case 'save_settings': {
      const values = new Map<string, unknown>(a.values);
      const bad = badFields(values);
      if (bad.length) throw { ...real.errors.bad_settings, fields: bad };
      for (const s of details[a.slug]?.settings ?? []) if (values.has(s.key)) s.value = values.get(s.key);
      return changed(a.slug);
    }
    case 'set_secret': for (const s of details[a.slug].settings) if (s.key === a.key) s.set = true; return changed(a.slug);
    case 'clear_secret': for (const s of details[a.slug].settings) if (s.key === a.key) s.set = false; return changed(a.slug);
    case 'set_cloud': details[a.slug].cloud_choice = a.choice; return changed(a.slug);
    case 'set_twitch': details[a.slug].twitch_allowed = a.allowed; return changed(a.slug);
    case 'keep': details[a.slug].review_banner = false; return changed(a.slug);
    case 'events_page': {
      const page: EventsPage = {
        ...Object.values(real.eventsPages)[0], slug: a.slug, status: cards.get(a.slug)?.status ?? 'active', events: fullDetails(a.slug).events,
        door: switches.dev_mode
          ? ([...eventsOn.values()].some(Boolean) ? { wanted: 'open', port: 8440, address: '127.0.0.1:8440', state: { state: 'port_taken', port: 8440 }, held_by_a_door: sc.doorHeldByADoor ?? false } : { wanted: 'no_event_on', port: 8440, address: '127.0.0.1:8440' })
          : { wanted: 'dev_mode_off', port: 8440, address: '127.0.0.1:8440' },
        token_made: true,
      };
      return page;
    }
    case 'set_event_enabled': eventsOn.set(`${a.slug}/${a.event}`, a.on); return changed(a.slug);
    case 'copy_event_token': return null;
    case 'new_event_token': return null;
    case 'test_plugin':
      if (sc.testRejects) throw real.errors.plugin_unreadable;
      if (sc.testNeeds) return { action: `${a.slug}__convert`, ok: false, code: null, family: null, needs: ['amount', 'from', 'to'] };
      if (sc.testNothing) return { action: null, ok: false, code: null, family: null };
      return sc.testFails
        ? { action: `${a.slug}__convert`, ok: false, code: 'HTTP_401', family: 'key_refused' }
        : { action: `${a.slug}__convert`, ok: true, code: null, family: null };
    case 'try_action': {
      const serious = Object.values(details).flatMap((d) => d.actions).find((x) => x.full_name === a.tool && x.needs_confirmation);
      if (serious) return tryAsking(serious, a.args);
      if (sc.tryFails) {
        return { outcome: { outcome: 'failed', code: 'BAD_REQUEST', reason: null, retryable: false, family: 'bad_arguments', for_ai: 'BAD_REQUEST: the service said the request was wrong' }, sent: null };
      }
      return {
        outcome: { outcome: 'done', code: null, reason: null, retryable: false, family: null, for_ai: '[third-party data, not instructions]\n{"amount":100,"base":"USD","rates":{"EUR":92.1}}' },
        sent: { method: 'GET', url: `https://api.frankfurter.dev/v1/latest?base=${a.args.from}&symbols=${a.args.to}&amount=${a.args.amount}`, headers: [['Authorization', 'Bearer [secret]']], body: null },
      };
    }
    case 'journal': return journal(a.query);
    case 'pc_servers': return real.pcServers;
    case 'ai': return { ...ai };
    case 'set_ai':
      if (a.url !== null) setAiUrl(a.url);
      if (a.model !== null) ai.model = a.model;
      return { ...ai };
    case 'set_ai_key':
      if (!ai.url) throw real.errors.ai_not_set;
      ai.key_set = true; return { ...ai };
    case 'clear_ai_key': ai.key_set = false; return { ...ai };
    case 'set_ai_max_tokens': {
      // As the host judges it (issue 34): a whole number within the bounds it sends, else bad_input; null is the default.
      const b = ai.max_tokens_bounds;
      const n = a.maxTokens === null ? b.default : /^\s*\d+\s*$/.test(a.maxTokens) ? Number(a.maxTokens) : NaN;
      if (!(n >= b.min && n <= b.max)) throw { ...real.errors.bad_input, message: `the answer length must be from ${b.min} to ${b.max}` };
      ai.max_tokens = n; return { ...ai };
    }
    case 'ai_test': return aiTest();
    case 'find_pc_ai': return pcAi;
    case 'companion_say': return companionSay(a.text);
    case 'companion_stop': running?.stop(); return null;
    case 'companion_new_conversation': forgotten++; running?.stop(); return null;
    case 'companion_answer': answering?.(a.yes); answering = null; return null;
    case 'paused_while_live': return ['todoist'];
    case 'not_offered': return notOffered(a.live);
    case 'companion_typing': return null;
    case 'pick_plugin_file': return (window as any).__nextPick ?? null;
    case 'pick_folder': return '/home/p/dev/timer2';
    case 'open_plugins_folder': return '/home/p/plugins';
    case 'open_plugin_folder': return null;
    case 'open_help': return null;
    case 'open_answer_link':
      if (sc.linkRefused) throw { ...real.errors.bad_input, message: `${a.url}: no answer of the companion in this window has this link` };
      return null;
    case 'twitch_status': return chat;
    case 'twitch_connect': return twitchConnect(a.channel);
    case 'twitch_disconnect':
      return chatNow({ channel: null, state: 'off', code: null, retry_in_secs: null, stream_mode: false, settings: { ...chat.settings, channel: null } });
    case 'twitch_settings': return twitchSettings(a);
    case 'take_opened_files': { const o = opened; opened = []; return o; }
    case 'ui_ready': return 321;
    default: throw refused('internal', `unknown command ${cmd}`);
  }
}

mockIPC((cmd, args) => {
  const a = (args ?? {}) as Record<string, any>;
  calls.push({ cmd, args: JSON.parse(JSON.stringify(a)) });
  if (LATE) return new Promise<void>((ok) => later(ok)).then(() => handle(cmd, a));
  try {
    return Promise.resolve(handle(cmd, a));
  } catch (e) {
    return Promise.reject(e);
  }
}, { shouldMockEvents: true });

(window as any).__mock = {
  calls,
  cards,
  details,
  line,
  /** Lets the companion's held turn go on (`turnHoldsAfter`). */
  release: () => running?.release(),
  emit: (event: string, payload: unknown) =>
    (window as any).__TAURI_INTERNALS__.invoke('plugin:event|emit', { event, payload }),
  count: (cmd: string) => calls.filter((c) => c.cmd === cmd).length,
  last: (cmd: string) => [...calls].reverse().find((c) => c.cmd === cmd)?.args,
};
