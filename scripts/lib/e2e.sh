#!/usr/bin/env bash
# usage: scripts/lib/e2e.sh [--no-build] [--update-screenshots]
#
# End-to-end tests of the real app window, headless: the dcp-app binary driven
# by WebDriver (tauri-driver -> WebKitWebDriver) under Xvfb, on a private D-Bus
# session with GNOME Keyring unlocked in it, with throwaway profiles
# (DCPLUGIN_PROFILE) and HOME/XDG folders in a temporary folder: nothing of
# the user's own profile, keyrings or desktop is read or touched.
#
# On a fresh Debian machine it installs what it needs: the Debian packages
# (Xvfb, webkit2gtk-driver, D-Bus, GNOME Keyring; xdotool and Python's GTK
# for the drag-and-drop test's pointer and file source), tauri-driver (cargo install
# from crates.io into ~/.cargo/bin) and the test's npm packages (npm ci in
# tests/e2e). Then it builds the UI, the app (a test-net build: its network
# test hooks let the Twitch chat reach the loopback server for Twitch's real
# name, issue 36), dcplugin, scripted-ai (the companion's AI in the tests) and
# twitch-like (the Twitch chat's server; skipped with --no-build: the
# binaries in target/debug are used as they are), starts the local-server example on
# 127.0.0.1:8420, runs tests/e2e/run.mjs (which starts the Exchange rates
# plugin's loopback HTTPS site too, its certificates made with openssl), and stops
# everything it started. Screenshots go to the build folder's
# e2e-screenshots/ (target/, or CARGO_TARGET_DIR), so a run leaves the clone
# as it found it (issue 32: each run rewrote the tracked PNGs, pixel noise);
# --update-screenshots copies them over docs/screenshots/ after a run that
# passed. The last line is `N passed, N failed`; the exit status is non-zero
# on any failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPO=$(pwd)
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh

BUILD=1
UPDATE_SHOTS=0
for arg in "$@"; do
  case "$arg" in
    --no-build) BUILD=0 ;;
    --update-screenshots) UPDATE_SHOTS=1 ;;
    *) die "e2e.sh: unknown argument $arg (usage: scripts/lib/e2e.sh [--no-build] [--update-screenshots])" ;;
  esac
done

# Any failure before the tests ran still ends with the summary line.
SUMMARY_PRINTED=0
fail_early() {
  printf '\nERROR: %s\n' "$*" >&2
  echo "0 passed, 1 failed"
  SUMMARY_PRINTED=1
  exit 1
}

# ------------------------------------------------------------ what it needs
E2E_PACKAGES=(xvfb xauth webkit2gtk-driver dbus-daemon dbus-bin dbus-x11 gnome-keyring python3 xdotool python3-gi gir1.2-gtk-3.0)
ensure_packages "${E2E_PACKAGES[@]}" || fail_early "could not install ${E2E_PACKAGES[*]}"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
  || ensure_packages nodejs npm || fail_early "could not install nodejs and npm"

export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v tauri-driver >/dev/null 2>&1; then
  say "Installing tauri-driver (cargo install tauri-driver --locked)"
  # Its own build folder, removed afterwards: not the project's target/.
  td_target=$(mktemp -d)
  CARGO_TARGET_DIR="$td_target" cargo install tauri-driver --locked \
    || { rm -rf "$td_target"; fail_early "cargo install tauri-driver failed"; }
  rm -rf "$td_target"
fi
TAURI_DRIVER=$(command -v tauri-driver)

# npm ci when node_modules is missing or older than the lock file.
if [ ! -f tests/e2e/node_modules/.package-lock.json ] \
  || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]; then
  say "Installing the e2e test's npm packages (npm ci in tests/e2e)"
  (cd tests/e2e && npm ci --no-audit --no-fund) || fail_early "npm ci in tests/e2e failed"
fi

# -------------------------------------------------------------------- build
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}"
if [ "$BUILD" = 1 ]; then
  say "Building the UI (scripts/lib/ui-build.sh)"
  [ -f scripts/lib/ui-build.sh ] || fail_early "scripts/lib/ui-build.sh is missing"
  # shellcheck source=scripts/lib/ui-build.sh
  source scripts/lib/ui-build.sh
  ui_build || fail_early "the UI build failed"
  say "Building the app: cargo build -p dcp-app --locked --features test-net"
  cargo build -p dcp-app --locked --features test-net || fail_early "cargo build -p dcp-app --features test-net failed"
  say "Building dcplugin: cargo build -p dcplugin --locked"
  cargo build -p dcplugin --locked || fail_early "cargo build -p dcplugin failed"
  say "Building the scripted AI: cargo build -p scripted-ai --locked"
  cargo build -p scripted-ai --locked || fail_early "cargo build -p scripted-ai failed"
  say "Building the Twitch-like server: cargo build -p twitch-like --locked"
  cargo build -p twitch-like --locked || fail_early "cargo build -p twitch-like failed"
