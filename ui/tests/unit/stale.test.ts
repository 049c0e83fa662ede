import { describe, expect, test } from 'vitest';
import { bump, invalidated, stampOf } from '../../src/ui/stale';
import type { Card, HostEvent } from '../../src/types';

const card = { slug: 'fx' } as Card;
const changed = (change: 'installed' | 'edited' | 'folder_saved' | 'status' | 'removed'): HostEvent =>
  ({ kind: 'plugin_changed', slug: 'fx', change, card: change === 'removed' ? null : card });
const reads = (ev: HostEvent) => invalidated(ev).map((s) => `${s.read}/${s.slug ?? '*'}`).sort();

describe('the refresh table', () => {
  test('a card change makes its details and events page stale; its icon only when its files can have changed', () => {
    expect(reads(changed('edited'))).toEqual(['details/fx', 'events/fx']);
    for (const c of ['installed', 'folder_saved', 'status', 'removed'] as const) {
      expect(reads(changed(c))).toEqual(['details/fx', 'events/fx', 'icon/fx']);
    }
  });

  test('a call ends: the details of its plugin, never its icon', () => {
    expect(reads({ kind: 'call_finished', tool: 'fx__convert', outcome: 'failed', code: 'HTTP_404' })).toEqual(['details/fx']);
  });

  test('the door: every events page on a new state, nothing on an event turn', () => {
    expect(reads({ kind: 'door', notice: { kind: 'door', state: { state: 'closed' } } } as HostEvent)).toEqual(['events/*']);
    expect(reads({ kind: 'door', notice: { kind: 'turn', message: 'm', events: ['fx/rates'], tools: [], said: [] } })).toEqual([]);
  });

  test('the switches make every plugin\'s pages stale; journal and reload notes none', () => {
    expect(reads({ kind: 'switches', switches: { plugins_enabled: true, tools_enabled: true, dev_mode: true, language: 'en' } }))
      .toEqual(['details/*', 'events/*']);
    expect(reads({ kind: 'reload_failed', message: 'x' })).toEqual([]);
    expect(reads({ kind: 'journal_lost', message: 'x' })).toEqual([]);
  });

  test('a stamp changes with its own plugin\'s read or every plugin\'s, and no other', () => {
    let stamps = bump(new Map(), []);
    const icon = stampOf(stamps, 'icon', 'fx');
    const details = stampOf(stamps, 'details', 'fx');
    stamps = bump(stamps, invalidated(changed('edited')));
    expect(stampOf(stamps, 'icon', 'fx')).toBe(icon);
    expect(stampOf(stamps, 'details', 'fx')).not.toBe(details);
    expect(stampOf(stamps, 'details', 'constructor')).toBe(stampOf(new Map(), 'details', 'constructor'));
    const before = stampOf(stamps, 'events', 'constructor');
    stamps = bump(stamps, [{ read: 'events', slug: null }]);
    expect(stampOf(stamps, 'events', 'constructor')).not.toBe(before);
  });
});
