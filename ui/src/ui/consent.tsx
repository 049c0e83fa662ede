import { useMemo, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { ApiError, CloudChoice, Review } from '../types';
import { changeWords, errorWords, fieldProblems, levelText, officialDescription } from '../words';
import { toolRef } from '../toolref';
import { Dialog, Switch } from './common';
import { useApp } from './context';
import { SettingField, hostValue } from './settings-fields';

// The consent screen (§18). What a plugin names (settings, events) is keyed in Maps: a key
// may be `constructor` or `__proto__`, and Object.prototype is frozen in the window.

/** Each setting's starting value, by key: its default, else empty. */
function defaults(r: Review): Map<string, string | boolean> {
  return new Map(r.settings.map((s) => [
    s.key, s.kind === 'boolean' ? s.value === true : s.value === null || s.value === undefined ? '' : String(s.value),
  ]));
}

/** The line that says developer mode is on, when the plugin needs it (§15, §19). The host
 * makes such a review only while developer mode is on, so the review itself is the proof:
 * the player sees it even if something else turned developer mode on. */
function needsDevMode(r: Review): boolean {
  return r.origin === 'folder' || r.local_ports.length > 0;
}

export function Consent(props: { review: Review; onDone: (installed: boolean) => void }) {
  const app = useApp();
  const { t } = app;
  const r = props.review;
  const [values, setValues] = useState(() => defaults(r));
  const [events, setEvents] = useState(() => new Map(r.events.map((e) => [e.name, e.on])));
  const [cloud, setCloud] = useState<CloudChoice>(r.cloud_kept ?? 'allow');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const problems = useMemo(() => (error ? fieldProblems(t, error, r.settings) : new Map<string, string>()), [error, t, r]);
  const missing = r.settings.filter((s) => s.required && !s.set && s.kind !== 'boolean' && String(values.get(s.key) ?? '').trim() === '');

  const cancel = async () => {
    try { await api.cancel(r.review); } catch { /* already gone */ }
    props.onDone(false);
  };
  const install = async () => {
    setBusy(true);
    setError(null);
    const settings: [string, unknown][] = [];
    const secrets: [string, string][] = [];
    for (const s of r.settings) {
      const v = values.get(s.key) ?? '';
      if (s.kind !== 'boolean' && String(v).trim() === '') continue;
      if (s.secret) secrets.push([s.key, String(v)]);
      else settings.push([s.key, hostValue(s.kind, v)]);
    }
    try {
      const done = await api.install(r.review, { settings, secrets, cloud: r.cloud === 'ask' ? cloud : null });
      for (const e of r.events) {
        const on = events.get(e.name) ?? e.on;
        if (on !== e.on) await api.setEventEnabled(done.slug, e.name, on).catch(() => undefined);
      }
      app.announce(t(done.update ? 'consent.updated' : 'consent.installed', { name: r.name }));
      props.onDone(true);
    } catch (e) {
      setError(asApiError(e));
      setBusy(false);
    }
  };
  // An action in a change is named by its hint, as in the list of actions.
  const actionWords = (name: string) => r.actions.find((a) => a.full_name === toolRef(r.slug, name))?.hint || name;
  const title = r.update ? t('consent.update_title') : t('consent.title');
  const general = error ? errorWords(t, error) : null;
  return (
    <Dialog label={title} onClose={cancel} testid="consent" wide>
      {/* Install is a deliberate act (the screen may open unasked, from a file handed to the app):
          Enter in a field submits this form, which does nothing; only the Install button installs. */}
      <form method="dialog" class="dialog-body" noValidate onSubmit={(e) => e.preventDefault()}>
        <header class="dialog-head">
          <div>
            <p class="eyebrow">{title}</p>
            <h2 tabIndex={-1}>{r.name}</h2>
            <p class="muted">
              {r.update && r.old_version ? t('consent.update_version', { old: r.old_version, version: r.version }) : t('consent.version', { version: r.version })}
              {r.author && <> · {t('card.by', { author: r.author })}</>}
            </p>
          </div>
          <span class={`badge badge-${r.origin}`}>{t(`badge.${r.origin}`)}</span>
        </header>
        {r.description && <p>{r.origin === 'official' ? officialDescription(t, r.slug, r.description) : r.description}</p>}
        {r.origin === 'import' && <p class="banner warn" data-testid="consent-unsigned">{t('consent.unsigned')}</p>}
        {needsDevMode(r) && <p class="banner warn" data-testid="consent-dev-mode">{t('consent.dev_mode_on')}</p>}
        {r.update && (
          <section class="section" data-testid="consent-changes">
            <h3>{t('consent.changes')}</h3>
            {r.permissions_changed ? (
              <>
                <p>{t('consent.permissions_changed')}</p>
                <ul>{(r.permission_changes ?? []).map((c, i) => <li key={i}>{changeWords(t, c, actionWords)}</li>)}</ul>
              </>
            ) : <p>{t('consent.permissions_same')}</p>}
          </section>
        )}
        <section class="section">
          <h3>{t('consent.actions')}</h3>
          <ul class="actions">
            {r.actions.map((a) => (
              <li key={a.full_name}>
                <span class="hint">{a.hint}</span>
                <span class={`level level-${a.level}`}>{levelText(t, a.level)}</span>
                {a.needs_confirmation && <span class="muted"> · {t('level.needs_confirmation')}</span>}
              </li>
            ))}
          </ul>
        </section>
        <section class="section">
          <h3>{t('consent.connects')}</h3>
          <ul class="sites">
            {r.sites.map((s) => <li key={s}>{s}</li>)}
            {r.local_ports.map((port) => (
              <li key={port} class="this-pc">
                <strong>{t('consent.this_pc', { port })}</strong>
                <span class="warning-text">{t('consent.pc_warning')}</span>
              </li>
            ))}
          </ul>
          {!r.sites.length && !r.local_ports.length && <p class="muted">{t('consent.no_sites')}</p>}
        </section>
        {r.settings.length > 0 && (
          <section class="section">
            <h3>{t('consent.settings')}</h3>
            {r.settings.map((s) => (
              <SettingField
                key={s.key}
                spec={{ key: s.key, label: s.label, description: s.description, kind: s.kind, required: s.required && !s.set, secret: s.secret, helpUrl: s.help_url, helpDomain: s.help_domain, min: s.min, max: s.max }}
                value={values.get(s.key) ?? ''} onChange={(v) => setValues(new Map(values).set(s.key, v))}
                error={problems.get(s.key)}
                note={s.set ? t('consent.kept') : s.secret ? t('consent.secret_note') : undefined}
                placeholder={s.set ? t('consent.kept_placeholder') : undefined}
              />
            ))}
          </section>
        )}
        {r.events.length > 0 && (
          <section class="section">
            <h3>{t('consent.events')}</h3>
            {r.events_door !== null && <p>{t('consent.events_port', { port: r.events_door })}</p>}
            <p class="warning-text">{t('consent.events_warning')}</p>
            {r.events.map((e) => (
              <Switch
                key={e.name} label={t('events.switch', { title: e.title })} checked={events.get(e.name) ?? e.on} testid={`consent-event-${e.name}`}
                onChange={(on) => setEvents(new Map(events).set(e.name, on))}
              />
            ))}
          </section>
        )}
        {r.cloud !== 'not_asked' && (
          <section class="section">
            <h3>{t('consent.cloud')}</h3>
            {r.cloud === 'never' ? <p>{t('consent.cloud_never')}</p> : (
              <fieldset class="radio-group">
                <legend>{t('consent.cloud_question')}</legend>
                <label><input type="radio" name="cloud" value="allow" data-testid="consent-cloud-allow" checked={cloud === 'allow'} onChange={() => setCloud('allow')} /> {t('consent.cloud_allow')}</label>
                <label><input type="radio" name="cloud" value="local" data-testid="consent-cloud-local" checked={cloud === 'local'} onChange={() => setCloud('local')} /> {t('consent.cloud_local')}</label>
              </fieldset>
            )}
          </section>
        )}
        {app.switches.dev_mode && r.warnings.length > 0 && (
          <details class="section" data-testid="consent-warnings">
            <summary>{t('import.warnings')}</summary>
            <table class="tech">
              <tbody>{r.warnings.map((p, i) => <tr key={i}><td><code>{p.code}</code></td><td><code>{p.path || '-'}</code></td><td>{p.message}</td></tr>)}</tbody>
            </table>
          </details>
        )}
        {general && <p class="banner error" role="alert" data-testid="consent-error">{general}</p>}
        {/* The footer stays in view (sticky), with why Install cannot be pressed beside it. */}
        <footer class="dialog-foot">
          {missing.length > 0 && <p id="consent-missing" class="foot-reason" data-testid="consent-missing">{t('err.missing_settings')}</p>}
          <button type="button" data-testid="consent-cancel" onClick={cancel}>{t('app.cancel')}</button>
          <button type="button" class="primary" data-testid="consent-install" disabled={busy || missing.length > 0}
            aria-describedby={missing.length ? 'consent-missing' : undefined} onClick={install}>
            {busy ? t('consent.installing') : r.update ? t('consent.update') : t('consent.install')}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