fi
# E2E_APP_BIN / E2E_DCPLUGIN_BIN: other binaries to test (with --no-build).
APP="${E2E_APP_BIN:-$TARGET_DIR/debug/dcp-app}"
DCPLUGIN="${E2E_DCPLUGIN_BIN:-$TARGET_DIR/debug/dcplugin}"
SCRIPTED_AI="$TARGET_DIR/debug/scripted-ai"
TWITCH_LIKE="$TARGET_DIR/debug/twitch-like"
[ -x "$APP" ] || fail_early "$APP is missing (build it, or run without --no-build)"
[ -x "$DCPLUGIN" ] || fail_early "$DCPLUGIN is missing (build it, or run without --no-build)"
[ -x "$SCRIPTED_AI" ] || fail_early "$SCRIPTED_AI is missing (build it, or run without --no-build)"
[ -x "$TWITCH_LIKE" ] || fail_early "$TWITCH_LIKE is missing (build it, or run without --no-build)"
# The Exchange rates plugin's loopback site (tests/e2e/plugin-server.mjs) makes its certificates with it.
command -v openssl >/dev/null || fail_early "openssl is missing (the plugin site's test certificates need it: apt-get install openssl)"

# ---------------------------------------------------------- scratch + cleanup
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/dcp-e2e.XXXXXX")
RUN_PID=""
XVFB_PID=""
SERVER_PID=""
# shellcheck disable=SC2317 # reached through the EXIT trap below
cleanup() {
  local rc=$?
  set +e
  # The test run is its own process group (setsid): tauri-driver,
  # WebKitWebDriver, the app windows, dbus-daemon, gnome-keyring-daemon.
  if [ -n "$RUN_PID" ]; then
    kill -TERM -- "-$RUN_PID" 2>/dev/null
    sleep 0.5
    kill -KILL -- "-$RUN_PID" 2>/dev/null
  fi
  # gnome-keyring-daemon --daemonize leaves the group; find it by its
  # environment's scratch folder, never by name alone.
  for pid in $(pgrep -f gnome-keyring-daemon 2>/dev/null); do
    environ=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null || true)
    if grep -q "^XDG_RUNTIME_DIR=$SCRATCH/" <<<"$environ"; then
      kill -KILL "$pid" 2>/dev/null
    fi
  done
  [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null
  [ -n "$XVFB_PID" ] && kill -TERM "$XVFB_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$SCRATCH"
  if [ "$SUMMARY_PRINTED" = 0 ] && [ "$rc" -ne 0 ]; then echo "0 passed, 1 failed"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$SCRATCH/home" "$SCRATCH/config" "$SCRATCH/data" "$SCRATCH/cache" "$SCRATCH/state" "$SCRATCH/tmp"
mkdir -m 700 "$SCRATCH/run"

# ------------------------------------------------------------------ display
say "Starting Xvfb"
exec 3>"$SCRATCH/display"
Xvfb -displayfd 3 -screen 0 1280x900x24 -nolisten tcp -noreset >"$SCRATCH/xvfb.log" 2>&1 &
XVFB_PID=$!
exec 3>&-
for _ in $(seq 100); do [ -s "$SCRATCH/display" ] && break; sleep 0.1; done
[ -s "$SCRATCH/display" ] || { cat "$SCRATCH/xvfb.log" >&2; fail_early "Xvfb did not start"; }
DISPLAY_NUM=":$(head -n1 "$SCRATCH/display")"
echo "Xvfb on display $DISPLAY_NUM"

# ------------------------------------------------- the local-server example
LOCAL_SERVER_DIR="$SCRATCH/local-server"
cp -r plugins-examples/local-server "$LOCAL_SERVER_DIR"
rm -f "$LOCAL_SERVER_DIR/token.txt" "$LOCAL_SERVER_DIR/notes.txt"
if (exec 9<>/dev/tcp/127.0.0.1/8420) 2>/dev/null; then
  fail_early "something already listens on 127.0.0.1:8420, the port the local-server example declares; stop it first"
fi
say "Starting the local-server example on 127.0.0.1:8420"
(cd "$LOCAL_SERVER_DIR" && exec python3 server.py --port 8420) >"$SCRATCH/local-server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do
  if [ -s "$LOCAL_SERVER_DIR/token.txt" ] && (exec 9<>/dev/tcp/127.0.0.1/8420) 2>/dev/null; then break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
(exec 9<>/dev/tcp/127.0.0.1/8420) 2>/dev/null \
  || { cat "$SCRATCH/local-server.log" >&2; fail_early "the local-server example did not start"; }

# ---------------------------------------------------------------- the tests
# Inside a private session bus: GNOME Keyring with a throwaway password (as
# scripts/lib/with-keyring.sh), then the suite. Its output is the last thing
# printed, ending with `N passed, N failed`.
cat >"$SCRATCH/inner.sh" <<'EOF'
set -u
printf '%s' "dcp-e2e-only" | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null 2>&1
for _ in $(seq 50); do
  owner=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null || true)
  case "$owner" in *'boolean true'*) break ;; esac
  sleep 0.1
