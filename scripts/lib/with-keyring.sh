#!/usr/bin/env bash
# usage: scripts/lib/with-keyring.sh COMMAND [ARG...]
#
# Runs COMMAND with a Secret Service to talk to, as on a Linux desktop: a
# private D-Bus session bus (dbus-run-session) with GNOME Keyring on it, its
# "login" collection created and unlocked without a prompt. The vault tests
# use it to check that a key survives a cleared kernel keyring (a reboot);
# DCP_TEST_SECRET_SERVICE=1 tells them a Secret Service must answer, so its
# absence fails them instead of skipping.
#
# The keyring lives in a temporary folder, removed afterwards, with a
# throwaway password: nothing of the user's own keyrings is read or touched.
# Needs the Debian packages dbus-daemon, dbus-bin and gnome-keyring.
set -euo pipefail

if [ -z "${DCP_IN_KEYRING_SESSION:-}" ]; then
  [ "$#" -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
  for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
    command -v "$tool" >/dev/null 2>&1 \
      || { echo "with-keyring: $tool not found (packages dbus-daemon, dbus-bin, gnome-keyring)" >&2; exit 1; }
  done
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -m 700 "$scratch/data" "$scratch/run"
  # Our own runtime and data folders: the daemon must not take over the
  # control socket or the keyrings of a desktop session this runs inside.
  # Not exec'd, so the trap removes the folder once the session has ended.
  DCP_IN_KEYRING_SESSION=1 XDG_RUNTIME_DIR="$scratch/run" XDG_DATA_HOME="$scratch/data" \
    dbus-run-session -- "$0" "$@"
  exit
fi

# Inside the session bus. --unlock reads the password on standard input and
# creates the "login" collection with it (the default collection) if there
# is none; --daemonize returns once the daemon is up. It leaves with the bus.
printf '%s' "dcp-test-only" \
  | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null

# Wait until the Secret Service owns its bus name (a few seconds at most).
for _ in $(seq 50); do
  owner=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null || true)
  if [[ "$owner" == *'boolean true'* ]]; then
    export DCP_TEST_SECRET_SERVICE=1
    exec "$@"
  fi
  sleep 0.1
done
echo "with-keyring: GNOME Keyring did not appear on the session bus" >&2
exit 1
