import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { EVENTS, listenTo } from '../bindings/events';
import { api, asApiError } from '../api';
import { LANGUAGES, translator } from '../i18n';
import type { ApiError, AppSwitches, Card, CatalogEntry, ChatStatus, HostEvent, Language, Review } from '../types';
import { errorWords, isImportRefusal } from '../words';
import { AiSection } from './ai';
import { journalBus } from './bus';
import { Catalog, type Refusal } from './catalog';
import { CompanionTab, keepConversation } from './companion';
import { Dialog, Switch, useId } from './common';
import { Questions } from './confirm';
import { Consent } from './consent';
import { Ctx, TCtx, type AppApi, type CardActions } from './context';
import { Details } from './details';
import { Journal } from './journal';
import { MyPlugins } from './mine';
import { Options } from './options';
import { bump, invalidated } from './stale';
import { TabPanel, Tabs } from './tabs';
import { TwitchSection } from './twitch';

type Top = 'companion' | 'tools' | 'plugins';
type Sub = 'mine' | 'catalog' | 'actions';

const byName = (cards: Map<string, Card>) =>
  [...cards.values()].sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug)).map((c) => c.slug);

/** `initial`: the switches read before the first paint (main.tsx), so a French player never sees English first. */
export function App(props: { initial?: AppSwitches }) {
  const [switches, setSwitches] = useState<AppSwitches>(props.initial ?? { plugins_enabled: true, tools_enabled: true, dev_mode: false, language: 'en' });
  const [cards, setCards] = useState<Map<string, Card>>(new Map());
  const [order, setOrder] = useState<string[]>([]);
  const [loaded, setLoaded] = useState(false);
  // A player opens a companion app to talk to it: the Companion tab comes first (issue 23).
  const [top, setTop] = useState<Top>('companion');
  const [sub, setSub] = useState<Sub>('mine');
  const [secretsWarning, setSecretsWarning] = useState<string | null>(null);
  const [catalog, setCatalog] = useState<CatalogEntry[]>([]);
  const [reviews, setReviews] = useState<Review[]>([]);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [importing, setImporting] = useState(false);
  /** Files are being dragged over the window. */
  const [dropping, setDropping] = useState(false);
  const [details, setDetails] = useState<string | null>(null);
  const [options, setOptions] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Card | null>(null);
  // By slug, in Maps like every table keyed by a plugin's names: a slug may be `constructor`.
  const [stamps, setStamps] = useState<ReadonlyMap<string, number>>(new Map());
  const [lastTurns, setLastTurns] = useState<ReadonlyMap<string, string>>(new Map());
  const [toast, setToast] = useState<{ text: string; n: number }>({ text: '', n: 0 });
  const message = toast.text;
  const [error, setError] = useState<string | null>(null);
  const [devNote, setDevNote] = useState<string | null>(null);
  const [journalLost, setJournalLost] = useState<string | null>(null);
  const [twitch, setTwitch] = useState<ChatStatus | null>(null);
  const t = useMemo(() => translator(switches.language), [switches.language]);
  const langId = useId('lang');

  const putCard = useCallback((slug: string, card: Card | null) => {
    setCards((old) => {
      const next = new Map(old);
      if (card) next.set(slug, card); else next.delete(slug);
      const had = old.has(slug);
      if (!card || !had || old.get(slug)!.name !== card.name) setOrder(byName(next));
      return next;
    });
    if (!card) {
      setDetails((d) => (d === slug ? null : d));
      setOptions((o) => (o === slug ? null : o));
    }
  }, []);
  const setAllCards = (list: Card[]) => {
    const m = new Map(list.map((c) => [c.slug, c]));
    setCards(m);
    setOrder(byName(m));
  };

  const setMessage = useCallback((text: string) => setToast((o) => ({ text, n: o.n + 1 })), []);
  /** The player goes somewhere else (another tab or dialog): toasts about what came before go. */
  const dismissToasts = useCallback(() => {
    setToast((o) => (o.text ? { text: '', n: o.n + 1 } : o));
    setError(null);
  }, []);

  const showError = useCallback((e: ApiError) => setError(errorWords(translator(switchesRef.current.language), e)), []);
  const switchesRef = useRef(switches);
  switchesRef.current = switches;

  const startReview = useCallback(async (make: () => Promise<Review>, file?: string) => {
    try {
      const review = await make();
      setRefusal(null);
      dismissToasts();
      setReviews((q) => [...q, review]);
    } catch (e) {
      const a = asApiError(e);
      if (isImportRefusal(a)) {
        setRefusal({ file: file ?? null, error: a });
        setTop('plugins');
        setSub('catalog');
      } else {
        setError(errorWords(translator(switchesRef.current.language), a));
      }
    }
  }, []);
  const openFiles = useCallback(async (paths: string[]) => {
    for (const p of paths) await startReview(() => api.importPath(p), p);
  }, [startReview]);

  useEffect(() => {
    let stop: (() => void)[] = [];
    let live = true;
    (async () => {
      const [s, list] = await Promise.all([api.switches(), api.cards()]);
      if (!live) return;
      setSwitches(s);
      setAllCards(list);
      setLoaded(true);
      api.secretsWarning().then(setSecretsWarning, () => undefined);
      api.catalog().then(setCatalog, () => undefined);
      // A status event may come first: the newer one wins.
      api.twitchStatus().then((now) => setTwitch((told) => told ?? now), () => undefined);
      const opened = await api.takeOpenedFiles().catch(() => [] as string[]);
      openFiles(opened);
    })().catch((e) => { setLoaded(true); showError(asApiError(e)); });
    listenTo(EVENTS.HOST_EVENT, onHostEvent).then((u) => (live ? stop.push(u) : u()));
    // An event the companion says while another tab is shown is in the conversation when the player comes back.
    keepConversation();
    listenTo(EVENTS.OPEN_FILES, async (paths) => {
      await openFiles(paths ?? []);
      api.takeOpenedFiles().catch(() => undefined);
    }).then((u) => (live ? stop.push(u) : u()));
    listenTo(EVENTS.DROP_HOVER, (on) => setDropping(on === true)).then((u) => (live ? stop.push(u) : u()));
    return () => { live = false; stop.forEach((u) => u()); stop = []; };
  }, []);

  const onHostEvent = (ev: HostEvent) => {
    // What to read again comes from one table (stale.ts); what the event carries is kept here.
    setStamps((s) => bump(s, invalidated(ev)));
    switch (ev.kind) {
      case 'plugin_changed':
        putCard(ev.slug, ev.change === 'removed' ? null : ev.card);
        if (ev.change === 'folder_saved') setDevNote(null);
        break;
      case 'switches': setSwitches(ev.switches); break;
      case 'reload_failed': setDevNote(ev.message); break;
      case 'journal_added': journalBus.publish(ev.entry); break;
      case 'journal_lost': setJournalLost(ev.message); break;
      case 'twitch': if (ev.notice.what === 'state') setTwitch(ev.notice.status); break;
      case 'door': {
        const n = ev.notice;
        if (n.kind === 'turn') {
          setLastTurns((old) => {
            const next = new Map(old);
            for (const said of n.said) next.set(said.plugin, n.message);
            return next;
          });
        }
        break;
      }
    }
  };

  // After the cards are first read and the first view drawn: tell the host, and keep the startup time.
  const readied = useRef(false);
  useEffect(() => {
    if (!loaded || readied.current) return;
    readied.current = true;
    requestAnimationFrame(() => {
      api.uiReady().then((ms) => { document.body.dataset.startupMs = String(ms); }, () => undefined);
    });
  }, [loaded]);

  useEffect(() => { document.documentElement.lang = switches.language; document.title = t('app.title'); }, [switches.language]);
  // A confirmation shows for a few seconds, then goes (each new one gets its full few seconds).
  useEffect(() => {
    if (!toast.text) return;
    const n = toast.n;
    const timer = setTimeout(() => setToast((o) => (o.n === n ? { text: '', n } : o)), 6000);
    return () => clearTimeout(timer);
  }, [toast.n]);

  const patch = async (p: Partial<AppSwitches>) => {
    try {
      const s = await api.setSwitches(p);
      setSwitches(s);
      if (p.language !== undefined || p.dev_mode !== undefined || p.tools_enabled !== undefined || p.plugins_enabled !== undefined) {
        setAllCards(await api.cards());
      }
      if (p.language !== undefined) api.catalog().then(setCatalog, () => undefined);
    } catch (e) { showError(asApiError(e)); }
  };

  const updates = useMemo(() => {
    const m = new Map<string, string>();
    for (const c of cards.values()) if (c.update_available !== null) m.set(c.slug, c.update_available);
    return m;
  }, [cards]);

  const cardActions: CardActions = useMemo(() => ({
    openDetails: (slug) => { dismissToasts(); setOptions(null); setDetails(slug); },
    openOptions: (slug) => { dismissToasts(); setDetails(null); setOptions(slug); },
    askUninstall: (card) => { dismissToasts(); setConfirm(card); },
    showError,
  }), [dismissToasts, showError]);
  const ctx: AppApi = useMemo(() => ({
    t, language: switches.language, switches, startReview, cards, stamps, lastTurns, twitch,
    ...cardActions, cardActions, announce: setMessage,
  }), [t, switches, cards, stamps, lastTurns, twitch, cardActions]);

  const doImport = async () => {
    setImporting(true);
    try {
      const path = await api.pickPluginFile(t('import.file_filter'));
      if (path) await startReview(() => api.importPath(path), path);
    } catch (e) { showError(asApiError(e)); }
    setImporting(false);
  };
  const loadFolder = async () => {
    try {
      const path = await api.pickFolder();
      if (path) await startReview(() => api.loadFolder(path), path);
    } catch (e) { showError(asApiError(e)); }
  };
  const reload = async () => {
    try { setAllCards(await api.reload()); setMessage(t('dev.reloaded')); } catch (e) { showError(asApiError(e)); }
  };
  const openFolder = async () => {
    try { const p = await api.openPluginsFolder(); setMessage(t('dev.folder_opened', { path: p })); } catch (e) { showError(asApiError(e)); }
  };
  const uninstall = async (card: Card) => {
    setConfirm(null);
    try {
      await api.uninstall(card.slug);
      putCard(card.slug, null);
    } catch (e) { showError(asApiError(e)); }
  };

  const review = reviews[0];
  return (
    <Ctx.Provider value={ctx}><TCtx.Provider value={t}>
      <div class="app">
        <header class="app-head">
          <h1>{t('app.title')}</h1>
          <div class="field inline">
            <label for={langId}>{t('app.language')}</label>
            <select id={langId} data-testid="language" value={switches.language} onChange={(e) => patch({ language: (e.currentTarget as HTMLSelectElement).value as Language })}>
              {LANGUAGES.map(([code, name]) => <option key={code} value={code} lang={code}>{name}</option>)}
            </select>
          </div>
        </header>
        <Tabs label={t('app.tabs')} idPrefix="top" selected={top} onSelect={(v) => { if (v !== top) dismissToasts(); setTop(v); }}
          tabs={[['companion', t('tab.companion')], ['tools', t('tab.tools')], ['plugins', t('tab.plugins')]]} />
        {top === 'companion' && (
          <TabPanel idPrefix="top" id="companion">
            <CompanionTab onTools={() => setTop('tools')} onCatalog={() => { setTop('plugins'); setSub('catalog'); }} />
          </TabPanel>
        )}
        {top === 'tools' && (
          <TabPanel idPrefix="top" id="tools">
            <section class="panel">
              <h2>{t('tools.heading')}</h2>
              <Switch label={t('tools.enable')} help={t('tools.explain')} checked={switches.tools_enabled}
                testid="tools-enabled" onChange={(on) => patch({ tools_enabled: on })} />
            </section>
            <AiSection />
            <TwitchSection />
          </TabPanel>
        )}
        {top === 'plugins' && (
          <TabPanel idPrefix="top" id="plugins">
            <div class="plugins-head">
              <Switch label={t('plugins.enabled')} help={t('plugins.enabled_explain')} checked={switches.plugins_enabled}
                testid="plugins-enabled" onChange={(on) => patch({ plugins_enabled: on })} />
              {/* The toolbar comes under its switch, in room the head keeps for it: turning developer
                  mode on moves nothing below (the tabs and cards stay where the player's eyes are). */}
              <div class="dev-switch">
                <Switch label={t('plugins.dev_mode')} checked={switches.dev_mode} testid="dev-mode" onChange={(on) => patch({ dev_mode: on })} />
                {switches.dev_mode && (
                  <div class="toolbar" role="toolbar" aria-label={t('dev.toolbar')}>
                    <button type="button" data-testid="load-folder" onClick={loadFolder}>{t('dev.load_folder')}</button>
                    <button type="button" data-testid="reload-plugins" onClick={reload}>{t('dev.reload')}</button>
                    <button type="button" data-testid="open-plugins-folder" onClick={openFolder}>{t('dev.open_folder')}</button>
                  </div>
                )}
              </div>
            </div>
            {!switches.tools_enabled && <p class="banner warn">{t('plugins.tools_off_note')}</p>}
            {switches.dev_mode && devNote && <p class="banner error" role="alert" data-testid="reload-failed">{t('dev.reload_failed', { message: devNote })}</p>}
            <Tabs label={t('tab.plugins_sections')} idPrefix="sub" selected={sub} onSelect={(v) => { if (v !== sub) dismissToasts(); setSub(v); }} class="tabs sub"
              tabs={[['mine', t('tab.mine')], ['catalog', t('tab.catalog')], ['actions', t('tab.actions')]]} />
            <TabPanel idPrefix="sub" id={sub}>
              {sub === 'mine' && (loaded ? <MyPlugins order={order} updates={updates} secretsWarning={secretsWarning} /> : <p role="status">{t('app.loading')}</p>)}
              {sub === 'catalog' && (
                <Catalog entries={catalog} refusal={refusal} busy={importing} onImport={doImport} onDismiss={() => setRefusal(null)}
                  onInstall={(slug) => startReview(() => api.importOfficial(slug))} />
              )}
              {sub === 'actions' && <Journal lost={journalLost} />}
            </TabPanel>
          </TabPanel>
        )}
        <div class="live" role="status" aria-live="polite" data-testid="announce">{message}</div>
        {dropping && <div class="drop-overlay" data-testid="drop-overlay"><p>{t('drop.hint')}</p></div>}
        {error && (
          <div class="toast" role="alert" data-testid="error">
            <p>{error}</p>
            <button type="button" onClick={() => setError(null)}>{t('import.dismiss')}</button>
          </div>
        )}
      </div>
      {review && (
        <Consent key={review.review} review={review} onDone={(installed) => {
          setReviews((q) => q.slice(1));
          if (installed) { setTop('plugins'); setSub('mine'); api.cards().then(setAllCards, () => undefined); }
        }} />
      )}
      {!review && details && <Details key={details} slug={details} onClose={() => setDetails(null)} />}
      {!review && options && <Options key={options} slug={options} onClose={() => setOptions(null)} />}
      {confirm && (
        <Dialog label={t('confirm.uninstall_title', { name: confirm.name })} onClose={() => setConfirm(null)} role="alertdialog" testid="confirm">
          <div class="dialog-body">
            <h2 tabIndex={-1}>{t('confirm.uninstall_title', { name: confirm.name })}</h2>
            <p>{confirm.origin === 'folder' ? t('confirm.uninstall_folder') : t('confirm.uninstall_text')}</p>
            <footer class="dialog-foot">
              <button type="button" data-testid="confirm-no" autoFocus onClick={() => setConfirm(null)}>{t('confirm.no')}</button>
              <button type="button" class="danger" data-testid="confirm-yes" onClick={() => uninstall(confirm)}>{t('confirm.yes')}</button>
            </footer>
          </div>
        </Dialog>
      )}
      {/* Last, so that an R3 question stays above any other dialog (Details' Try an action). */}
      <Questions />
    </TCtx.Provider></Ctx.Provider>
  );
}
