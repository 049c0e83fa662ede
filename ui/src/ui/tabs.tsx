import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

/** A tab list with arrow-key, Home and End navigation (WAI-ARIA tabs pattern). */
export function Tabs<T extends string>(props: {
  label: string; tabs: [T, string][]; selected: T; onSelect: (id: T) => void; idPrefix: string; class?: string;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const onKey = (e: KeyboardEvent) => {
    const i = props.tabs.findIndex(([id]) => id === props.selected);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % props.tabs.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + props.tabs.length) % props.tabs.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = props.tabs.length - 1;
    if (next < 0) return;
    e.preventDefault();
    props.onSelect(props.tabs[next][0]);
    requestAnimationFrame(() => ref.current?.querySelector<HTMLElement>(`#${props.idPrefix}-${props.tabs[next][0]}`)?.focus());
  };
  return (
    <div role="tablist" aria-label={props.label} class={props.class ?? 'tabs'} ref={ref} onKeyDown={onKey}>
      {props.tabs.map(([id, text]) => (
        <button
          type="button" role="tab" key={id} id={`${props.idPrefix}-${id}`} aria-controls={`${props.idPrefix}-panel-${id}`}
          aria-selected={props.selected === id} tabIndex={props.selected === id ? 0 : -1} onClick={() => props.onSelect(id)}
        >{text}</button>
      ))}
      {props.children}
    </div>
  );
}

export function TabPanel(props: { idPrefix: string; id: string; children: ComponentChildren }) {
  return (
    <div role="tabpanel" id={`${props.idPrefix}-panel-${props.id}`} aria-labelledby={`${props.idPrefix}-${props.id}`} tabIndex={0} class="tabpanel">
      {props.children}
    </div>
  );
}
