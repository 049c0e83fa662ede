// Every text of the window, by language. English and French are complete;
// the other languages of §10 fall back to English key by key.
import { en } from './locales/en';
import { fr } from './locales/fr';
import { own } from './own';
import { LanguageValues } from './bindings/values';
import type { Language } from './types';

export type Key = keyof typeof en;
export type Params = Record<string, string | number>;
export type Translate = (key: Key, params?: Params) => string;

/** A language's name in itself ("Français"), from the system's own data, its first letter a
 *  capital as a list shows it; the code itself where the system has no name for it. */
export function ownName(language: Language): string {
  let name: string | undefined;
  try { name = new Intl.DisplayNames([language], { type: 'language' }).of(language); } catch { name = undefined; }
  if (!name || name === language) return language;
  return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
}

/** The languages of §10 (the host's list), each with its own name. */
export const LANGUAGES: [Language, string][] = LanguageValues.map((code) => [code, ownName(code)]);

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
