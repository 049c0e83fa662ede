#!/usr/bin/env bash
# Checks scripts/install-desktop-entry in a throwaway XDG_DATA_HOME: the
# entry passes desktop-file-validate, offers the app for the file types of
# tauri.conf.json with every chosen file (%F), points at the binary even
# through a folder with a space in its name, makes no program the default,
# leaves the program that opened JSON files before as their default, and
# --remove takes it away. Usage: desktop-entry-check.sh BINARY
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh
ensure_packages desktop-file-utils xdg-utils libglib2.0-bin

binary="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/my apps"
ln -s "$binary" "$work/my apps/dcp-app"

fail() { echo "desktop entry: $*" >&2; exit 1; }
# The programs GLib offers for JSON files, the default first. Read whole,
# then matched: a reader that stops early would kill gio with SIGPIPE.
json_apps() { gio mime application/json; }
editor_default='Default application for “application/json”: editor.desktop'
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" XDG_DATA_DIRS=/usr/share
# An editor that opens JSON files now, with no default written down.
mkdir -p "$XDG_DATA_HOME/applications" "$XDG_CONFIG_HOME"
printf '[Desktop Entry]\nType=Application\nName=Editor\nExec=editor %%F\nMimeType=application/json;\n' \
  > "$XDG_DATA_HOME/applications/editor.desktop"
update-desktop-database "$XDG_DATA_HOME/applications"
apps=$(json_apps)
[ "${apps%%$'\n'*}" = "$editor_default" ] || fail "the editor does not open JSON files before the install: $apps"
scripts/install-desktop-entry "$work/my apps/dcp-app"
entry="$work/data/applications/com.desktopaicompanion.plugins.desktop"
[ -f "$entry" ] || fail "no entry at $entry"
desktop-file-validate "$entry" || fail "desktop-file-validate refused $entry"
grep -qx "Exec=\"$work/my apps/dcp-app\" %F" "$entry" || fail "Exec is not the quoted binary with %F: $(grep ^Exec= "$entry")"
grep -qx 'MimeType=application/json;application/zip;' "$entry" || fail "MimeType is not the declared types: $(grep ^MimeType= "$entry")"
[ -f "$work/data/icons/hicolor/128x128/apps/com.desktopaicompanion.plugins.png" ] || fail "no icon"
# Offered for JSON files, and the editor still opens them (for GLib as for xdg-mime).
apps=$(json_apps)
grep -qx "	com.desktopaicompanion.plugins.desktop" <<<"$apps" || fail "not offered for JSON: $apps"
[ "${apps%%$'\n'*}" = "$editor_default" ] || fail "the app took JSON files from the editor: $apps"
scripts/install-desktop-entry --remove
[ ! -e "$entry" ] || fail "--remove left $entry"
if scripts/install-desktop-entry "$work/none" 2>"$work/err"; then
  fail "a missing binary was accepted"
fi
grep -q "scripts/build-release" "$work/err" || fail "a missing binary does not say how to build it: $(cat "$work/err")"
echo "desktop entry: valid, offers the app for application/json and application/zip, keeps the editor as JSON's default, removed cleanly"
