// What the companion is not offered, and why (§24 "Why is my plugin never
// used?", issue 23): the host's list for the player's next typed turn
// (`not_offered`), shown in the Companion tab as a quiet disclosure. Each
// plugin or action is named as the player knows it, with the reason in
// words (from its code) and, where one click fixes it, the button that
// does: turn it on, open Options, open Details, go to Tools.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asApiError } from '../api';
import type { Key, Translate } from '../i18n';
import type { AppSwitches, Card, NotOffered, Place } from '../types';
import { reasonWords, statusHelp } from '../words';
import { toolRef } from '../toolref';
import { useId } from './common';
import { useApp } from './context';
import { useHints } from './hints';

/** What fixes a reason, as the player does it. */
export type Fix =
  | { kind: 'tools' }
  | { kind: 'switches'; patch: Partial<AppSwitches> }
  | { kind: 'plugin' }
  | { kind: 'action'; tool: string }
  | { kind: 'options' }
  | { kind: 'details' };

const DETAILS = new Set<Card['status']>(['modified', 'invalid', 'missing']);

/** A switched-off plugin (`plugin_off`) is off by the Plugins enabled switch, by its own, or by its
 * file (modified, invalid, missing): each read from what the window knows. */
function offBy(item: NotOffered, card: Card | undefined, switches: AppSwitches): 'action' | 'all' | 'file' | 'plugin' {
  if (item.tool !== null) return 'action';
  if (!switches.plugins_enabled) return 'all';
  return card && DETAILS.has(card.status) ? 'file' : 'plugin';
}

/** Why it is not offered, in the player's words, from the reason's code. */
export function notOfferedWords(t: Translate, item: NotOffered, card: Card | undefined, switches: AppSwitches): string {
  if (item.reason === 'plugin_off') {
    const by = offBy(item, card, switches);
    return by === 'file' && card ? statusHelp(t, card.status) : t(`not_offered.off_${by}` as Key);
  }
  const key = `not_offered.${item.reason}` as Key;
  const known = t(key);
  return known === key ? reasonWords(t, item.reason) : known;
}

/** The one click that fixes it, when there is one. */
export function fixOf(item: NotOffered, card: Card | undefined, switches: AppSwitches): Fix | null {
  switch (item.reason) {
    case 'tools_off': return { kind: 'tools' };
    case 'plugin_off': {
      const by = offBy(item, card, switches);
      if (by === 'action') return { kind: 'action', tool: item.tool! };
      if (by === 'all') return { kind: 'switches', patch: { plugins_enabled: true } };
      return by === 'file' ? { kind: 'details' } : { kind: 'plugin' };
    }
    case 'dev_mode_off': return { kind: 'switches', patch: { dev_mode: true } };
    case 'needs_setup': return { kind: 'options' };
    // The player's own choices, explained where they are made (§12, §13), and the actions' switches.
    case 'cloud_blocked': case 'stream_private': case 'tool_limit': return { kind: 'details' };
    default: return null;
  }
}

const FIX_WORDS: Record<Fix['kind'], Key> = {
  tools: 'companion.to_tools', switches: 'not_offered.turn_on', plugin: 'not_offered.turn_on', action: 'not_offered.turn_on',
  options: 'not_offered.options', details: 'not_offered.details',
};

/** The button's words: what it does (developer mode says its name: it changes more than this plugin). */
function fixWords(t: Translate, fix: Fix): string {
  return fix.kind === 'switches' && fix.patch.dev_mode ? t('not_offered.dev_mode_on') : t(FIX_WORDS[fix.kind]);
}

export function NotOfferedList(props: { live: boolean; where: Place | null; onTools: () => void }) {
  const app = useApp();
  const { t, cards, switches } = app;
  const [items, setItems] = useState<NotOffered[]>([]);
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const ids = useId('not-offered');
  const hints = useHints(items.filter((i) => i.tool !== null).map((i) => i.plugin));

  // Asked again when anything it depends on changes: a plugin, a switch, Live on Twitch, the AI.
  useEffect(() => {
    let current = true;
    api.notOffered(props.live).then((list) => current && setItems(list), (e) => app.showError(asApiError(e)));
    return () => { current = false; };
  }, [props.live, props.where, cards, switches]);

  if (!items.length) return null;
  const fix = async (f: Fix, item: NotOffered) => {
    // Its line goes once fixed: the keyboard stays on the list's button.
    const focusBack = () => toggle.current?.focus();
    try {
      switch (f.kind) {
        case 'tools': props.onTools(); return;
        case 'options': app.openOptions(item.plugin); return;
        case 'details': app.openDetails(item.plugin); return;
        case 'switches': await api.setSwitches(f.patch); break;
        case 'plugin': await api.setEnabled(item.plugin, true); break;
        case 'action': await api.setActionEnabled(item.plugin, f.tool, true); break;
      }
      focusBack();
    } catch (e) { app.showError(asApiError(e)); }
  };
  return (
    <div class="not-offered" data-testid="not-offered">
      <button type="button" class="disclosure" ref={toggle} aria-expanded={open} aria-controls={`${ids}-list`}
        data-testid="not-offered-toggle" onClick={() => setOpen(!open)}>
        {t('not_offered.heading', { count: items.length })}
      </button>
      {open && (
        <div id={`${ids}-list`}>
          <p class="help">{t('not_offered.explain')}</p>
          <ul class="not-offered-list">
            {items.map((item, i) => {
              const card = cards.get(item.plugin);
              const plugin = card?.name ?? item.plugin;
              const reason = notOfferedWords(t, item, card, switches);
              const words = item.tool === null
                ? t('not_offered.plugin', { plugin, reason })
                : t('not_offered.action', { plugin, action: hints.get(toolRef(item.plugin, item.tool)) || item.tool, reason });
              const f = fixOf(item, card, switches);
              return (
                <li key={`${item.plugin}/${item.tool ?? ''}`} data-testid="not-offered-item">
                  <span id={`${ids}-${i}`} data-testid="not-offered-why">{words}</span>
                  {f && (
                    <button type="button" data-testid="not-offered-fix" aria-describedby={`${ids}-${i}`} onClick={() => fix(f, item)}>
                      {fixWords(t, f)}
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </div>
  );
}
