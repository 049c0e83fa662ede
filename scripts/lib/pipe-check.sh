#!/usr/bin/env bash
# Refuses the pipelines that fail at random under `set -o pipefail`: a
# producer piped into a reader that stops early (`grep -q`, `grep -m`,
# `head`). The reader exits at its first match or line, the producer is
# killed by SIGPIPE if it is still writing, and the pipeline fails although
# the match was found (7 runs in 30 of the Debian package's `gio mime` check did).
# Capture the output first, then match it: `out=$(producer)`, then
# `grep -q … <<<"$out"` or a `case`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# shellcheck source=scripts/lib/shell-files.sh
source scripts/lib/shell-files.sh
files=()
shell_files files

early='\|[[:space:]]*(grep[[:space:]]+(-[[:alnum:]]*[qm]|--quiet|--max-count)|head([[:space:]]|$))'
# Comment lines are left out: they may show the shape they warn against.
found=$(grep -nHE -- "$early" "${files[@]}" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' || true)
if [ -n "$found" ]; then
  printf 'These pipelines fail at random under set -o pipefail (the reader exits early, the producer dies of SIGPIPE); capture the output first, then match it:\n%s\n' "$found" >&2
  exit 1
fi
echo "pipe-check: ${#files[@]} shell files, no producer piped into a reader that exits early"
