import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { tileClass } from '../words';
import { useApp, useT } from './context';

let ids = 0;
export function useId(prefix: string): string {
  const ref = useRef<string>();
  if (!ref.current) ref.current = `${prefix}-${++ids}`;
  return ref.current;
}

/** An on/off switch: a checkbox with role="switch" and a visible label. */
export function Switch(props: {
  label: string; checked: boolean; onChange: (on: boolean) => void; testid?: string; disabled?: boolean;
  hideLabel?: boolean; help?: string;
}) {
  const id = useId('sw');
  return (
    <div class="switch-row">
      <input
        id={id} type="checkbox" role="switch" class="switch" checked={props.checked} disabled={props.disabled}
        data-testid={props.testid} aria-describedby={props.help ? `${id}-help` : undefined}
        onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id} class={props.hideLabel ? 'visually-hidden' : undefined}>{props.label}</label>
      {props.help && <p id={`${id}-help`} class="help">{props.help}</p>}
    </div>
  );
}

/** Modals open now (one may open above another): while any is, the page behind does not scroll. */
let modalsOpen = 0;
/** The page behind a modal stays put: a modal <dialog> keeps the mouse and the keys, but the wheel
 *  still scrolled the page under it. A class, not an inline style (the CSP allows none). */
function lockScroll(): () => void {
  if (modalsOpen++ === 0) document.documentElement.classList.add('modal-open');
  return () => {
    if (--modalsOpen === 0) document.documentElement.classList.remove('modal-open');
  };
}

/** A modal dialog: focus moves in on open, Escape closes, focus goes back to the opener; the page
 *  behind keeps its scroll position. */
export function Dialog(props: {
  label: string; onClose: () => void; children: ComponentChildren; testid?: string; wide?: boolean; role?: 'dialog' | 'alertdialog';
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const d = ref.current!;
    const unlock = lockScroll();
    if (!d.open) d.showModal();
    const first = d.querySelector<HTMLElement>('[autofocus], h2[tabindex]');
    // Focus moves in without scrolling the page behind (it stays where the player left it).
    const y = window.scrollY;
    first?.focus({ preventScroll: true });
    if (window.scrollY !== y) window.scrollTo(window.scrollX, y);
    return () => {
      if (d.open) d.close();
      unlock();
      if (opener && document.contains(opener)) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref} class={props.wide ? 'dialog wide' : 'dialog'} aria-label={props.label} data-testid={props.testid}
      role={props.role}
      onCancel={(e) => { e.preventDefault(); props.onClose(); }}
    >
      {props.children}
    </dialog>
  );
}

export function CloseButton(props: { onClose: () => void }) {
  const t = useT();
  return (
    <button type="button" class="close" data-testid="close" aria-label={t('app.close')} onClick={props.onClose}>
      <span aria-hidden="true">×</span>
    </button>
  );
}

const icons = new Map<string, string | null>();

/** The plugin's icon, else its first letter on a coloured tile. */
/** `stamp`: when its icon was last made stale (stale.ts); the icon is fetched again only then. */
/** A plugin's icon, or its letter on a colour tile. `small`: beside words that already name the
 * plugin (a tool line), so it is decorative there. */
export function PluginIcon(props: { slug: string; name: string; hasIcon: boolean; stamp: string; small?: boolean }) {
  const t = useT();
  const key = `${props.slug}#${props.stamp}`;
  const [src, setSrc] = useState<string | null>(icons.get(key) ?? null);
  useEffect(() => {
    if (!props.hasIcon) { setSrc(null); return; }
    if (icons.has(key)) { setSrc(icons.get(key)!); return; }
    let live = true;
    api.icon(props.slug).then((url) => {
      const ok = url && url.startsWith('data:image/') ? url : null;
      icons.set(key, ok);
      if (live) setSrc(ok);
    }, () => icons.set(key, null));
    return () => { live = false; };
  }, [key, props.hasIcon]);
  const size = props.small ? 20 : 48;
  const cls = props.small ? 'icon small' : 'icon';
  if (src) return <img class={cls} src={src} alt={props.small ? '' : t('card.icon_of', { name: props.name })} width={size} height={size} />;
  const letter = (props.name.trim()[0] ?? props.slug[0] ?? '?').toLocaleUpperCase();
  // Beside words, the letter is drawn by CSS so that it is no part of the line's text.
  if (props.small) return <span class={`${cls} tile ${tileClass(props.slug)}`} aria-hidden="true" data-letter={letter} />;
  return <span class={`${cls} tile ${tileClass(props.slug)}`} aria-hidden="true">{letter}</span>;
}
