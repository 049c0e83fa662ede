# shellcheck shell=bash
# Builds the settings panel's UI into ui/dist, which the app binary embeds at
# compile time (tauri.conf.json frontendDist): source it after setup.sh, then
# call ui_build before any cargo build of dcp-app.
#
# Node and npm come from the distribution's packages when missing. `npm ci`
# runs only when ui/node_modules is missing or older than package-lock.json,
# so a second build starts at once; `npm run build` runs only when a source
# changed since the last build (ui-fresh.sh), so the app is not compiled again
# for nothing.

# shellcheck source=scripts/lib/ui-fresh.sh
source "$(dirname "${BASH_SOURCE[0]}")/ui-fresh.sh"

ensure_node() {
  if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    echo "node: $(node --version), npm: $(npm --version)"
    return 0
  fi
  ensure_packages nodejs npm
}

ui_build() {
  # The scripts that source this run from the repository's root.
  local ui="$PWD/ui"
  [ -f "$ui/package.json" ] || die "no $ui/package.json: the UI cannot be built."
  ensure_node
  if [ ! -d "$ui/node_modules" ] || [ "$ui/package-lock.json" -nt "$ui/node_modules" ]; then
    say "Installing the UI's packages: npm ci (in ui/)"
    (cd "$ui" && npm ci --no-audit --no-fund)
    # npm ci may leave the folder's date alone: mark it as up to date with the lock file.
    touch "$ui/node_modules"
  fi
  if ui_dist_fresh "$ui"; then
    say "The UI is up to date (no source changed since ui/dist was built): not built again"
    return 0
  fi
  say "Building the UI: npm run build (in ui/)"
  (cd "$ui" && npm run build)
  [ -f "$ui/dist/index.html" ] || die "npm run build made no ui/dist/index.html."
  ui_mark_built "$ui"
}
