// The Tools tab's AI section (§13): the AI servers found on this PC, one
// click to use one; an address, a model and an API key typed by hand (an
// online service such as OpenRouter); Test; and where the AI runs, with
// what that means for the plugins; the longest answer the AI may give
// (issue 34). The key goes to the host and never comes back: the page
// knows only whether one is set. An AI on this PC is tested as the section
// opens, so whether its model can use tools shows without a click.
import { useEffect, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { AiSettings, AiTest, ApiError, FoundAi, KnownServer } from '../types';
import { errorWords } from '../words';
import { type Tried, isAiCode, keptOnPc, lookedForWords, maxTokensWords, noneWords, placeWords, problemWords, testWords, toolsWords } from './ai-words';
import { useId } from './common';
import { useApp } from './context';

const EXAMPLE_URL = 'https://openrouter.ai/api/v1';

export function AiSection() {
  const app = useApp();
  const { t, language } = app;
  const [settings, setSettings] = useState<AiSettings | null>(null);
  const [servers, setServers] = useState<KnownServer[]>([]);
  const [found, setFound] = useState<FoundAi[] | null>(null);
  const [url, setUrl] = useState('');
  const [model, setModel] = useState('');
  const [urlError, setUrlError] = useState('');
  const [modelError, setModelError] = useState('');
  const [tokens, setTokens] = useState('');
  const [tokensError, setTokensError] = useState('');
  const [note, setNote] = useState('');
  const [test, setTest] = useState<{ result: AiTest; with: Tried } | null>(null);
  const [testing, setTesting] = useState(false);
  const [loadError, setLoadError] = useState('');
  const ids = useId('ai');

  /** The host's words for an error that is not the AI's own. */
  const words = (e: ApiError, s: Tried | null) => (isAiCode(e.code) ? problemWords(t, e.code, s) : errorWords(t, e));
  const show = (s: AiSettings) => { setSettings(s); setUrl(s.url ?? ''); setModel(s.model ?? ''); setTokens(String(s.max_tokens)); };

  const look = async () => {
    setFound(null);
    setFound(await api.findPcAi().catch(() => []));
  };
  useEffect(() => {
    api.ai().then((s) => {
      show(s);
      // Asking a server of this PC costs nothing, and without the probe loads no model; an online service is asked only by Test.
      if (s.where === 'pc' && s.model) runTest(false);
    }, (e) => setLoadError(words(asApiError(e), null)));
    api.pcServers().then(setServers, () => undefined);
    look();
  }, []);

  /** `probe`: the player asked (Test, Save and test), so a server that does not say may be sent the probe request. */
  const runTest = async (probe: boolean) => {
    setTesting(true);
    setTest(null);
    try {
      const s = await api.ai();
      setTest({ result: await api.aiTest(probe), with: s });
    } catch (e) {
      const a = asApiError(e);
      setTest({ result: { ok: false, where: null, models: [], code: isAiCode(a.code) ? a.code : null, message: a.message, tools: null }, with: settings ?? { url: null, model: null, where: null } });
    }
    setTesting(false);
  };

  /** Keeps an address and a model; a refused address is said next to its field. */
  const save = async (newUrl: string, newModel: string, thenTest: boolean) => {
    setUrlError('');
    setModelError('');
    setNote('');
    const u = newUrl.trim();
    const m = newModel.trim();
    try {
      const s = await api.setAi(u && u !== settings?.url ? u : null, m && m !== settings?.model ? m : null);
      show(s);
      setTest(null);
      setNote(t('app.saved'));
      if (thenTest) await runTest(true);
    } catch (e) {
      const a = asApiError(e);
      if (a.code === 'ai_model_unknown') setModelError(words(a, settings));
      else setUrlError(words(a, { url: u, model: m, where: null }));
    }
  };

  /** Keeps the longest answer as typed, empty for the default (the host judges it); false when refused, said next to its field. */
  const saveTokens = async (): Promise<boolean> => {
    setTokensError('');
    const typed = tokens.trim();
    if (!settings || typed === String(settings.max_tokens)) return true;
    try {
      const s = await api.setAiMaxTokens(typed || null);
      setSettings(s);
      setTokens(String(s.max_tokens));
      return true;
    } catch (e) {
      setTokensError(maxTokensWords(t, asApiError(e), settings.max_tokens_bounds));
      return false;
    }
  };

  /** The form's Save: the longest answer first, so that a refused one keeps everything as it was; then the address and the model. */
  const saveForm = async () => {
    setNote('');
    if (await saveTokens()) await save(url, model, false);
  };

  /** A player types an address and a model, then presses Test: what is typed is what gets tested. */
  const testTyped = () => {
    const typed = (url.trim() && url.trim() !== (settings?.url ?? '')) || (model.trim() && model.trim() !== (settings?.model ?? ''));
    return typed ? save(url, model, true) : runTest(true);
  };

  const kept = keptOnPc(app.cards.values());
  // The service's list from the last Test, else what the search on this PC found at this address.
  const models = test?.result.models.length ? test.result.models : found?.find((f) => f.url === settings?.url)?.models ?? [];
  return (
    <section class="panel" aria-labelledby={`${ids}-h`} data-testid="ai-settings">
      <h2 id={`${ids}-h`}>{t('ai.heading')}</h2>
      <p class="help">{t('ai.explain')}</p>
      {loadError && <p class="banner error" role="alert">{loadError}</p>}
      {settings && (
        <div class={settings.where === 'online' ? 'banner warn' : 'banner'} data-testid="ai-where">
          <p><strong>{placeWords(t, settings.where)}</strong></p>
          {settings.url && <p data-testid="ai-current">{t('ai.current', { url: settings.url, model: settings.model ?? t('ai.no_model') })}</p>}
          {settings.where === 'online' && (
            <p data-testid="ai-kept">{kept.length ? t('ai.kept', { names: kept.join(', ') }) : t('ai.kept_none')}</p>
          )}
        </div>
      )}

      <section class="section" aria-labelledby={`${ids}-pc`} data-testid="ai-pc">
        <h3 id={`${ids}-pc`}>{t('ai.pc.heading')}</h3>
        {servers.length > 0 && <p class="help" data-testid="ai-pc-explain">{lookedForWords(t, language, servers)}</p>}
        {found === null ? <p role="status">{t('ai.pc.looking')}</p> : found.length === 0 ? (
          <p role="status" data-testid="ai-pc-none">{noneWords(t, language, servers)}</p>
        ) : (
          <ul data-testid="ai-pc-found">
            {found.map((f) => (
              <li key={f.url} data-testid="ai-pc-server">
                <p><strong>{f.server?.name ?? t('ai.pc.server')}</strong> <span class="muted">{f.url}</span></p>
                {f.models.length === 0 ? (
                  <p class="help">{t('ai.pc.no_models')}</p>
                ) : (
                  <div class="row">
                    {f.models.map((m) => (
                      <button type="button" key={m} data-testid="ai-use" aria-label={t('ai.pc.use_named', { model: m, server: f.server?.name ?? f.url })}
                        aria-pressed={settings?.url === f.url && settings?.model === m} onClick={() => save(f.url, m, true)}>
                        {t('ai.pc.use', { model: m })}
                      </button>
                    ))}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
        <button type="button" data-testid="ai-look" onClick={look} disabled={found === null}>{t('ai.pc.look_again')}</button>
      </section>

      <section class="section" aria-labelledby={`${ids}-by-hand`}>
        <h3 id={`${ids}-by-hand`}>{t('ai.online.heading')}</h3>
        <p class="help">{t('ai.online.explain', { url: EXAMPLE_URL })}</p>
        <form noValidate onSubmit={(e) => { e.preventDefault(); saveForm(); }}>
          <div class={urlError ? 'field has-error' : 'field'}>
            <label for={`${ids}-url`}>{t('ai.url')}</label>
            <input id={`${ids}-url`} data-testid="ai-url" type="text" inputMode="url" spellcheck={false} autoComplete="off" placeholder={EXAMPLE_URL}
              value={url} aria-invalid={urlError ? true : undefined} aria-describedby={urlError ? `${ids}-url-e` : undefined}
              onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
            {urlError && <p id={`${ids}-url-e`} class="field-error" data-testid="ai-url-error">{urlError}</p>}
          </div>
          <div class={modelError ? 'field has-error' : 'field'}>
            <label for={`${ids}-model`}>{t('ai.model')}</label>
            <input id={`${ids}-model`} data-testid="ai-model" type="text" spellcheck={false} autoComplete="off" list={`${ids}-models`}
              value={model} aria-invalid={modelError ? true : undefined} aria-describedby={`${ids}-model-h${modelError ? ` ${ids}-model-e` : ''}`}
              onInput={(e) => setModel((e.currentTarget as HTMLInputElement).value)} />
            <datalist id={`${ids}-models`}>{models.map((m) => <option key={m} value={m} />)}</datalist>
            <p id={`${ids}-model-h`} class="help">{models.length ? t('ai.model_from_list', { count: models.length }) : t('ai.model_help')}</p>
            {modelError && <p id={`${ids}-model-e`} class="field-error" data-testid="ai-model-error">{modelError}</p>}
          </div>
          {settings && (
            <div class={tokensError ? 'field has-error' : 'field'}>
              <label for={`${ids}-tokens`}>{t('ai.max_tokens')}</label>
              <input id={`${ids}-tokens`} data-testid="ai-max-tokens" type="text" inputMode="numeric" spellcheck={false} autoComplete="off"
                placeholder={String(settings.max_tokens_bounds.default)} value={tokens} aria-invalid={tokensError ? true : undefined}
                aria-describedby={`${ids}-tokens-h${tokensError ? ` ${ids}-tokens-e` : ''}`}
                onInput={(e) => setTokens((e.currentTarget as HTMLInputElement).value)} />
              <p id={`${ids}-tokens-h`} class="help" data-testid="ai-max-tokens-help">{t('ai.max_tokens_help', { ...settings.max_tokens_bounds })}</p>
              {tokensError && <p id={`${ids}-tokens-e`} class="field-error" data-testid="ai-max-tokens-error">{tokensError}</p>}
            </div>
          )}
          <div class="row">
            <button type="submit" class="primary" data-testid="ai-save">{t('app.save')}</button>
            <span role="status" class="note" data-testid="ai-note">{note}</span>
          </div>
        </form>
        {/* An online service needs its key; a server on this PC rarely does, so its row shows only to clear a kept one. */}
        {settings?.url && (settings.where === 'online' || settings.key_set) && (
          <KeyRow settings={settings} onChange={(s) => { setSettings(s); setTest(null); }} />
        )}
      </section>

      <section class="section">
        <div class="row">
          <button type="button" data-testid="ai-test" aria-describedby={`${ids}-test-h`} onClick={testTyped} disabled={testing}>{testing ? t('ai.testing') : t('ai.test')}</button>
          <p role="status" data-testid="ai-test-result" class={test ? (test.result.ok ? 'ok' : 'field-error') : ''}>
            {test && testWords(t, test.result, test.with)}
          </p>
        </div>
        {test && test.result.ok && (
          <div class={test.result.tools === false ? 'banner warn' : 'banner'} data-testid="ai-test-tools">
            {toolsWords(t, test.result).map((words) => <p key={words}>{words}</p>)}
          </div>
        )}
        {test && !test.result.ok && (test.result.code || test.result.message) && (
          <details data-testid="ai-test-details">
            <summary>{t('import.technical')}</summary>
            <p><code>{test.result.code ?? '-'}</code>{test.result.message ? `: ${test.result.message}` : ''}</p>
          </details>
        )}
        <p id={`${ids}-test-h`} class="help">{t('ai.test_help')}</p>
      </section>
    </section>
  );
}

/** The API key: a password field until one is kept, then Set with Replace and Clear. */
function KeyRow(props: { settings: AiSettings; onChange: (s: AiSettings) => void }) {
  const { t } = useApp();
  const set = props.settings.key_set;
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const id = useId('ai-key');
  const failed = (e: unknown) => {
    const a = asApiError(e);
    setError(isAiCode(a.code) ? problemWords(t, a.code, props.settings) : errorWords(t, a));
  };
  const save = async () => {
    setError('');
    try {
      props.onChange(await api.setAiKey(value));
      setValue('');
      setEditing(false);
      setNote(t('ai.key_saved'));
    } catch (e) { failed(e); }
  };
  const clear = async () => {
    setError('');
    try { props.onChange(await api.clearAiKey()); setEditing(false); setNote(t('ai.key_cleared')); } catch (e) { failed(e); }
  };
  return (
    <div class="field secret" data-testid="ai-key">
      <p class="label">{t('ai.key')}</p>
      <p class="help">{t('ai.key_help')}</p>
      <p><span class={set ? 'pill ok' : 'pill'} data-testid="ai-key-state">{set ? t('options.secret_set') : t('options.secret_not_set')}</span></p>
      {!set && props.settings.key_forgotten && <p class="note" data-testid="ai-key-forgotten">{t('ai.key_forgotten')}</p>}
      {!set || editing ? (
        <form class="row" onSubmit={(e) => { e.preventDefault(); if (value) save(); }}>
          <label for={id} class="visually-hidden">{t('ai.key')}</label>
          <input id={id} type="password" autoComplete="new-password" data-testid="ai-key-input" value={value}
            onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} aria-invalid={error ? true : undefined} />
          <button type="submit" data-testid="ai-key-save" disabled={!value}>{t('ai.key_save')}</button>
          {set && <button type="button" data-testid="ai-key-cancel" onClick={() => { setValue(''); setEditing(false); }}>{t('app.cancel')}</button>}
        </form>
      ) : (
        <div class="row">
          <button type="button" data-testid="ai-key-replace" aria-label={t('options.replace_named', { label: t('ai.key') })} onClick={() => setEditing(true)}>{t('options.replace')}</button>
          <button type="button" data-testid="ai-key-clear" aria-label={t('options.clear_named', { label: t('ai.key') })} onClick={clear}>{t('options.clear')}</button>
        </div>
      )}
      {error && <p class="field-error" role="alert" data-testid="ai-key-error">{error}</p>}
      <p role="status" class="note">{note}</p>
    </div>
  );
}
