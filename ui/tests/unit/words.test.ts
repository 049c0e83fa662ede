import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import type { Card, ErrorCode, FieldCode, PermissionChange, Problem } from '../../src/types';
import {
  IMPORT_CODES, cardLines, categoryOf, changeWords, doorWords, errorWords, fieldProblems, filterCards, formatTime,
  isImportRefusal, journalAction, levelText, outcomeText, reasonWords, refusalCategories, refusalNextStep, familyWords,
  statusText, tileClass, timeLocale, whoText, badgeText, failingWords, officialDescription, typeText,
} from '../../src/words';
import { LevelValues, StatusValues } from '../../src/bindings/values';

const t = translator('en');
const tf = translator('fr');

describe('§18: a card whose calls keep failing', () => {
  test('the count with its plural, the newest code in words with what to do, the code as the detail', () => {
    expect(failingWords(t, { calls: 3, code: 'HTTP_401', family: 'key_refused' })).toEqual({
      words: 'Its last 3 calls failed: the service refused the key. Check it in Options.', code: 'HTTP_401',
    });
    expect(failingWords(t, { calls: 1, code: 'NETWORK', family: 'network' }).words).toBe(
      'Its last call failed: the service could not be reached. Check your connection, or start the program on this PC.');
    expect(failingWords(tf, { calls: 2, code: 'TIMEOUT', family: 'timeout' }).words).toMatch(/^Ses 2 derniers appels ont échoué : /);
    expect(failingWords(tf, { calls: 1, code: 'TIMEOUT', family: 'timeout' }).words).toMatch(/^Son dernier appel a échoué : /);
    // A code this version does not know is still said, as the detail too.
    expect(failingWords(t, { calls: 2, code: 'SOMETHING_NEW' })).toEqual({ words: 'Its last 2 calls failed: it failed (SOMETHING_NEW).', code: 'SOMETHING_NEW' });
  });
  test('issue 33: worded by the family the host gives, never by the code\'s text', () => {
    // BAD_REQUEST reads as INVALID_ARGUMENTS does: a list of codes in the window had missed it.
    expect(failingWords(t, { calls: 1, code: 'BAD_REQUEST', family: 'bad_arguments' }).words)
      .toBe('Its last call failed: the arguments don\'t match what the action expects.');
    // The words follow the family, whatever the code looks like.
    expect(failingWords(t, { calls: 1, code: 'HTTP_503', family: 'service_down' }).words)
      .toBe('Its last call failed: the service has a problem right now. Try again later.');
  });
});

describe('French for what the app ships (issue 23)', () => {
  test('an official plugin\'s description is the table\'s while the manifest says what was translated', () => {
    const todoist = 'Reads, adds and completes tasks in your Todoist account with your personal API token.';
    expect(officialDescription(tf, 'todoist', todoist)).toMatch(/^Lit, ajoute et termine les tâches/);
    expect(officialDescription(t, 'todoist', todoist)).toBe(todoist);
    // A newer manifest's text (not translated yet) is shown as it is, not an outdated translation.
    expect(officialDescription(tf, 'todoist', 'Now also reads projects.')).toBe('Now also reads projects.');
    expect(officialDescription(tf, 'weather', 'Tells the weather.')).toBe('Tells the weather.');
    expect(officialDescription(tf, 'constructor', 'x')).toBe('x');
    expect(officialDescription(tf, 'todoist', null)).toBe(null);
  });
  test('an argument\'s type in words; an unknown type as it is', () => {
    expect(typeText(t, 'integer')).toBe('whole number');
    expect(typeText(tf, 'integer')).toBe('nombre entier');
    expect(typeText(tf, 'string')).toBe('texte');
    expect(typeText(tf, 'date-ish')).toBe('date-ish');
  });
});

