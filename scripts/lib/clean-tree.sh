# shellcheck shell=bash
# What a run of scripts/test may not do: change a file of the clone that git
# sees (a tracked file, or a new file no .gitignore covers). Everything a run
# makes goes under the build folder or a temporary folder (issue 32: the
# end-to-end run rewrote the tracked screenshots each time).
#
# Source it from the repo root. `tree_state` prints the tree as it is now;
# `tree_unchanged BEFORE` fails naming each file whose status or content
# differs from BEFORE. A developer's own uncommitted work is in both and is
# not named, unless the run changed it further.

# tree_state: one line per file that differs from the last commit, or is
# untracked and not ignored: its status (git status --porcelain), its
# content's hash (- when it is gone) and its path, tab-separated.
tree_state() {
  local entry xy path hash
  while IFS= read -r -d '' entry; do
    xy=${entry:0:2}
    path=${entry:3}
    # A rename or copy is followed by the path it came from: not a file of its own.
    case "$xy" in R* | C*) IFS= read -r -d '' _ ;; esac
    if [ -f "$path" ]; then hash=$(git hash-object --no-filters -- "$path"); else hash=-; fi
    printf '%s\t%s\t%s\n' "$xy" "$hash" "$path"
  done < <(git status --porcelain=v1 -z --untracked-files=all)
}

# tree_unchanged BEFORE: 0 when the tree is as BEFORE (an earlier
# tree_state); else says which files the run changed, and 1.
tree_unchanged() {
  local before=$1 xy hash path
  local -A was=() now=()
  while IFS=$'\t' read -r xy hash path; do
    if [ -n "$path" ]; then was["$path"]="$xy $hash"; fi
  done <<<"$before"
  while IFS=$'\t' read -r xy hash path; do
    if [ -n "$path" ]; then now["$path"]="$xy $hash"; fi
  done <<<"$(tree_state)"
  local -a changed=()
  for path in "${!was[@]}" "${!now[@]}"; do
    if [ "${was["$path"]-}" != "${now["$path"]-}" ]; then changed+=("$path"); fi
  done
  if [ "${#changed[@]}" -eq 0 ]; then return 0; fi
  local list
  list=$(printf '%s\n' "${changed[@]}" | sort -u)
  printf 'The run changed these files of the clone (a test writes under the build folder or a temporary folder, never in the tree):\n%s\n' "$list" >&2
  return 1
}
