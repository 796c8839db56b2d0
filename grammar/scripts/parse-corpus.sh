#!/usr/bin/env bash
# parse-corpus.sh — parse .rx files with the tree-sitter CLI and fail on any syntax error.
#   grammar/scripts/parse-corpus.sh [DIR_OR_FILE...]
# Default: the conformance corpus (../shared/corpus/tvm-v0.25.0/visible from the repo root,
# override with RAXC_CORPUS). Prints one line per file with an ERROR/MISSING node; exit 1 if any.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
grammar_dir=$(cd "$here/.." && pwd)
TREE_SITTER=${TREE_SITTER:-tree-sitter}
if [ "$#" -eq 0 ]; then
  set -- "${RAXC_CORPUS:-$grammar_dir/../../shared/corpus/tvm-v0.25.0/visible}"
fi
files=()
for arg in "$@"; do
  if [ -d "$arg" ]; then
    while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$arg" -name '*.rx' -print0 | sort -z)
  else
    files+=("$arg")
  fi
done
[ "${#files[@]}" -gt 0 ] || { echo "parse-corpus: no .rx files" >&2; exit 2; }
cd "$grammar_dir"   # the CLI uses the grammar in the current directory
out=$("$TREE_SITTER" parse -q "${files[@]}" 2>/dev/null || true)
if [ -n "$out" ]; then
  printf '%s\n' "$out"
  echo "parse-corpus: $(printf '%s\n' "$out" | wc -l) of ${#files[@]} files have syntax errors" >&2
  exit 1
fi
echo "parse-corpus: ${#files[@]} files parsed without errors"
