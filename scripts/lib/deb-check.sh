#!/usr/bin/env bash
# Builds the Debian package from the debug build (scripts/lib/deb.sh, as
# `scripts/build-release --deb` does from the release build) and checks what
# a player installs: the control fields (its name, WebKitGTK 4.1 and GTK 3
# as dependencies), the program just built in /usr/bin, its icon, and a
# desktop entry that passes desktop-file-validate, starts the program with
# every chosen file (%F) and that GLib offers for .json and .zip files once
# the package's folders are the system's. Run after the app's own build: the
# bundler finds it up to date and compiles nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh
# shellcheck source=scripts/lib/deb.sh
source scripts/lib/deb.sh
ensure_packages desktop-file-utils libglib2.0-bin

deb="$(build_deb debug)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "deb: $*" >&2; exit 1; }

dpkg-deb -x "$deb" "$work/root"
[ "$(dpkg-deb -f "$deb" Package)" = desktop-companion-plugins ] || fail "the package is named $(dpkg-deb -f "$deb" Package)"
depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libwebkit2gtk-4.1-0 libgtk-3-0; do
  [[ ", $depends," == *", $lib,"* ]] || fail "it does not depend on $lib: $depends"
done
binary="$work/root/usr/bin/dcp-app"
[ -x "$binary" ] || fail "no program at /usr/bin/dcp-app"
# The bundler writes which package it came in into its copy, so the two
# differ by a few bytes: the linker's build id says they are one build.
build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }
if [ -z "$(build_id "$binary")" ] || [ "$(build_id "$binary")" != "$(build_id "${CARGO_TARGET_DIR:-target}/debug/dcp-app")" ]; then
  fail "/usr/bin/dcp-app is not the app just built"
fi
[ -f "$work/root/usr/share/icons/hicolor/128x128/apps/dcp-app.png" ] || fail "no 128x128 icon named dcp-app"

entries=("$work/root/usr/share/applications/"*.desktop)
if [ "${#entries[@]}" != 1 ] || [ ! -f "${entries[0]}" ]; then
  fail "not one desktop entry: ${entries[*]}"
fi
entry="${entries[0]}"
desktop-file-validate "$entry" || fail "desktop-file-validate refused $(basename "$entry")"
grep -qx 'Exec=dcp-app %F' "$entry" || fail "Exec is not the program with %F: $(grep ^Exec= "$entry")"
grep -qx 'Icon=dcp-app' "$entry" || fail "Icon is not dcp-app: $(grep ^Icon= "$entry")"
grep -qx 'MimeType=application/json;application/zip;' "$entry" || fail "MimeType is not the declared types: $(grep ^MimeType= "$entry")"

# GLib's view as if installed: the package's share folder as a system one
# (the system's too, for the MIME database) and its bin folder on PATH
# (GLib leaves out an entry whose program it cannot find).
export XDG_DATA_HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_DIRS="$work/root/usr/share:/usr/share"
export PATH="$work/root/usr/bin:$PATH"
update-desktop-database "$work/root/usr/share/applications"
for mime in application/json application/zip; do
  offered=$(gio mime "$mime")
  grep -qxF "	$(basename "$entry")" <<<"$offered" || fail "not offered for $mime: $offered"
done
echo "deb: $(basename "$deb") ($(du -h "$deb" | cut -f1)): depends on $depends; /usr/bin/dcp-app is this build; its entry is valid, runs it with the chosen files and is offered for application/json and application/zip"
