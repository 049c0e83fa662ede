import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { Translate } from '../i18n';
import type { ApiError, PluginTest, SettingView } from '../types';
import { errorWords, familyWords, fieldProblems } from '../words';
import { CloseButton, Dialog, useId } from './common';
import { useApp } from './context';
import { useDetails } from './details';
import { SettingField, hostValue } from './settings-fields';

/** Each plain setting's value, by key (a Map: the keys are the plugin's, `constructor` included). */
function initial(settings: SettingView[]): Map<string, string | boolean> {
  return new Map(settings.filter((s) => !s.secret).map((s) => [
    s.key, s.kind === 'boolean' ? s.value === true : s.value === null || s.value === undefined ? '' : String(s.value),
  ]));
}

/** What Test found, in words, and whether it is a failure (shown as an error). A plugin with no
 *  action that only reads, or whose read action needs values its schema does not give (issue 23:
 *  the exchange-rates example's amount), did not fail: Test says so plainly, and what to do. */
export function testResult(t: Translate, language: string, test: PluginTest): { words: string; failed: boolean } {
  if (test.ok) return { words: t('options.connected'), failed: false };
  if (test.action && test.needs?.length) {
    const args = new Intl.ListFormat(language, { type: 'conjunction' }).format(test.needs);
    return { words: t('options.test_needs', { action: test.action, args }), failed: false };
  }
  if (!test.action && !test.code) return { words: t('options.test_nothing'), failed: false };
  return { words: t('options.test_failed', { words: familyWords(t, test.family, test.code, test.code) }), failed: true };
}

function testClass(found: { failed: boolean; ok: boolean } | null, error: string | null): string {
  if (error || found?.failed) return 'field-error';
  return found?.ok ? 'ok' : '';
}

export function Options(props: { slug: string; onClose: () => void }) {
  const app = useApp();
  const { t, language } = app;
  const [d, loadError] = useDetails(props.slug);
  const [values, setValues] = useState<Map<string, string | boolean> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [note, setNote] = useState('');
  const [test, setTest] = useState<PluginTest | null>(null);
  /** The host could not run Test at all (not a failed call): its error in words. */
  const [testError, setTestError] = useState<string | null>(null);
  const [testing, setTesting] = useState(false);
  const found = test && { ...testResult(t, language, test), ok: test.ok };
  useEffect(() => { if (d && values === null) setValues(initial(d.settings)); }, [d]);
  const problems = useMemo(() => (error ? fieldProblems(t, error, d?.settings) : new Map<string, string>()), [error, t, d]);
  const name = d?.name ?? app.cards.get(props.slug)?.name ?? props.slug;
  const plain = d?.settings.filter((s) => !s.secret) ?? [];
  const secrets = d?.settings.filter((s) => s.secret) ?? [];
  const save = async () => {
    if (!d || !values) return;
    setError(null);
    setNote('');
    const list: [string, unknown][] = plain.map((s) => [s.key, hostValue(s.kind, values.get(s.key) ?? '')]);
    try {
      await api.saveSettings(d.slug, list);
      setNote(t('app.saved'));
    } catch (e) { setError(asApiError(e)); }
  };
  const runTest = async () => {
    setTesting(true);
    setTest(null);
    setTestError(null);
    try { setTest(await api.testPlugin(props.slug)); }
    catch (e) { setTestError(t('options.test_error', { words: errorWords(t, asApiError(e)) })); }
    setTesting(false);
  };
  return (
    <Dialog label={t('options.title', { name })} onClose={props.onClose} testid="options" wide>
      <div class="dialog-body">
        <header class="dialog-head">
          <div class="grow"><h2 tabIndex={-1}>{t('options.title', { name })}</h2></div>
          <CloseButton onClose={props.onClose} />
        </header>
        {!d || !values ? (loadError ? <p class="banner error" role="alert">{loadError}</p> : <p role="status">{t('app.loading')}</p>) : (
          <>
            {d.settings.length === 0 && <p class="muted">{t('options.none')}</p>}
            {plain.length > 0 && (
              <form class="section" noValidate onSubmit={(e) => { e.preventDefault(); save(); }}>
                {plain.map((s) => (
                  <SettingField key={s.key}
                    spec={{ key: s.key, label: s.label, description: s.description, kind: s.kind, required: s.required, secret: false, helpUrl: s.help_url, helpDomain: s.help_domain, min: s.min, max: s.max }}
                    value={values.get(s.key) ?? ''} onChange={(v) => setValues(new Map(values).set(s.key, v))} error={problems.get(s.key)} />
                ))}
                {error && <p class="banner error" role="alert" data-testid="options-error">{errorWords(t, error)}</p>}
                <div class="row">
                  <button type="submit" class="primary" data-testid="options-save">{t('app.save')}</button>
                  <span role="status" class="note" data-testid="options-note">{note}</span>
                </div>
              </form>
            )}
            {secrets.map((s) => <SecretRow key={s.key} slug={d.slug} name={name} s={s} />)}
            <section class="section">
              <div class="row">
                <button type="button" data-testid="options-test" aria-describedby="options-test-help" onClick={runTest} disabled={testing}>{testing ? t('options.testing') : t('options.test')}</button>
                <p role="status" data-testid="options-test-result" class={testClass(found, testError)}>
                  {testError}
                  {found?.words}
                </p>
              </div>
              <p id="options-test-help" class="help">{t('options.test_help')}</p>
            </section>
          </>
        )}
      </div>
    </Dialog>
  );
}

