// The Tools tab's Twitch chat section (§12, issue 36): the player types their
// channel and connects; the host joins that chat with Twitch's anonymous
// read-only login and says how it goes (`ChatStatus`, read at start and then
// carried by `twitch` host events). While it is connected stream mode is on.
// The player sets the prefix that makes a message a turn, pauses chat turns
// without disconnecting, and ignores viewers; what the chat dropped is
// counted in small print. Every rule (a valid channel or prefix, the limits,
// when stream mode is on) is the host's: this page shows the facts it gives.
// The status shown is the last the host reported, never a command's answer:
// a connect on a fast network is Connected before its answer (Connecting)
// reaches the page, and only the reports come in the order they happened.
import { useEffect, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { Translate } from '../i18n';
import type { ChatDropped, ChatStatus } from '../types';
import { Switch, useId } from './common';
import { useApp } from './context';

/** The connection in plain words: Connected to #x, Connecting…, Reconnecting in N s — why, Not connected
 * (with why, after a connect that failed). */
export function chatStateWords(t: Translate, s: ChatStatus): string {
  const channel = s.channel ?? s.settings.channel ?? '';
  switch (s.state) {
    case 'connected': return t('twitch.connected', { channel });
    case 'connecting': return t('twitch.connecting', { channel });
    case 'reconnecting': return t('twitch.reconnecting', { channel, secs: s.retry_in_secs ?? 0, why: s.code ? t(`twitch.code.${s.code}`) : '' });
    case 'off': return s.code ? t('twitch.failed', { why: t(`twitch.code.${s.code}`) }) : t('twitch.off');
  }
}

/** The Companion tab's line while the chat is connected (none when off). */
export function chatLineWords(t: Translate, s: ChatStatus): string | null {
  if (s.state === 'off') return null;
  const channel = s.channel ?? '';
  if (s.state !== 'connected') return chatStateWords(t, s);
  return s.settings.paused ? t('twitch.line_paused', { channel }) : t('twitch.line', { channel });
}

/** What the chat dropped since connect, reason by reason, only the reasons that happened. */
export function droppedWords(t: Translate, d: ChatDropped): string[] {
  return (Object.keys(d) as (keyof ChatDropped)[]).filter((k) => d[k] > 0).map((k) => t(`twitch.dropped.${k}`, { count: d[k] }));
}

export function TwitchSection() {
  const app = useApp();
  const { t } = app;
  const status = app.twitch;
  const [channel, setChannel] = useState('');
  const [channelError, setChannelError] = useState('');
  const [prefix, setPrefix] = useState('');
  const [prefixError, setPrefixError] = useState('');
  const [viewer, setViewer] = useState('');
  const [viewerError, setViewerError] = useState('');
  const [busy, setBusy] = useState(false);
  const ids = useId('twitch');

  // The fields start from what the profile keeps.
  const savedChannel = status?.settings.channel ?? null;
  const savedPrefix = status?.settings.prefix ?? '';
  useEffect(() => { if (savedChannel) setChannel(savedChannel); }, [savedChannel]);
  useEffect(() => { setPrefix(savedPrefix); }, [savedPrefix]);

  /** Runs a command (true when done; the host reports the new status); the host's refusal of what was
   * typed (`bad_input`) is said next to its field by `bad`, any other failure by the app. */
  const act = async (run: () => Promise<ChatStatus>, bad?: () => void): Promise<boolean> => {
    setBusy(true);
    try {
      await run();
      return true;
    } catch (e) {
      const a = asApiError(e);
      if (bad && a.code === 'bad_input') bad();
      else app.showError(a);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const connect = () => { setChannelError(''); return act(() => api.twitchConnect(channel.trim()), () => setChannelError(t('twitch.channel_bad'))); };
  const disconnect = () => act(() => api.twitchDisconnect());
  const savePrefix = () => { setPrefixError(''); return act(() => api.twitchSettings(prefix.trim(), null, null, null), () => setPrefixError(t('twitch.prefix_bad'))); };
  const ignore = async () => {
    setViewerError('');
    if (await act(() => api.twitchSettings(null, null, viewer.trim(), null), () => setViewerError(t('twitch.login_bad')))) setViewer('');
  };

  if (!status) return null;
  const on = status.state !== 'off';
  const dropped = droppedWords(t, status.dropped);
  return (
    <section class="panel" aria-labelledby={`${ids}-h`} data-testid="twitch">
      <h2 id={`${ids}-h`}>{t('twitch.heading')}</h2>
      <p class="help">{t('twitch.explain')}</p>
      <div class={status.state === 'reconnecting' || (status.state === 'off' && status.code) ? 'banner warn' : 'banner'} role="status" data-testid="twitch-state">
        <p><strong>{chatStateWords(t, status)}</strong></p>
        {status.stream_mode && <p data-testid="twitch-stream-mode">{t('twitch.stream_mode')}</p>}
      </div>
      <form class="row" noValidate onSubmit={(e) => { e.preventDefault(); if (!on) connect(); }}>
        <div class={channelError ? 'field has-error' : 'field'}>
          <label for={`${ids}-channel`}>{t('twitch.channel')}</label>
          <input id={`${ids}-channel`} data-testid="twitch-channel" type="text" spellcheck={false} autoComplete="off" value={channel}
            disabled={on} aria-invalid={channelError ? true : undefined} aria-describedby={`${ids}-channel-h${channelError ? ` ${ids}-channel-e` : ''}`}
            onInput={(e) => setChannel((e.currentTarget as HTMLInputElement).value)} />
          <p id={`${ids}-channel-h`} class="help">{t('twitch.channel_help')}</p>
          {channelError && <p id={`${ids}-channel-e`} class="field-error" data-testid="twitch-channel-error">{channelError}</p>}
        </div>
        {/* Keyed: a click on Disconnect must not become a click on the Connect (submit) drawn in its place. */}
        {on
          ? <button key="disconnect" type="button" data-testid="twitch-disconnect" disabled={busy} onClick={disconnect}>{t('twitch.disconnect')}</button>
          : <button key="connect" type="submit" class="primary" data-testid="twitch-connect" disabled={busy || !channel.trim()}>{t('twitch.connect')}</button>}
      </form>

      <section class="section" aria-labelledby={`${ids}-turns`}>
        <h3 id={`${ids}-turns`}>{t('twitch.turns')}</h3>
        <form class="row" noValidate onSubmit={(e) => { e.preventDefault(); savePrefix(); }}>
          <div class={prefixError ? 'field has-error' : 'field'}>
            <label for={`${ids}-prefix`}>{t('twitch.prefix')}</label>
            <input id={`${ids}-prefix`} data-testid="twitch-prefix" type="text" spellcheck={false} autoComplete="off" value={prefix}
              aria-invalid={prefixError ? true : undefined} aria-describedby={`${ids}-prefix-h${prefixError ? ` ${ids}-prefix-e` : ''}`}
              onInput={(e) => setPrefix((e.currentTarget as HTMLInputElement).value)} />
            <p id={`${ids}-prefix-h`} class="help">{t('twitch.prefix_help', { prefix: savedPrefix })}</p>
            {prefixError && <p id={`${ids}-prefix-e`} class="field-error" data-testid="twitch-prefix-error">{prefixError}</p>}
          </div>
          <button type="submit" data-testid="twitch-prefix-save" disabled={busy || prefix.trim() === savedPrefix}>{t('app.save')}</button>
        </form>
        <Switch label={t('twitch.pause')} help={t('twitch.pause_help')} checked={status.settings.paused} testid="twitch-paused"
          onChange={(paused) => act(() => api.twitchSettings(null, paused, null, null))} />
      </section>

      <section class="section" aria-labelledby={`${ids}-ignored`}>
        <h3 id={`${ids}-ignored`}>{t('twitch.ignored')}</h3>
        {status.settings.ignored.length === 0
          ? <p class="help" data-testid="twitch-ignored-none">{t('twitch.ignored_none')}</p>
          : (
            <ul data-testid="twitch-ignored">
              {status.settings.ignored.map((login) => (
                <li key={login} class="row">
                  <span>{login}</span>
                  <button type="button" data-testid="twitch-unignore" aria-label={t('twitch.unignore_named', { login })}
                    onClick={() => act(() => api.twitchSettings(null, null, null, login))}>{t('twitch.unignore')}</button>
                </li>
              ))}
            </ul>
          )}
        <form class="row" noValidate onSubmit={(e) => { e.preventDefault(); if (viewer.trim()) ignore(); }}>
          <div class={viewerError ? 'field has-error' : 'field'}>
            <label for={`${ids}-viewer`}>{t('twitch.ignore_label')}</label>
            <input id={`${ids}-viewer`} data-testid="twitch-ignore-login" type="text" spellcheck={false} autoComplete="off" value={viewer}
              aria-invalid={viewerError ? true : undefined} aria-describedby={viewerError ? `${ids}-viewer-e` : undefined}
              onInput={(e) => setViewer((e.currentTarget as HTMLInputElement).value)} />
            {viewerError && <p id={`${ids}-viewer-e`} class="field-error" data-testid="twitch-ignore-error">{viewerError}</p>}
          </div>
          <button type="submit" data-testid="twitch-ignore" disabled={busy || !viewer.trim()}>{t('twitch.ignore')}</button>
        </form>
      </section>

      {on && (
        <p class="help" data-testid="twitch-counts">
          {t('twitch.said', { count: status.said, waiting: status.waiting })}
          {dropped.length > 0 && ` ${t('twitch.dropped', { reasons: dropped.join(', ') })}`}
        </p>
      )}
      <p class="help" data-testid="twitch-where">{t('twitch.where', { host: status.host, port: status.port })}</p>
    </section>
  );
}
