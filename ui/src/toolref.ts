// A tool's full name, `<slug>__<tool>` (§6), joined and split in one place:
// the window's twin of the host's `ToolRef`. A slug has no `_`, so the first
// `__` ends it; the tool's own name may hold `__`.

const SEPARATOR = '__';

/** The full name of the tool `tool` of the plugin `slug`. */
export function toolRef(slug: string, tool: string): string {
  return `${slug}${SEPARATOR}${tool}`;
}

/** The plugin's slug in a full tool name (the whole text when it has no `__`). */
export function slugOf(full: string): string {
  const at = full.indexOf(SEPARATOR);
  return at < 0 ? full : full.slice(0, at);
}

/** The tool's own name in a full tool name (the whole text when it has no `__`). */
export function toolName(full: string): string {
  const at = full.indexOf(SEPARATOR);
  return at < 0 ? full : full.slice(at + SEPARATOR.length);
}
