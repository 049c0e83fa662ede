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

/** A translate function for `language`, falling back to English. */
export function translator(language: string): Translate {
  const texts = table(language);
  return (key, params) => format(own(texts, key) ?? own(en, key) ?? key, params);
}