describe('statuses, badges and levels', () => {
  test('every §18 status has its words', () => {
    // Every value the host can send, as Rust declares them (the order in which they win).
    expect(StatusValues.map((s) => statusText(t, s))).toEqual([
      'Missing', 'Invalid', 'Modified', 'Developer mode off', 'Off', 'Needs setup', 'Tools off', 'Active',
    ]);
    expect(statusText(tf, 'needs_setup')).toBe('À configurer');
  });
  test('badges follow the origin', () => {
    expect((['import', 'official', 'folder'] as const).map((o) => badgeText(t, o))).toEqual(['Not signed', 'Official', 'Folder (dev)']);
  });
  test('levels are shown as §12 says', () => {
    expect(LevelValues.map((l) => levelText(t, l))).toEqual([
      'reads public data', 'reads your data', 'reversible action', 'serious action, confirmed every time', 'reserved for official plugins',
    ]);
    expect(levelText(t, 'R9'), 'a level of a newer host is shown as it came').toBe('R9');
  });
  test('card lines: kept on this PC, then each program on this PC, from the card\'s facts', () => {
    expect(cardLines(t, { kept_on_pc: true, local_ports: [8420, 8421] })).toEqual([
      'Kept on this PC: not used with online AI models',
      'Talks to a program on this PC (port 8420)',
      'Talks to a program on this PC (port 8421)',
    ]);
    expect(cardLines(tf, { kept_on_pc: false, local_ports: [9000] }))
      .toEqual(['Communique avec un programme de ce PC (port 9000)']);
    expect(cardLines(t, { kept_on_pc: false, local_ports: [] })).toEqual([]);
  });
});

describe('import refusals in plain words', () => {
  test('every §22 import code has a category that is not "other"', () => {
    const s22 = ['too_large', 'unsupported_package', 'bad_zip', 'no_manifest', 'read_failed', 'not_json', 'bad_format',
      'bad_api_version', 'unsupported_kind', 'bad_version', 'app_too_old', 'bad_slug', 'reserved_slug', 'bad_text',
      'invisible_chars', 'instructions', 'url_in_text', 'mentions_tool', 'bad_hosts', 'bad_local_ports',
      'local_port_not_declared', 'dev_mode_required', 'bad_folder', 'lan_unsupported', 'host_permissions_unsupported',
      'no_tools', 'too_many_tools', 'bad_tool_name', 'bad_hint', 'bad_risk', 'risk_forbidden', 'bad_schema', 'bad_request',
      'host_not_declared', 'bad_placeholder', 'bad_header', 'bad_response', 'bad_user_config', 'secret_not_sensitive',
      'bad_auth', 'bad_events', 'superlative'];
    for (const code of s22) expect(categoryOf(code), code).not.toBe('other');
    expect(IMPORT_CODES.sort()).toEqual([...s22].sort());
  });
  test('categories are listed once each, in order of appearance', () => {
    const problems: Problem[] = [
      { code: 'host_not_declared', path: 'tools.a.request.url', message: '' },
      { code: 'instructions', path: 'tools.a.description', message: '' },
      { code: 'bad_hosts', path: 'permissions.network.hosts', message: '' },
      { code: 'not_json', path: 'manifest.json', message: '' },
    ];
    expect(refusalCategories(problems).map((c) => t(`cat.${c}` as never))).toEqual([
      "Network access that isn't allowed", 'Suspicious text', 'The file is not a valid plugin',
    ]);
  });
  test('a bad request URL is about network access; other bad requests stay invalid', () => {
    const problems: Problem[] = [
      { code: 'bad_request', path: 'tools.get_rates.request.url', message: 'the URL must use https' },
      { code: 'bad_request', path: 'tools.get_rates.request.method', message: 'unknown method' },
    ];
    expect(refusalCategories(problems).map((c) => t(`cat.${c}` as never))).toEqual([
      "Network access that isn't allowed", 'The file is not a valid plugin',
    ]);
    expect(refusalCategories(problems.slice(0, 1)).map((c) => tf(`cat.${c}` as never))).toEqual(['Un accès réseau non autorisé']);
    expect(refusalCategories(problems.slice(1))).toEqual(['invalid']);
    expect(errorWords(t, { code: 'bad_request', message: 'x', problems: problems.slice(0, 1) }))
      .toBe("Network access that isn't allowed. Ask the plugin's author for a corrected file.");
  });
  test('the next step: developer mode, folder, or ask the author', () => {
    expect(refusalNextStep(t, ['dev_mode'])).toBe('Turn on Developer mode (Plugins tab, top right), then import it again.');
    expect(refusalNextStep(t, ['invalid', 'text'])).toBe("Ask the plugin's author for a corrected file.");
    expect(errorWords(t, { code: 'dev_mode_required', message: 'x', problems: [] }))
      .toBe('It needs Developer mode. Turn on Developer mode (Plugins tab, top right), then import it again.');
  });
  test('other host errors have plain words, never their code', () => {
    expect(isImportRefusal({ code: 'unknown_review', message: '' })).toBe(false);
    expect(errorWords(t, { code: 'review_outdated', message: 'review_outdated: …' })).toBe('The file changed since it was checked. Import it again.');
    expect(errorWords(t, { code: 'something_new' as ErrorCode, message: 'x' })).toBe('Something unexpected went wrong.');
  });
  test('issue 20: a code named like an Object.prototype member is no import code', () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) {
      expect(categoryOf(name), name).toBe('other');
      expect(isImportRefusal({ code: name as ErrorCode, message: '', problems: [{ code: name as Problem['code'], path: '', message: '' }] }), name).toBe(false);
      expect(errorWords(t, { code: name as ErrorCode, message: 'x' }), name).toBe('Something unexpected went wrong.');
    }
  });
});

