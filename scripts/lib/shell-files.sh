# shellcheck shell=bash
# The repository's shell files, for the two script checks, pipe-check.sh
# and shellcheck.sh: source it from the repo root, then `shell_files ARRAY`.

# shell_files NAME: fills the array NAME with the tracked files under
# scripts/, tests/ and .ci/ that are shell: by extension, or by a shell's #! line.
shell_files() {
  local -n into=$1
  local file first
  while IFS= read -r -d '' file; do
    case "$file" in
      *.sh) into+=("$file") ;;
      *)
        first=$(head -c 64 -- "$file" 2>/dev/null | tr -d '\0')
        case "$first" in '#!'*sh*) into+=("$file") ;; esac
        ;;
    esac
  done < <(git ls-files -z -- scripts tests .ci)
}
