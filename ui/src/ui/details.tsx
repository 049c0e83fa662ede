import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { ActionView, EventsPage, Place, PluginDetails, Source, TriedAction } from '../types';
import { errorWords, badgeText, cardLines, doorWords, formatTime, timeLocale, levelText, familyWords, outcomeText, officialDescription, statusHelp, statusText, typeText, whoText } from '../words';
import { PlaceValues, SourceValues } from '../bindings/values';
import { toolName } from '../toolref';
import { CallView } from './call-view';
import { CloseButton, Dialog, PluginIcon, Switch, useId } from './common';
import { useApp, useT } from './context';
import { stampOf } from './stale';
import { Failing } from './mine';

/** Loads a plugin's details, and again when a host event makes them stale (stale.ts). */
export function useDetails(slug: string): [PluginDetails | null, string | null] {
  const app = useApp();
  const [details, setDetails] = useState<PluginDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stamp = stampOf(app.stamps, 'details', slug);
  useEffect(() => {
    let live = true;
    api.details(slug).then(
      (d) => { if (live) { setDetails(d); setError(null); } },
      (e) => { if (live) setError(errorWords(app.t, asApiError(e))); },
    );
    return () => { live = false; };
  }, [slug, stamp, app.language]);
  return [details, error];
}

export function Details(props: { slug: string; onClose: () => void }) {
  const app = useApp();
  const { t } = app;
  const [d, loadError] = useDetails(props.slug);
  const name = d?.name ?? app.cards.get(props.slug)?.name ?? props.slug;
  // What a change shows comes back as the host's plugin_changed event.
  const run = (p: Promise<unknown>) => p.catch((e) => app.showError(asApiError(e)));
  return (
    <Dialog label={t('details.title', { name })} onClose={props.onClose} testid="details" wide>
      <div class="dialog-body">
        <header class="dialog-head">
          {d && <PluginIcon slug={d.slug} name={d.name} hasIcon={d.has_icon} stamp={stampOf(app.stamps, 'icon', d.slug)} />}
          <div class="grow">
            <h2 tabIndex={-1}>{name}</h2>
            {d && (
              <p class="muted">
                {t('card.version', { version: d.version })}{d.author && <> · {t('card.by', { author: d.author })}</>} · {badgeText(t, d.origin)}
              </p>
            )}
          </div>
          <CloseButton onClose={props.onClose} />
        </header>
        {!d ? (loadError ? <p class="banner error" role="alert">{loadError}</p> : <p role="status">{t('app.loading')}</p>) : (
          <>
            {d.review_banner && (
              <div class="banner warn" data-testid="review-banner">
                <p><strong>{t('details.review_banner')}</strong></p>
                <p>{t('details.review_text')}</p>
                <div class="row">
                  <button type="button" data-testid="review-keep" onClick={() => run(api.keep(d.slug))}>{t('details.keep')}</button>
                  <button type="button" class="danger" onClick={() => app.askUninstall(d)}>{t('details.uninstall')}</button>
                </div>
              </div>
            )}
            <p class="status-line">
              <span class={`status status-${d.status}`} data-testid="details-status">{statusText(t, d.status)}</span>
              <span class="status-help"> {statusHelp(t, d.status)}</span>
            </p>
            {d.failing && <Failing t={t} failing={d.failing} testid="details-failing" />}
            {cardLines(t, d).map((l) => <p class="card-line" key={l}>{l}</p>)}
            {d.description && <p>{d.origin === 'official' ? officialDescription(t, d.slug, d.description) : d.description}</p>}
            <section class="section">
              <h3>{t('details.actions')}</h3>
              <ul class="actions switches">
                {d.actions.map((a) => (
                  <li key={a.full_name} data-testid={`action-${a.name}`}>
                    <Switch
                      label={t('details.action_switch', { name: a.hint || a.name })} hideLabel checked={a.enabled}
                      testid={`action-switch-${a.name}`} onChange={(on) => run(api.setActionEnabled(d.slug, a.name, on))}
                    />
                    <div>
                      <span class="hint">{a.hint || a.name}</span>
                      <span class={`level level-${a.level}`}>{levelText(t, a.level)}</span>
                      {a.needs_confirmation && <p class="muted" data-testid={`asks-${a.name}`}>{t('level.needs_confirmation')}</p>}
                    </div>
                  </li>
                ))}
              </ul>
            </section>
            <section class="section">
              <h3>{t('details.sites')}</h3>
              <ul class="sites">
                {d.sites.map((s) => <li key={s}>{s}</li>)}
                {d.local_ports.map((p) => <li key={p} class="this-pc"><strong>{t('consent.this_pc', { port: p })}</strong></li>)}
              </ul>
              {!d.sites.length && !d.local_ports.length && <p class="muted">{t('consent.no_sites')}</p>}
            </section>
            <section class="section">
              <h3>{t('details.privacy')}</h3>
              {d.cloud_choice !== null && (
                <Switch
                  label={t('details.cloud')} help={t('details.cloud_help')} checked={d.cloud_choice === 'allow'} testid="details-cloud"
                  onChange={(on) => run(api.setCloud(d.slug, on ? 'allow' : 'local'))}
                />
              )}
              <Switch
                label={t('details.twitch')} help={t('details.twitch_help')} checked={d.twitch_allowed} testid="details-twitch"
                onChange={(on) => run(api.setTwitch(d.slug, on))}
              />
            </section>
            {d.events.length > 0 && <EventsSection slug={d.slug} />}
            {app.switches.dev_mode && <DevSection d={d} />}
          </>
        )}
      </div>
    </Dialog>
  );
}