describe('setting problems go next to their field', () => {
  /** The problems as a plain object, for short expectations. */
  const problemsOf = (...args: Parameters<typeof fieldProblems>) => Object.fromEntries(fieldProblems(...args));
  test('from the fields the host lists, every one at once', () => {
    expect(problemsOf(t, {
      code: 'bad_settings', message: 'bad_settings: …',
      fields: [{ key: 'board', code: 'bad_format', message: 'a full address' }, { key: 'max_items', code: 'out_of_bounds', message: '50 at most' }],
    })).toEqual({ board: 'This should be an identifier (letters, digits, - and _), not a full address.', max_items: 'This value is out of the allowed range.' });
    expect(problemsOf(t, {
      code: 'missing_settings', message: '',
      fields: [{ key: 'api_token', code: 'missing_settings', message: '' }, { key: 'board', code: 'missing_settings', message: '' }],
    })).toEqual({ api_token: 'Fill this in to continue.', board: 'Fill this in to continue.' });
  });
  test('a value out of range is told the range the setting allows', () => {
    const e = { code: 'bad_settings' as const, message: '', fields: [{ key: 'max_items', code: 'out_of_bounds' as const, message: '' }] };
    expect(problemsOf(t, e, [{ key: 'max_items', min: 1, max: 50 }])).toEqual({ max_items: 'Enter a number from 1 to 50.' });
    expect(problemsOf(t, e, [{ key: 'max_items', min: 0, max: null }])).toEqual({ max_items: 'Enter a number of at least 0.' });
    expect(problemsOf(t, e, [{ key: 'max_items', min: null, max: 9 }])).toEqual({ max_items: 'Enter a number of at most 9.' });
    expect(problemsOf(t, e, [{ key: 'max_items', min: null, max: null }])).toEqual({ max_items: 'This value is out of the allowed range.' });
    expect(problemsOf(t, e, [{ key: 'other', min: 1, max: 2 }])).toEqual({ max_items: 'This value is out of the allowed range.' });
  });
  test('the message is never parsed for fields', () => {
    expect(problemsOf(t, { code: 'missing_settings', message: 'missing_settings: fill in api_token, board' })).toEqual({});
  });
  test('issue 20: a setting named like an Object.prototype member is a key like any other', () => {
    const names = Object.getOwnPropertyNames(Object.prototype);
    expect(names).toContain('__proto__');
    const problems = fieldProblems(t, { code: 'bad_settings', message: '', fields: names.map((key) => ({ key, code: 'bad_format' as FieldCode, message: '' })) });
    expect([...problems.keys()]).toEqual(names);
    expect(problems.get('__proto__')).toBe('This should be an identifier (letters, digits, - and _), not a full address.');
    expect(fieldProblems(t, { code: 'bad_settings', message: '' }).get('toString')).toBe(undefined);
  });
  test('a reason the tables do not know shows the host message', () => {
    expect(problemsOf(t, { code: 'bad_settings', message: '', fields: [{ key: 'x', code: 'new_reason' as FieldCode, message: 'Too odd.' }] }))
      .toEqual({ x: 'Too odd.' });
  });
});

