// Lookups in the window's own tables (texts, categories) by a string that came from
// outside: a plugin's key or the host's code may be `constructor`, `toString` or
// `__proto__`, which a plain `table[key]` finds on Object.prototype.

/** `table[key]` when the table itself has `key`, else undefined. */
export function own<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