function EventsSection(props: { slug: string }) {
  const app = useApp();
  const { t } = app;
  const [page, setPage] = useState<EventsPage | null>(null);
  const [note, setNote] = useState('');
  const stamp = stampOf(app.stamps, 'events', props.slug);
  useEffect(() => {
    // An older read answered after a newer one must not show the older door
    // state and switches (answers may come out of order under load).
    let live = true;
    api.eventsPage(props.slug).then((p) => { if (live) setPage(p); }, (e) => { if (live) app.showError(asApiError(e)); });
    return () => { live = false; };
  }, [props.slug, stamp]);
  if (!page) return null;
  const act = (p: Promise<unknown>, done?: string) =>
    p.then(() => { if (done) setNote(done); }, (e) => app.showError(asApiError(e)));
  return (
    <section class="section" data-testid="events-section">
      <h3>{t('events.heading')}</h3>
      <p class="help">{t('events.explain')}</p>
      {page.events.map((e) => (
        <Switch key={e.name} label={t('events.switch', { title: e.title })} checked={e.on} testid={`event-switch-${e.name}`}
          onChange={(on) => act(api.setEventEnabled(props.slug, e.name, on))} />
      ))}
      <dl class="facts">
        <dt>{t('events.port')}</dt><dd data-testid="door-port">{page.door.port}</dd>
        <dt>{t('events.door')}</dt><dd data-testid="door-state">{doorWords(t, page.door)}</dd>
      </dl>
      <h4>{t('events.token')}</h4>
      <p class="help">{t('events.token_explain')}</p>
      <div class="row">
        <button type="button" data-testid="token-copy" onClick={() => act(api.copyEventToken(props.slug), t('events.copied'))}>{t('events.copy')}</button>
        <button type="button" data-testid="token-new" onClick={() => act(api.newEventToken(props.slug), t('events.renewed'))}>{t('events.new_token')}</button>
      </div>
      <p role="status" class="note">{note}</p>
    </section>
  );
}

