import { memo } from 'preact/compat';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { Card, Problem } from '../types';
import { badgeText, cardLines, failingWords, filterCards, statusHelp, statusText, type Filter } from '../words';
import { PluginIcon, Switch, useId } from './common';
import { useApp, type CardActions } from './context';
import type { Translate } from '../i18n';
import { stampOf } from './stale';

export function MyPlugins(props: { order: string[]; updates: Map<string, string>; secretsWarning: string | null }) {
  const app = useApp();
  const { t, cards } = app;
  const [filter, setFilter] = useState<Filter>('all');
  const [query, setQuery] = useState('');
  const searchId = useId('search');
  const all = useMemo(() => props.order.map((s) => cards.get(s)).filter((c): c is Card => !!c), [props.order, cards]);
  const updateSet = useMemo(() => new Set(props.updates.keys()), [props.updates]);
  const shown = useMemo(() => filterCards(all, filter, query, updateSet), [all, filter, query, updateSet]);
  const filters: Filter[] = ['all', 'enabled', 'disabled', 'updates'];
  return (
    <section class="mine" aria-labelledby="mine-h">
      <h2 id="mine-h" class="visually-hidden">{t('mine.heading')}</h2>
      {/* The host's warning is the fact (secrets last only until a restart, §11): the window words it. */}
      {props.secretsWarning && (
        <div class="banner warn" role="note" data-testid="secrets-warning">
          <strong>{t('secrets.warning_title')}</strong> {t('secrets.until_restart')}
        </div>
      )}
      <div class="filters">
        <div role="group" aria-label={t('mine.filters')} class="segmented">
          {filters.map((f) => (
            <button
              type="button" key={f} aria-pressed={filter === f} data-testid={`filter-${f}`}
              onClick={() => setFilter(f)}
            >{t(`mine.filter.${f}`)}</button>
          ))}
        </div>
        <label for={searchId} class="visually-hidden">{t('mine.search')}</label>
        <input
          id={searchId} type="search" class="search" placeholder={t('mine.search_placeholder')} value={query}
          data-testid="search" onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      {all.length === 0 ? (
        <p class="empty">{t('mine.empty')}</p>
      ) : (
        <>
          <p class="count" aria-live="polite">{t('mine.count', { count: shown.length, total: all.length })}</p>
          {shown.length === 0 && <p class="empty">{t('mine.none_match')}</p>}
          <ul class="cards" data-testid="cards">
            {shown.map((c) => (
              <PluginCard
                key={c.slug} card={c} devMode={app.switches.dev_mode} update={props.updates.get(c.slug) ?? null}
                icon={stampOf(app.stamps, 'icon', c.slug)} read={stampOf(app.stamps, 'details', c.slug)} t={t} actions={app.cardActions}
              />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/**
 * Everything a card shows and does comes in its props, none from the app context (which
 * changes with every card): with 200 plugins, a change redraws one card, not 200.
 */
/** `icon` and `read`: the stamps of its icon and its details (stale.ts). */
type CardProps = { card: Card; devMode: boolean; update: string | null; icon: string; read: string; t: Translate; actions: CardActions };

const PluginCard = memo(function PluginCard({ card, devMode, update, icon, read, t, actions }: CardProps) {
  const lines = cardLines(t, card);
  const nameId = `card-name-${card.slug}`;
  const toggle = async (on: boolean) => {
    try { await api.setEnabled(card.slug, on); } catch (e) { actions.showError(asApiError(e)); }
  };
  return (
    <li class={`card status-${card.status}`} data-testid={`card-${card.slug}`} aria-labelledby={nameId}>
      <PluginIcon slug={card.slug} name={card.name} hasIcon={card.has_icon} stamp={icon} />
      <div class="card-main">
        <div class="card-head">
          <h3 id={nameId} class="card-name">{card.name}</h3>
          <span class={`badge badge-${card.origin}`}>{badgeText(t, card.origin)}</span>
        </div>
        <p class="by">
          {card.author && <>{t('card.by', { author: card.author })} · </>}
          <span class="card-version" data-testid="card-version">{t('card.version_small', { version: card.version })}</span>
        </p>
        <p class="status-line">
          <span class={`status status-${card.status}`} data-testid="card-status" title={statusHelp(t, card.status)}>
            {statusText(t, card.status)}
          </span>
          {card.status !== 'active' && card.status !== 'off' && <span class="status-help"> {statusHelp(t, card.status)}</span>}
        </p>
        {card.failing && <Failing t={t} failing={card.failing} />}
        {lines.map((l) => <p class="card-line" key={l} data-testid="card-line">{l}</p>)}
        {update && <p class="card-line update">{t('card.update_available', { version: update })}</p>}
        {/* §19: developer mode adds the plugin's ID and its number of recent errors. */}
        {devMode && (
          <div class="dev-line" data-testid="card-dev">
            <span>{t('card.id', { slug: card.slug })}</span>
            <span data-testid="card-recent-errors"> · {t('card.recent_errors', { count: card.recent_errors })}</span>
            {card.status === 'invalid' && <ManifestErrors slug={card.slug} read={read} />}
          </div>
        )}
        <div class="card-buttons">
          <button type="button" data-testid="card-details" aria-describedby={nameId} onClick={() => actions.openDetails(card.slug)}>{t('card.details')}</button>
          <button type="button" data-testid="card-options" aria-describedby={nameId} onClick={() => actions.openOptions(card.slug)}>{t('card.options')}</button>
          <button type="button" class="danger-link" data-testid="card-uninstall" aria-describedby={nameId} onClick={() => actions.askUninstall(card)}>{t('card.uninstall')}</button>
        </div>
      </div>
      <div class="card-switch">
        <Switch label={t('card.switch', { name: card.name })} hideLabel checked={card.enabled} onChange={toggle} testid="card-switch" />
      </div>
    </li>
  );
});

/** Its calls keep failing: said under the status (Active alone would mislead), the code as detail;
 * on the card and in Details alike. */
export function Failing(props: { t: Translate; failing: NonNullable<Card['failing']>; testid?: string }) {
  const { words, code } = failingWords(props.t, props.failing);
  return (
    <p class="card-line failing" data-testid={props.testid ?? 'card-failing'}>
      {words} <span class="muted detail">({props.t('journal.code', { code })})</span>
    </p>
  );
}

/** Developer mode: the errors of a manifest that no longer passes the checks, right on its card (§19). */
function ManifestErrors(props: { slug: string; read: string }) {
  const [errors, setErrors] = useState<Problem[]>([]);
  useEffect(() => {
    let live = true;
    api.details(props.slug).then((d) => { if (live) setErrors(d.errors); }, () => undefined);
    return () => { live = false; };
  }, [props.slug, props.read]);
  if (!errors.length) return null;
  return (
    <ul class="card-errors" data-testid="manifest-errors">
      {errors.slice(0, 3).map((p, i) => <li key={i}><code>{p.code}</code> <code>{p.path || '-'}</code> {p.message}</li>)}
      {errors.length > 3 && <li>…</li>}
    </ul>
  );
}