describe('an update\'s permission changes in the player\'s language', () => {
  const every: PermissionChange[] = [
    { kind: 'site_added', site: 'a.example' }, { kind: 'site_removed', site: 'b.example' },
    { kind: 'port_added', port: 8420 }, { kind: 'port_removed', port: 8421 },
    { kind: 'action_added', action: 'history', level: 'R0', method: 'GET', url: 'https://a.example/h' },
    { kind: 'action_removed', action: 'old' },
    { kind: 'level_changed', action: 'convert', old: 'R0', new: 'R2' },
    { kind: 'method_changed', action: 'convert', old: 'GET', new: 'POST' },
    { kind: 'url_changed', action: 'convert', old: 'https://a.example/1', new: 'https://a.example/2' },
    { kind: 'secrets_sent_added', location: 'header', name: 'x-api-key', secrets: ['api_key'] },
    { kind: 'secrets_sent_removed', location: 'query', name: 'key', secrets: ['api_key', 'token'] },
    { kind: 'event_added', event: 'storm' }, { kind: 'event_removed', event: 'rain' },
    { kind: 'cloud_changed', old: 'never', new: 'allowed' },
    { kind: 'author_changed', old: 'Ann', new: null },
    { kind: 'request_changed', action: 'convert', part: 'query', old: '', new: 'amount={{amount}}' },
    { kind: 'request_changed', action: 'convert', part: 'body', old: '{"a":"{{amount}}"}', new: '' },
    { kind: 'secrets_to_site', site: 'c.example', secrets: ['api_key'] },
    { kind: 'secrets_to_port', port: 8425, secrets: ['api_key', 'token'] },
    { kind: 'not_recorded' },
  ];
  test('every kind has English words with its parameters', () => {
    expect(every.map((c) => changeWords(t, c))).toEqual([
      'New site: a.example', 'Site removed: b.example',
      'New program on this PC: port 8420', 'No longer talks to this PC on port 8421',
      'New action: “history” (reads public data)', 'Action removed: “old”',
      'Action “convert”: reads public data → reversible action', 'Action “convert”: method GET → POST',
      'Action “convert”: address https://a.example/1 → https://a.example/2',
      'Secrets now sent in the header x-api-key: api_key', 'Secrets no longer sent in the address parameter key: api_key, token',
      'New event: storm', 'Event removed: rain', 'Your data with online AI models: never → allowed',
      'Author: Ann → none named',
      'Action “convert”: what it sends in the address parameters changes: nothing → amount={{amount}}',
      'Action “convert”: what it sends in the body changes: {"a":"{{amount}}"} → nothing',
      'Your saved secrets will also be sent to c.example: api_key',
      'Your saved secrets will also be sent to the program on this PC, port 8425: api_key, token',
      'The installed version was added by an earlier version of the app, which did not record its author or what its actions send besides their address: changes to those are not listed.',
    ]);
  });
  test('and French words, never the English line or a raw key', () => {
    const words = every.map((c) => changeWords(tf, c));
    expect(words[0]).toBe('Nouveau site : a.example');
    expect(words[13]).toBe('Vos données avec les modèles d\'IA en ligne : jamais → autorisé');
    expect(words[14]).toBe('Auteur : Ann → aucun nommé');
    expect(words[15]).toBe('Action « convert » : ce qu\'elle envoie dans les paramètres d\'adresse change : rien → amount={{amount}}');
    expect(words[17]).toBe('Vos secrets enregistrés seront aussi envoyés à c.example : api_key');
    for (const w of words) expect(w).not.toMatch(/change\.|reach\.|New |removed/);
  });
  test('an action is worded by its hint when the review has one', () => {
    expect(changeWords(t, every[4], (n) => (n === 'history' ? 'read past rates' : n))).toBe('New action: “read past rates” (reads public data)');
  });
});

