import { describe, expect, test } from 'vitest';
import { LANGUAGES, format, translator } from '../../src/i18n';
import { en } from '../../src/locales/en';
import { fr } from '../../src/locales/fr';

describe('translation tables', () => {
  test('every English key exists in French, and French has no extra key', () => {
    expect(Object.keys(fr).sort()).toEqual(Object.keys(en).sort());
  });
  test('no French text is empty, and each keeps the placeholders of its English text', () => {
    for (const [key, text] of Object.entries(en)) {
      const french = fr[key as keyof typeof en];
      expect(french.trim(), key).not.toBe('');
      const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(names(french), key).toEqual(names(text));
    }
  });
  test('the ten languages of §10 are offered, each named in itself', () => {
    expect(LANGUAGES.map(([c]) => c)).toEqual(['en', 'fr', 'de', 'es', 'it', 'pt', 'ja', 'ru', 'zh', 'ko']);
    expect(LANGUAGES.map(([, name]) => name)).toEqual(
      ['English', 'Français', 'Deutsch', 'Español', 'Italiano', 'Português', '日本語', 'Русский', '中文', '한국어']);
  });
  test('French texts come from the French table', () => {
    const t = translator('fr');
    expect(t('tab.mine')).toBe('Mes plugins');
    expect(t('line.talks', { port: 8420 })).toBe('Communique avec un programme de ce PC (port 8420)');
  });
  test('the other languages fall back to English, key by key', () => {
    for (const lang of ['de', 'es', 'it', 'pt', 'ja', 'ru', 'zh', 'ko', 'xx']) {
      const t = translator(lang);
      expect(t('tab.catalog')).toBe('Catalog');
      expect(t('card.by', { author: 'Ada' })).toBe('by Ada');
    }
  });
  test('issue 23: a count picks its plural form by the language\'s rules: "1 plugin sur 3", "0 plugin", "2 plugins"', () => {
    const tf = translator('fr');
    expect(tf('mine.count', { count: 1, total: 3 })).toBe('1 plugin sur 3');
    expect(tf('mine.count', { count: 0, total: 3 })).toBe('0 plugin sur 3');
    expect(tf('mine.count', { count: 2, total: 3 })).toBe('2 plugins sur 3');
    const te = translator('en');
    expect(te('card.failing', { count: 1, words: 'x' })).toBe('Its last call failed: x');
    expect(te('card.failing', { count: 0, words: 'x' })).toBe('Its last 0 calls failed: x');
    // A language without its own table: English texts with English rules.
    expect(translator('de')('card.failing', { count: 1, words: 'x' })).toBe('Its last call failed: x');
    // No count, or a count that is not a number: the key's own text.
    expect(tf('card.failing', { words: 'x' })).toBe('Ses {count} derniers appels ont échoué : x');
    expect(tf('mine.count', { count: '1', total: 3 })).toBe('1 plugins sur 3');
  });
  test('every plural form has its base key (the other form)', () => {
    for (const key of ['mine.count_one', 'card.failing_one']) {
      expect(Object.hasOwn(en, key), key).toBe(true);
      expect(Object.hasOwn(en, key.replace(/_one$/, '')), key).toBe(true);
    }
  });
  test('format fills the named placeholders and leaves unknown ones', () => {
    expect(format('{a} and {b}', { a: 1 })).toBe('1 and {b}');
  });
  test('issue 20: a name of Object.prototype is no placeholder, no text and no language', () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) {
      expect(format(`{${name}}`, {}), name).toBe(`{${name}}`);
      expect(translator('en')(name as keyof typeof en), name).toBe(name);
      expect(translator(name)('tab.catalog'), name).toBe('Catalog');
    }
  });
});