done
cd "$E2E_REPO/tests/e2e"
exec node run.mjs
EOF

say "Running the end-to-end suite (tests/e2e/run.mjs)"
# This run's screenshots only: none left from an earlier run.
SHOTS="$TARGET_DIR/e2e-screenshots"
rm -rf "$SHOTS" "$TARGET_DIR/e2e-failures"
mkdir -p "$SHOTS"
echo "screenshots go to $SHOTS"
set +e
env -i \
  PATH="$(dirname "$TAURI_DRIVER"):$(dirname "$(command -v node)"):/usr/local/bin:/usr/bin:/bin" \
  HOME="$SCRATCH/home" LANG=C.UTF-8 LC_ALL=C.UTF-8 TMPDIR="$SCRATCH/tmp" \
  XDG_CONFIG_HOME="$SCRATCH/config" XDG_DATA_HOME="$SCRATCH/data" XDG_CACHE_HOME="$SCRATCH/cache" \
  XDG_STATE_HOME="$SCRATCH/state" XDG_RUNTIME_DIR="$SCRATCH/run" \
  DISPLAY="$DISPLAY_NUM" \
  E2E_ONLY="${E2E_ONLY:-}" E2E_APP="$APP" E2E_DCPLUGIN="$DCPLUGIN" E2E_SCRIPTED_AI="$SCRIPTED_AI" E2E_TWITCH_LIKE="$TWITCH_LIKE" E2E_REPO="$REPO" E2E_TMP="$SCRATCH/tmp" \
  E2E_SHOTS="$SHOTS" E2E_FAILS="$TARGET_DIR/e2e-failures" E2E_LOCAL_SERVER_DIR="$LOCAL_SERVER_DIR" \
  setsid timeout -k 10 900 dbus-run-session -- bash "$SCRATCH/inner.sh" 2>"$SCRATCH/stderr.log" &
RUN_PID=$!
wait "$RUN_PID"
status=$?
RUN_PID_DONE=$RUN_PID
set -e
if [ "$status" -ne 0 ]; then
  # Kept for a look after the scratch folder is gone: the run's stderr (the
  # app's and WebKit's messages), tauri-driver's and the local server's logs.
  mkdir -p "$TARGET_DIR/e2e-failures"
  cp "$SCRATCH/stderr.log" "$SCRATCH/local-server.log" "$TARGET_DIR/e2e-failures/" 2>/dev/null || true
  cp "$SCRATCH"/tmp/tauri-driver-*.log "$TARGET_DIR/e2e-failures/" 2>/dev/null || true
fi
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
  echo "--- last lines of the run's stderr ---" >&2
  tail -n 30 "$SCRATCH/stderr.log" >&2
fi
# The suite printed its own `N passed, N failed` (exit 0 or 1); anything else
# (a crash, the 15-minute timeout) did not.
if [ "$status" -eq 0 ] || [ "$status" -eq 1 ]; then SUMMARY_PRINTED=1; fi
# Only a whole, passing run's screens replace the documented ones. Said on
# stderr: the summary stays the last line of the output.
if [ "$UPDATE_SHOTS" = 1 ]; then
  if [ "$status" -eq 0 ]; then
    mkdir -p docs/screenshots
    cp "$SHOTS"/*.png docs/screenshots/
    echo "docs/screenshots/ updated from $SHOTS (review them with git diff before a commit)" >&2
  else
    echo "docs/screenshots/ not updated: the run failed" >&2
  fi
fi
# Whatever is left of the run's process group (nothing, normally).
kill -KILL -- "-$RUN_PID_DONE" 2>/dev/null || true
RUN_PID=""
exit "$status"