describe('call outcomes and the journal', () => {
  test('a failed call in words, by its family (issue 33)', () => {
    expect(familyWords(t, 'key_refused', null)).toBe('the service refused the key. Check it in Options.');
    expect(familyWords(t, 'service_down', null)).toBe('the service has a problem right now. Try again later.');
    expect(familyWords(t, 'service_error', null)).toBe('the service answered with an error.');
    expect(familyWords(t, 'network', null)).toBe('the service could not be reached. Check your connection, or start the program on this PC.');
    expect(familyWords(t, 'refused', 'needs_setup')).toBe('it was refused: settings are missing.');
    expect(familyWords(t, 'network_rule', null)).toBe('the request broke a network rule.');
    // A code this version has no family for is shown as it is.
    expect(familyWords(t, null, null, 'SOMETHING_NEW')).toBe('it failed (SOMETHING_NEW).');
    expect(familyWords(t, undefined, null)).toBe('it failed (?).');
  });
  test('journal outcomes: done; failed with its code; refused with its reason; received; dropped', () => {
    expect(outcomeText(t, { outcome: 'done', code: null })).toBe('done');
    expect(outcomeText(t, { outcome: 'failed', code: 'HTTP_404' })).toBe('failed (HTTP_404)');
    expect(outcomeText(t, { outcome: 'refused', code: 'stream_private' })).toBe('refused: paused while live on Twitch');
    expect(outcomeText(t, { outcome: 'refused', code: 'event_off' })).toBe('refused: the event is switched off');
    expect(outcomeText(t, { outcome: 'received', code: null })).toBe('received');
    expect(outcomeText(t, { outcome: 'dropped', code: 'event_expired' })).toBe('dropped: waited too long');
    expect(outcomeText(tf, { outcome: 'refused', code: 'twitch_quota' })).toBe('refusé : le chat Twitch a déjà utilisé sa seule action');
    expect(reasonWords(t, 'brand_new')).toBe('refused (brand_new)');
  });
  test('who asked', () => {
    expect(['voice', 'keyboard', 'twitch', 'auto', 'event', 'mcp'].map((w) => whoText(t, w)))
      .toEqual(['Voice', 'Typed', 'Twitch chat', 'On its own', 'An event', 'Another AI app']);
    expect(['voice', 'keyboard', 'twitch', 'auto', 'event', 'mcp'].map((w) => whoText(tf, w)))
      .toEqual(['Voix', 'Écrit', 'Chat Twitch', 'De lui-même', 'Un événement', "Une autre app d'IA"]);
  });
  test('an event line says it is an event; a call of an event turn is a call (§16, §22 not_requested)', () => {
    expect(journalAction(t, { action: 'focus_done', kind: 'event' })).toBe('event: focus_done');
    expect(journalAction(t, { action: 'convert', kind: 'call' })).toBe('convert');
  });
  test('issue 23: an event refused before its name was read shows "event", never "event: -"', () => {
    expect(journalAction(t, { action: '-', kind: 'event' })).toBe('event');
    expect(journalAction(tf, { action: '-', kind: 'event' })).toBe('événement');
    expect(journalAction(t, { action: '', kind: 'event' })).toBe('event');
    // A call's action is its name, whatever it is.
    expect(journalAction(t, { action: '-', kind: 'call' })).toBe('-');
  });
  test('issue 23: the door\'s refusals the journal keeps each have words', () => {
    for (const code of ['bad_token', 'invalid_json', 'missing_event', 'text_too_long', 'unknown_event', 'event_off', 'plugin_off', 'dev_mode_off', 'rate_limited']) {
      expect(reasonWords(t, code), code).not.toContain(code);
      expect(reasonWords(tf, code), code).not.toBe(reasonWords(t, code));
    }
  });
  test('local readable time: the time today, the date otherwise', () => {
    const now = new Date(2026, 5, 15, 18, 0, 0);
    expect(formatTime(new Date(2026, 5, 15, 14, 5, 9).getTime(), 'en-GB', now)).toBe('14:05:09');
    expect(formatTime(new Date(2026, 5, 3, 9, 1, 2).getTime(), 'en-GB', now)).toBe('3 Jun 09:01:02');
    expect(formatTime(new Date(2025, 11, 24, 9, 1, 2).getTime(), 'en-GB', now)).toBe('24 Dec 2025 09:01:02');
  });
});