function DevSection(props: { d: PluginDetails }) {
  const app = useApp();
  const { t, language } = app;
  const d = props.d;
  const turn = app.lastTurns.get(d.slug);
  return (
    <section class="section dev" data-testid="dev-section">
      <h3>{t('dev.section')}</h3>
      <dl class="facts">
        <dt>{t('dev.id')}</dt><dd><code>{d.slug}</code></dd>
        <dt>{t('dev.manifest_fp')}</dt><dd><code class="wrap">{d.manifest_fingerprint}</code></dd>
        <dt>{t('dev.permissions_fp')}</dt><dd><code class="wrap">{d.permissions_fingerprint}</code></dd>
        <dt>{t('dev.folder')}</dt>
        <dd>
          <code class="wrap">{d.folder}</code>{' '}
          <button type="button" data-testid="open-plugin-folder" onClick={() => api.openPluginFolder(d.slug).catch((e) => app.showError(asApiError(e)))}>{t('dev.open')}</button>
        </dd>
      </dl>
      <h4>{t('dev.manifest_errors')}</h4>
      {d.errors.length ? (
        <table class="tech" data-testid="dev-errors">
          <tbody>{d.errors.map((p, i) => <tr key={i}><td><code>{p.code}</code></td><td><code>{p.path || '-'}</code></td><td>{p.message}</td></tr>)}</tbody>
        </table>
      ) : <p class="muted">{t('dev.no_errors')}</p>}
      <h4>{t('dev.actions')}</h4>
      <table class="tech">
        <thead><tr><th scope="col">{t('dev.full_name')}</th><th scope="col">{t('dev.method')}</th><th scope="col">{t('dev.url')}</th><th scope="col">{t('dev.level')}</th></tr></thead>
        <tbody>
          {d.actions.map((a) => (
            <tr key={a.full_name}><td><code>{a.full_name}</code></td><td>{a.method}</td><td><code class="wrap">{a.url}</code></td><td>{a.level} · {levelText(t, a.level)}</td></tr>
          ))}
        </tbody>
      </table>
      <h4>{t('dev.failures')}</h4>
      {d.last_failures.length ? (
        <table class="tech" data-testid="dev-failures">
          <tbody>
            {d.last_failures.map((f, i) => (
              <tr key={i}><td>{formatTime(f.at, timeLocale(language))}</td><td><code>{f.action}</code></td><td><code>{f.code}</code></td><td>{f.error}</td></tr>
            ))}
          </tbody>
        </table>
      ) : <p class="muted">{t('dev.no_failures')}</p>}
      {turn && (
        <>
          <h4>{t('events.last_turn')}</h4>
          <pre class="ai-reads" data-testid="last-turn">{turn}</pre>
        </>
      )}
      <TryAction d={d} />
    </section>
  );
}

/** The arguments of an action, from the inputSchema the host sends with it (§7). */
export function argumentsOf(a: ActionView): { name: string; type: string; required: boolean; description?: string; choices?: string[] }[] {
  const schema = a.input_schema;
  return Object.entries(schema.properties).map(([name, p]) => ({
    name, type: p.type, required: schema.required.includes(name), description: p.description,
    choices: p.enum?.map(String),
  }));
}

type Argument = ReturnType<typeof argumentsOf>[number];

/** The arguments typed in the fields, as [name, text] pairs: the host converts the text to each
 * argument's type as it does the AI's (§7: "100" is a number, "true" a boolean, else refused with
 * why). A field left empty is not given, but for a required text, which is given empty. */
export function fieldArguments(fields: readonly Pick<Argument, 'name' | 'type' | 'required'>[], typedIn: ReadonlyMap<string, string>): [string, string][] {
  const out: [string, string][] = [];
  for (const f of fields) {
    const raw = typedIn.get(f.name) ?? '';
    if (raw === '' && (f.type !== 'string' || !f.required)) continue;
    out.push([f.name, raw]);
  }
  return out;
}

