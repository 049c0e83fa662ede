# shellcheck shell=bash
# The app's Debian package, made by Tauri's bundler (the @tauri-apps/cli of
# ui/package.json) from src-tauri/tauri.conf.json: source it after setup.sh
# and ui-build.sh, run ui_build first, then `deb=$(build_deb debug|release)`.
# The package's desktop entry is src-tauri/linux/desktop-entry.hbs.

# build_deb PROFILE: builds the app in PROFILE (cargo's, through the
# bundler) and its .deb; prints the package's path.
build_deb() {
  local profile="$1" flags=()
  case "$profile" in
    debug) flags=(--debug) ;;
    release) ;;
    *) die "build_deb: unknown profile $profile (debug or release)" ;;
  esac
  local cli="$PWD/ui/node_modules/.bin/tauri"
  [ -x "$cli" ] || die "no $cli: run ui_build first (npm ci in ui/ installs Tauri's command line)"
  local out="${CARGO_TARGET_DIR:-$PWD/target}/$profile/bundle/deb"
  # Only this build's package is left there, so it is the one printed.
  rm -rf "$out"
  # The bundler's own messages go to stderr: stdout is the path alone.
  "$cli" build "${flags[@]}" --bundles deb --ci -- --locked >&2
  local debs=("$out"/*.deb)
  [ -f "${debs[0]}" ] || die "the bundler made no .deb in $out"
  printf '%s\n' "${debs[0]}"
}
