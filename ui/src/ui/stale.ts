// When the window reads again: one table from each host event to the reads
// it makes stale (after GitButler's `provides` / `invalidates` tags), instead
// of counters each screen bumped by hand. A screen keys its read on
// `stampOf(stamps, read, slug)`, which changes only when the table says so.
import type { Change, HostEvent } from '../types';
import { slugOf } from '../toolref';

/** What a screen reads of one plugin: `details` (Details, Options, errors), its events page, its icon. */
export type Read = 'details' | 'events' | 'icon';

/** A read made stale: of one plugin, or of every plugin (`slug: null`). */
export interface Stale { read: Read; slug: string | null }

const ALL: Read[] = ['details', 'events', 'icon'];

/**
 * A card change and what it invalidates. The icon is read again only when its
 * file can have changed: a new install, a folder saved, a new status (the
 * files were found changed, missing or back).
 */
const CHANGED: Record<Change, Read[]> = {
  installed: ALL,
  folder_saved: ALL,
  status: ALL,
  removed: ALL,
  edited: ['details', 'events'],
};

/** Each host event and the reads it makes stale. */
export function invalidated(ev: HostEvent): Stale[] {
  switch (ev.kind) {
    case 'plugin_changed': return CHANGED[ev.change].map((read) => ({ read, slug: ev.slug }));
    // A call ended: the plugin's last failures and recent errors.
    case 'call_finished': return [{ read: 'details', slug: slugOf(ev.tool) }];
    // The door's state is on every plugin's events page; an event turn is kept as the last turn, not read again.
    case 'door': return ev.notice.kind === 'turn' ? [] : [{ read: 'events', slug: null }];
    // Developer mode and the plugins switch change every plugin's status and what its pages show.
    case 'switches': return [{ read: 'details', slug: null }, { read: 'events', slug: null }];
    // The Twitch chat's status is carried whole by its events; a chat turn reaches the conversation as turn lines.
    case 'reload_failed': case 'journal_added': case 'journal_lost': case 'twitch': return [];
  }
}

const keyOf = (read: Read, slug: string | null) => `${read}/${slug ?? '*'}`;

/** `stamps` with each stale read one higher (a new Map, for state). */
export function bump(stamps: ReadonlyMap<string, number>, stale: Stale[]): ReadonlyMap<string, number> {
  if (!stale.length) return stamps;
  const next = new Map(stamps);
  for (const s of stale) next.set(keyOf(s.read, s.slug), (next.get(keyOf(s.read, s.slug)) ?? 0) + 1);
  return next;
}

/** The stamp of a plugin's read: it changes whenever that read, or that read of every plugin, is stale. */
export function stampOf(stamps: ReadonlyMap<string, number>, read: Read, slug: string): string {
  return `${stamps.get(keyOf(read, slug)) ?? 0}.${stamps.get(keyOf(read, null)) ?? 0}`;
}