function TryAction(props: { d: PluginDetails }) {
  const app = useApp();
  const { t } = app;
  const actions = props.d.actions;
  const [tool, setTool] = useState(actions[0]?.full_name ?? '');
  // By argument name, which is the plugin's (`constructor`, `__proto__`…): a Map.
  const [args, setArgs] = useState<ReadonlyMap<string, string>>(new Map());
  // A test by default, journaled as one (issue 23); another source tries the courtier's rules for it.
  const [source, setSource] = useState<Source>('test');
  const [model, setModel] = useState<Place>('pc');
  const [result, setResult] = useState<TriedAction | null>(null);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const toolId = useId('try-tool');
  const whoId = useId('try-who');
  const modelId = useId('try-model');
  const action = actions.find((a) => a.full_name === tool);
  const fields = action ? argumentsOf(action) : [];
  const resultRef = useRef<HTMLDivElement>(null);
  // When a result arrives, bring it into view with its heading at the top.
  useEffect(() => { if (result) resultRef.current?.scrollIntoView({ block: 'start' }); }, [result]);
  if (!actions.length) return null;
  const runIt = async () => {
    setProblem('');
    // Defined, never assigned (an assignment to `toString` throws under the frozen prototype,
    // one to `__proto__` is lost).
    const object = Object.fromEntries(fieldArguments(fields, args));
    setBusy(true);
    try { setResult(await api.tryAction(tool, object, source, model)); }
    catch (e) { setProblem(asApiError(e).message); setResult(null); }
    setBusy(false);
  };
  return (
    <div class="try">
      <h4>{t('dev.try')}</h4>
      <form class="try-form" onSubmit={(e) => { e.preventDefault(); runIt(); }}>
        <div class="field">
          <label for={toolId}>{t('dev.try_tool')}</label>
          <select id={toolId} data-testid="try-tool" value={tool} onChange={(e) => { setTool((e.currentTarget as HTMLSelectElement).value); setArgs(new Map()); setResult(null); }}>
            {actions.map((a) => <option key={a.full_name} value={a.full_name}>{a.full_name}</option>)}
          </select>
        </div>
        {fields.map((f) => (
          <ArgField key={`${tool}.${f.name}`} field={f} value={args.get(f.name) ?? ''} onChange={(v) => setArgs(new Map(args).set(f.name, v))} />
        ))}
        <div class="row">
          <div class="field">
            <label for={whoId}>{t('dev.try_who')}</label>
            <select id={whoId} data-testid="try-source" value={source} onChange={(e) => setSource((e.currentTarget as HTMLSelectElement).value as Source)}>
              {SourceValues.map((s) => <option key={s} value={s}>{whoText(t, s)}</option>)}
            </select>
          </div>
          <div class="field">
            <label for={modelId}>{t('dev.try_model')}</label>
            <select id={modelId} data-testid="try-model" value={model} onChange={(e) => setModel((e.currentTarget as HTMLSelectElement).value as Place)}>
              {PlaceValues.map((m) => <option key={m} value={m}>{t(`model.${m}`)}</option>)}
            </select>
          </div>
        </div>
        <button type="submit" class="primary" data-testid="try-run" disabled={busy}>{busy ? t('dev.try_running') : t('dev.try_run')}</button>
      </form>
      {problem && <p class="field-error" role="alert">{problem}</p>}
      {result && (
        <div class="try-result" data-testid="try-result" aria-live="polite" ref={resultRef}>
          <CallView sent={result.sent} forAi={result.outcome.for_ai} prefix="try" heading="h5" outcome={(
            <>
              {result.confirmation && (
                <p data-testid="try-confirmation">{t(`ask.${result.confirmation}`, {
                  plugin: props.d.name, action: action?.hint || toolName(tool),
                  method: result.sent?.method ?? '', url: result.sent?.url ?? '',
                })}</p>
              )}
              <p data-testid="try-outcome">
                {outcomeText(t, { outcome: result.outcome.outcome, code: result.outcome.outcome === 'refused' ? result.outcome.reason : result.outcome.code })}
                {result.outcome.outcome === 'failed' && <> · {familyWords(t, result.outcome.family, result.outcome.reason, result.outcome.code)}</>}
              </p>
            </>
          )} />
        </div>
      )}
    </div>
  );
}

function ArgField(props: { field: Argument; value: string; onChange: (v: string) => void }) {
  const id = useId('arg');
  const t = useT();
  const f = props.field;
  return (
    <div class="field">
      <label for={id}>{f.name}<span class="muted"> ({typeText(t, f.type)})</span></label>
      {f.choices ? (
        <select id={id} data-testid={`try-arg-${f.name}`} value={props.value} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">—</option>
          {f.choices.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
      ) : (
        <input id={id} data-testid={`try-arg-${f.name}`} type="text" spellcheck={false} value={props.value}
          aria-describedby={f.description ? `${id}-d` : undefined}
          onInput={(e) => props.onChange((e.currentTarget as HTMLInputElement).value)} />
      )}
      {f.description && <p id={`${id}-d`} class="help">{f.description}</p>}
    </div>
  );
}
