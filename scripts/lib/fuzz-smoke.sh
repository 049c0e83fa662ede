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
for target in $(cargo fuzz list); do
  echo "fuzz: $target for ${seconds} s"
  mkdir -p "corpus/$target"
  cargo fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=1024 -print_final_stats=0 2>&1 \
    | grep -E "^(#[0-9]+ +DONE|Done [0-9]+ runs|==[0-9]+==ERROR|SUMMARY|thread .* panicked)" || true
  # cargo fuzz exits non-zero on a crash; pipefail is not enough through grep.
  if [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
    echo "fuzz: $target found a crash: fuzz/artifacts/$target" >&2
    exit 1
  fi
done
