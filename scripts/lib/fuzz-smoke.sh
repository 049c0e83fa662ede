#!/usr/bin/env bash
# A bounded fuzz run of every cargo-fuzz target (fuzz/), for CI: each
# target runs DCP_FUZZ_SECONDS (default 30) from its seeds. Installs
# cargo-fuzz when missing. The stable toolchain builds the targets with
# nightly features unlocked (RUSTC_BOOTSTRAP=1), as fuzz/Cargo.toml says.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../fuzz"

seconds="${DCP_FUZZ_SECONDS:-30}"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi
export RUSTC_BOOTSTRAP=1
# The package seeds are made by a script; the other targets start from nothing.
mkdir -p corpus/package_and_validate
python3 seeds/make_seeds.py corpus/package_and_validate >/dev/null
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in $(cargo fuzz list); do
  echo "fuzz: $target for ${seconds} s"
  mkdir -p "corpus/$target"
  status=0
  cargo fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=1024 >"$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|Done [0-9]+ runs)" "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log" >&2
    echo "fuzz: $target failed (exit $status); a crashing input is kept in fuzz/artifacts/$target" >&2
    exit 1
  fi
done