function SecretRow(props: { slug: string; name: string; s: SettingView }) {
  const app = useApp();
  const { t } = app;
  const { s } = props;
  const [editing, setEditing] = useState(!s.set);
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const id = useId(`secret-${s.key}`);
  const save = async () => {
    setError('');
    try {
      await api.setSecret(props.slug, s.key, value);
      setValue('');
      setEditing(false);
      setNote(t('options.secret_saved'));
    } catch (e) {
      const a = asApiError(e);
      setError(fieldProblems(t, a).get(s.key) ?? errorWords(t, a));
    }
  };
  /** Clearing is asked first: a click too many would leave the plugin needing setup. */
  const [asking, setAsking] = useState(false);
  const clear = async () => {
    setAsking(false);
    try {
      await api.clearSecret(props.slug, s.key);
      setEditing(true);
      setNote(t('options.secret_cleared'));
      // The Clear button that opened the question is gone: the keyboard goes to the new value's box.
      requestAnimationFrame(() => document.getElementById(id)?.focus());
    } catch (e) { setError(errorWords(t, asApiError(e))); }
  };
  return (
    <div class="field secret" data-testid={`secret-${s.key}`}>
      <p class="label" id={`${id}-l`}>{s.label}{s.required && <span class="required"> ({t('field.required')})</span>}</p>
      {s.description && <p class="help">{s.description}</p>}
      <p><span class={s.set ? 'pill ok' : 'pill'} data-testid="secret-state">{s.set ? t('options.secret_set') : t('options.secret_not_set')}</span></p>
      {editing ? (
        <form class="row" onSubmit={(e) => { e.preventDefault(); if (value) save(); }}>
          <label for={id} class="visually-hidden">{s.label}</label>
          <input id={id} type="password" autoComplete="new-password" data-testid={`setting-${s.key}`} value={value}
            onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} aria-invalid={error ? true : undefined} />
          <button type="submit" disabled={!value}>{t('options.set_secret')}</button>
        </form>
      ) : (
        <div class="row">
          <button type="button" data-testid={`secret-replace-${s.key}`} aria-label={t('options.replace_named', { label: s.label })} onClick={() => setEditing(true)}>{t('options.replace')}</button>
          <button type="button" data-testid={`secret-clear-${s.key}`} aria-label={t('options.clear_named', { label: s.label })} onClick={() => setAsking(true)}>{t('options.clear')}</button>
        </div>
      )}
      {asking && (
        <Dialog label={t('options.clear_title', { label: s.label, name: props.name })} onClose={() => setAsking(false)} role="alertdialog" testid="clear-confirm">
          <div class="dialog-body">
            <h2>{t('options.clear_title', { label: s.label, name: props.name })}</h2>
            <p>{s.required ? t('options.clear_needs_setup') : t('options.clear_optional')}</p>
            <footer class="dialog-foot">
              <button type="button" data-testid="clear-no" autoFocus onClick={() => setAsking(false)}>{t('app.cancel')}</button>
              <button type="button" class="danger" data-testid="clear-yes" onClick={clear}>{t('options.clear')}</button>
            </footer>
          </div>
        </Dialog>
      )}
      {s.help_url && (
        <button type="button" class="link-button" onClick={() => api.openHelp(s.help_url!).catch(() => undefined)}>
          {t('consent.open_help', { domain: s.help_domain ?? s.help_url })}
        </button>
      )}
      {error && <p class="field-error" role="alert">{error}</p>}
      <p role="status" class="note">{note}</p>
    </div>
  );
}
