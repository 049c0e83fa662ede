#!/usr/bin/env bash
# Lints every shell file of the repository (scripts/lib/shell-files.sh) with
# ShellCheck at every severity, following the files they source. A finding
# that is not a mistake is silenced where it stands, by a disable directive
# with a comment saying why, never here for all files.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

command -v shellcheck >/dev/null 2>&1 \
  || { echo "shellcheck is not installed (Debian package shellcheck; scripts/lib/setup.sh installs it)" >&2; exit 1; }
# shellcheck source=scripts/lib/shell-files.sh
source scripts/lib/shell-files.sh
files=()
shell_files files
shellcheck --external-sources --source-path=SCRIPTDIR --source-path=. -- "${files[@]}"
echo "shellcheck: ${#files[@]} shell files, no finding"
