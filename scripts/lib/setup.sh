# shellcheck shell=bash
# Shared set-up for scripts/test and scripts/run-app; source it, don't run it.
#
# On a fresh Debian/Ubuntu machine: installs the system packages the Tauri
# shell links against (only when one is missing, checked with dpkg -s), then
# checks that a Rust toolchain is there. Rust itself is not installed here.

# The webview and its friends (Tauri 2 on Linux), a C toolchain, and what the
# tests need.
DCP_SYSTEM_PACKAGES=(
  build-essential
  pkg-config
  libwebkit2gtk-4.1-dev
  libgtk-3-dev
  libsoup-3.0-dev
  librsvg2-dev
  libayatana-appindicator3-dev
  # The event tests run the Python client of §16 and the pomodoro example server.
  python3
  # The vault reaches the Secret Service through libdbus (built from source by
  # its crate: no -dev package); its tests run GNOME Keyring on a private
  # session bus (scripts/lib/with-keyring.sh).
  dbus-daemon
  dbus-bin
  gnome-keyring
  # scripts/test lints every shell script of the repository (scripts/lib/shellcheck.sh).
  shellcheck
)

say() { printf '\n==> %s\n' "$*"; }
die() { printf '\nERROR: %s\n' "$*" >&2; exit 1; }

# ensure_packages PKG...: installs the listed Debian packages that are missing.
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "system packages: all present ($*)"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 \
    || die "missing system packages (${missing[*]}) and no apt-get to install them; install them by hand."
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 \
      || die "missing system packages (${missing[*]}); run as root or install sudo."
    sudo=(sudo)
  fi
  say "Installing system packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # The downloaded archives are not needed once installed; disk can be tight.
  "${sudo[@]}" apt-get clean
}

ensure_rust() {
  command -v cargo >/dev/null 2>&1 \
    || die "cargo not found. Install Rust (https://rustup.rs), open a new shell, then run this again."
  echo "rust: $(cargo --version)"
}

system_setup() {
  say "Set-up"
  command -v dpkg >/dev/null 2>&1 \
    || die "this script sets up Debian/Ubuntu machines (no dpkg here); install the Tauri 2 Linux prerequisites by hand."
  ensure_packages "${DCP_SYSTEM_PACKAGES[@]}"
  ensure_rust
}