test('dates use the system locale when it is a variant of the player\'s language', () => {
  expect(timeLocale('en', 'en-GB')).toBe('en-GB');
  expect(timeLocale('fr', 'en-GB')).toBe('fr');
  expect(timeLocale('fr', 'fr-CA')).toBe('fr-CA');
});

describe('the door in words', () => {
  test('each state', () => {
    expect(doorWords(t, { wanted: 'open', port: 8440, address: '127.0.0.1:8440', state: { state: 'listening', port: 8440 } })).toBe('Waiting for events');
    expect(doorWords(t, { wanted: 'dev_mode_off', port: 8440, address: '127.0.0.1:8440' })).toBe('Off: developer mode is off');
    expect(doorWords(t, { wanted: 'no_event_on', port: 8440, address: '127.0.0.1:8440' })).toBe('Off: no event is switched on');
    expect(doorWords(t, { wanted: 'open', port: 8440, address: '127.0.0.1:8440', state: { state: 'port_taken', port: 8440 } })).toBe('Port 8440 is used by another program. Close that program: the app tries again by itself.');
    expect(doorWords(t, { wanted: 'open', port: 8440, address: '127.0.0.1:8440', state: { state: 'port_taken', port: 8440 }, held_by_a_door: false })).toBe('Port 8440 is used by another program. Close that program: the app tries again by itself.');
  });
  test('a port held by another event door says so (issue 23): that door takes the events', () => {
    const door = { wanted: 'open', port: 8440, address: '127.0.0.1:8440', state: { state: 'port_taken', port: 8440 }, held_by_a_door: true } as const;
    expect(doorWords(t, door)).toBe('Port 8440 is used by another event door (dcplugin serve, or this app open with another profile), which receives the events instead. Post them there, or close it: the app tries again by itself.');
    expect(doorWords(tf, door)).toContain('autre porte d\'événements');
  });
});

describe('My plugins filters and search', () => {
  const mk = (slug: string, name: string, enabled: boolean, author: string | null = null) =>
    ({ slug, name, enabled, author, description: null } as Pick<Card, 'slug' | 'name' | 'author' | 'enabled' | 'description'>);
  const cards = [mk('fx', 'Exchange rates', true, 'Ada'), mk('todo', 'My Tasks', false, 'Desktop Companion'), mk('w', 'Weather', true)];
  const slugs = (l: { slug: string }[]) => l.map((c) => c.slug);
  test('All, Enabled, Disabled, Updates', () => {
    expect(slugs(filterCards(cards, 'all', '', new Set()))).toEqual(['fx', 'todo', 'w']);
    expect(slugs(filterCards(cards, 'enabled', '', new Set()))).toEqual(['fx', 'w']);
    expect(slugs(filterCards(cards, 'disabled', '', new Set()))).toEqual(['todo']);
    expect(slugs(filterCards(cards, 'updates', '', new Set(['todo'])))).toEqual(['todo']);
  });
  test('search by name, author or ID, ignoring case, with a filter', () => {
    expect(slugs(filterCards(cards, 'all', 'ADA', new Set()))).toEqual(['fx']);
    expect(slugs(filterCards(cards, 'all', ' tasks ', new Set()))).toEqual(['todo']);
    expect(slugs(filterCards(cards, 'enabled', 'tasks', new Set()))).toEqual([]);
    expect(slugs(filterCards(cards, 'all', 'w', new Set()))).toEqual(['w']);
  });
  test('a letter tile picks one of eight fixed colour classes', () => {
    expect(tileClass('fx')).toMatch(/^tile-[0-7]$/);
    expect(tileClass('fx')).toBe(tileClass('fx'));
  });
});
