# shellcheck shell=bash
# The app (src-tauri) for Windows, cross-built on this Linux machine (issue
# 35): `scripts/build-windows --app` sources this after its own set-up (mingw,
# the rustup target) and calls windows_app. Needs setup.sh sourced first.
#
# The .exe is `cargo build -p dcp-app` for the Windows target, with the UI
# built into ui/dist first (the binary embeds it). Its DLL imports are checked
# against mingw's runtime DLLs, which a player's Windows does not have.
#
# The installer is the bundler's NSIS target (tauri.conf.json, bundle.targets
# and bundle.windows), made by the @tauri-apps/cli of ui/package.json as
# scripts/lib/deb.sh makes the .deb. On Linux the bundler runs Debian's
# makensis, and it needs one more file that it downloads itself from Tauri's
# GitHub releases and that no package registry carries: its NSIS plugin
# nsis_tauri_utils.dll, looked for in its cache (nsis_plugin below) and
# checked there against the SHA-1 built into the bundler. Where that file is
# missing (this machine reaches package registries only) the installer is
# not built, and this says so and what to run instead: the script never
# downloads or ships a prebuilt binary. The WebView2 runtime is not needed
# here: the installer downloads Microsoft's bootstrapper when it runs on the
# player's machine (webviewInstallMode downloadBootstrapper).

# shellcheck source=scripts/lib/ui-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/ui-build.sh"

# Where the bundler looks for its NSIS plugin on Linux (its cache folder).
nsis_plugin="${XDG_CACHE_HOME:-$HOME/.cache}/tauri/NSIS/Plugins/x86-unicode/additional/nsis_tauri_utils.dll"

# windows_dll_check EXE: fails unless every DLL that EXE imports is part of
# Windows, or WebView2's loader found beside it. A mingw runtime DLL
# (libgcc_s_seh-1.dll, libstdc++-6.dll, libwinpthread-1.dll) would stop the
# program at start on a player's machine, where nothing installs them.
windows_dll_check() {
  local exe="$1" imports dll
  imports="$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^[[:space:]]*DLL Name: //p')"
  [ -n "$imports" ] || die "no DLL imports read from $exe (objdump -p)."
  while IFS= read -r dll; do
    case "${dll,,}" in
      lib*.dll) die "$exe imports $dll, a mingw runtime DLL that Windows does not have." ;;
    esac
  done <<<"$imports"
  # With the GNU toolchain the WebView2 loader is a DLL of its own (MSVC links
  # it in): webview2-com-sys puts it beside the .exe, and the bundler's NSIS
  # installer carries it for -gnu targets.
  case "$imports" in
    *WebView2Loader.dll*)
      [ -f "$(dirname "$exe")/WebView2Loader.dll" ] \
        || die "$exe imports WebView2Loader.dll and there is none beside it."
      echo "$(basename "$exe") needs the WebView2Loader.dll beside it" ;;
  esac
  echo "$(basename "$exe") imports only Windows DLLs and WebView2's loader: $(sort -u <<<"$imports" | tr '\n' ' ')"
}

# windows_app BUILD_DIR TRIPLE: builds the app's .exe into BUILD_DIR/TRIPLE/debug
# and, when the bundler's NSIS plugin is there, its installer into
# BUILD_DIR/TRIPLE/debug/bundle/nsis; prints where each one is.
windows_app() {
  local build_dir="$1" triple="$2"
  local out="$build_dir/$triple/debug" started=$SECONDS
  say "The app for Windows: the UI, then cargo build -p dcp-app --target $triple --locked"
  # makensis: the bundler's NSIS compiler on Linux.
  ensure_packages nsis
  ui_build
  CARGO_TARGET_DIR="$build_dir" cargo build -p dcp-app --target "$triple" --locked
  local exe="$out/dcp-app.exe"
  [ -f "$exe" ] || die "no dcp-app.exe at $exe after the build."

  windows_dll_check "$exe"
  say "The app's .exe is $exe (built in $((SECONDS - started)) s)"

  if [ ! -f "$nsis_plugin" ]; then
    say "The installer is NOT built: the bundler's NSIS plugin is missing"
    cat <<EOF
Tauri's bundler makes the NSIS installer on Linux with Debian's makensis and
its own plugin nsis_tauri_utils.dll, which it downloads from Tauri's GitHub
releases into $nsis_plugin
and checks by its SHA-1. No package registry carries that file, and this
machine reaches package registries only. On a machine that reaches GitHub,
run (it downloads the plugin itself, then builds the installer):
  CARGO_TARGET_DIR=$build_dir ui/node_modules/.bin/tauri build --debug --target $triple --bundles nsis --ci -- --locked
or, on Windows, from ui/: npx tauri build --bundles nsis
(see docs/development.md, "Windows").
EOF
    return 0
  fi

  say "The installer: tauri build --debug --target $triple --bundles nsis (the app above is up to date)"
  local cli="$PWD/ui/node_modules/.bin/tauri" bundle_dir="$out/bundle/nsis"
  [ -x "$cli" ] || die "no $cli: ui_build installs Tauri's command line (npm ci in ui/)."
  # Only this build's installer is left there, so it is the one printed.
  rm -rf "$bundle_dir"
  CARGO_TARGET_DIR="$build_dir" "$cli" build --debug --target "$triple" --bundles nsis --ci -- --locked
  local installers=("$bundle_dir"/*-setup.exe)
  [ -f "${installers[0]}" ] || die "the bundler made no installer in $bundle_dir"
  say "The installer is ${installers[0]} (app and installer in $((SECONDS - started)) s)"
}
