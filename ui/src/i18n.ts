// Every text of the window, by language. English and French are complete;
// the other languages of §10 fall back to English key by key.
import { en } from './locales/en';
import { fr } from './locales/fr';
import { own } from './own';

export type Key = keyof typeof en;
export type Params = Record<string, string | number>;
export type Translate = (key: Key, params?: Params) => string;

/** The languages of §10, with their own names. */
export const LANGUAGES: [string, string][] = [
  ['en', 'English'], ['fr', 'Français'], ['de', 'Deutsch'], ['es', 'Español'], ['it', 'Italiano'],
  ['pt', 'Português'], ['ja', '日本語'], ['ru', 'Русский'], ['zh', '中文'], ['ko', '한국어'],
];

const TABLES: Record<string, Partial<Record<Key, string>>> = { en, fr };

/** The texts of a language: its own, else English. */
export function table(language: string): Partial<Record<Key, string>> {
  return own(TABLES, language) ?? {};
}

export function format(text: string, params?: Params): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** The text of `key` in `texts`: for a numeric `count`, its plural form for that count by the
 *  language's rules (`key_one`, `key_few`, `key_many`… beside `key`, the other form), else `key`'s. */
function pick(texts: Partial<Record<Key, string>>, rules: Intl.PluralRules, key: Key, count: unknown): string | undefined {
  const form = typeof count === 'number' ? own(texts, `${key}_${rules.select(count)}`) : undefined;
  return form ?? own(texts, key);
}

/** The plural rules of `language`; English's for a tag Intl cannot read (it comes from the profile). */
function pluralRules(language: string): Intl.PluralRules {
  try { return new Intl.PluralRules(language); } catch { return new Intl.PluralRules('en'); }
}

/** A translate function for `language`, falling back to English (with English plural rules). A
 *  `count` parameter picks the plural form (Intl.PluralRules): French's "one" is 0 and 1, English's 1. */
export function translator(language: string): Translate {
  const texts = table(language);
  const rules = pluralRules(language);
  const english = new Intl.PluralRules('en');
  return (key, params) => format(pick(texts, rules, key, params?.count) ?? pick(en, english, key, params?.count) ?? key, params);
}
