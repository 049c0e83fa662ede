import { useEffect, useRef } from 'preact/hooks';
import type { Key } from '../i18n';
import type { ApiError, Card, CatalogEntry } from '../types';
import { officialDescription, refusalCategories, refusalNextStep } from '../words';
import { useApp } from './context';

export interface Refusal { file: string | null; error: ApiError }

export function Catalog(props: {
  entries: CatalogEntry[]; refusal: Refusal | null; busy: boolean; onImport: () => void; onDismiss: () => void;
  onInstall: (slug: string) => void;
}) {
  const { t, cards } = useApp();
  return (
    <section class="catalog" aria-labelledby="catalog-h">
      <h2 id="catalog-h" class="visually-hidden">{t('catalog.heading')}</h2>
      <div class="panel import">
        <h3>{t('import.heading')}</h3>
        <p>{t('import.explain')}</p>
        <button type="button" class="primary" data-testid="import-file" onClick={props.onImport} disabled={props.busy}>
          {t('import.button')}
        </button>
        {props.busy && <p role="status">{t('import.checking')}</p>}
        {props.refusal && <RefusalView refusal={props.refusal} onDismiss={props.onDismiss} />}
      </div>
      <h3>{t('catalog.official')}</h3>
      {props.entries.length === 0 && <p class="empty">{t('catalog.empty')}</p>}
      <ul class="catalog-list">
        {props.entries.map((e) => <Entry key={e.slug} entry={e} installed={cards.get(e.slug)} onInstall={props.onInstall} />)}
      </ul>
    </section>
  );
}

function Entry(props: { entry: CatalogEntry; installed: Card | undefined; onInstall: (slug: string) => void }) {
  const { t } = useApp();
  const { entry, installed } = props;
  const newer = installed?.update_available != null;
  const id = `cat-${entry.slug}`;
  return (
    <li class="catalog-entry" data-testid={`catalog-${entry.slug}`}>
      <div>
        <h4 id={id}>{entry.name}</h4>
        {entry.description && <p>{officialDescription(t, entry.slug, entry.description)}</p>}
        <p class="muted">{t('card.version', { version: entry.version })} · {t('badge.official')}</p>
      </div>
      {installed && !newer ? (
        <span class="installed">{t('catalog.installed')}</span>
      ) : (
        <button type="button" data-testid={`catalog-install-${entry.slug}`} aria-describedby={id} onClick={() => props.onInstall(entry.slug)}>
          {newer ? t('catalog.update', { version: entry.version }) : t('catalog.install')}
        </button>
      )}
    </li>
  );
}

export function RefusalView(props: { refusal: Refusal; onDismiss: () => void }) {
  const { t } = useApp();
  const ref = useRef<HTMLDivElement>(null);
  const { error, file } = props.refusal;
  const problems = error.problems ?? [];
  const cats = refusalCategories(problems, error.code);
  useEffect(() => { ref.current?.focus(); }, [props.refusal]);
  return (
    <div class="refusal" role="alert" data-testid="import-refusal" tabIndex={-1} ref={ref}>
      <h4>{t('import.refused_title')}</h4>
      {file && <p class="muted">{t('import.refused_file', { file: file.split(/[\\/]/).pop() ?? file })}</p>}
      <p>{t('import.found')}</p>
      <ul data-testid="refusal-categories">
        {cats.map((c) => <li key={c}>{t(`cat.${c}` as Key)}</li>)}
      </ul>
      <p class="next-step">{refusalNextStep(t, cats)}</p>
      <details data-testid="technical-details">
        <summary>{t('import.technical')}</summary>
        {problems.length ? (
          <table class="tech">
            <tbody>
              {problems.map((p, i) => (
                <tr key={i}><td><code>{p.code}</code></td><td><code>{p.path || '-'}</code></td><td>{p.message}</td></tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p><code>{error.code}</code> {error.message}</p>
        )}
      </details>
      <button type="button" data-testid="close" onClick={props.onDismiss}>{t('import.dismiss')}</button>
    </div>
  );
}
