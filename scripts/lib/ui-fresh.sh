# shellcheck shell=bash
# Whether ui/dist is the build of the UI's sources as they are now, so that a
# second build is skipped: rewriting ui/dist gives its files new dates, and the
# app binary, which embeds them, is compiled again (half a minute) although
# nothing changed. Sourced by ui-build.sh and ui-tests.sh.
#
# The stamp lives in ui/node_modules, which `npm ci` empties: new packages
# mean a new build.

# ui_dist_fresh UI_DIR: true when UI_DIR/dist/index.html exists and no source
# of the build (src/, index.html, package files, the Vite and TypeScript
# configs) is newer than the last successful build.
ui_dist_fresh() {
  local ui="$1" stamp="$1/node_modules/.dcp-dist-built" newer
  [ -f "$stamp" ] && [ -f "$ui/dist/index.html" ] || return 1
  newer="$(find "$ui/src" "$ui/index.html" "$ui/package.json" "$ui/package-lock.json" \
    "$ui/vite.config.ts" "$ui/tsconfig.json" -newer "$stamp" -print -quit)" || return 1
  [ -z "$newer" ]
}

# ui_mark_built UI_DIR: records a successful build of the sources as they are.
ui_mark_built() {
  touch "$1/node_modules/.dcp-dist-built"
}
