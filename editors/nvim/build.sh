#!/bin/sh
# build.sh — make this plugin's tree-sitter parts from the repository's grammar:
#   parser/relax.so                 compiled from grammar/src/parser.c + scanner.c (ABI 14, loads
#                                   in Neovim 0.7.2 .. 0.11) with the system C compiler
#   queries/relax/*.scm             copied from grammar/queries (the one hand-maintained copy)
# Usage: editors/nvim/build.sh [GRAMMAR_DIR]   (default: ../../grammar next to this script)
# Environment: CC (default cc), CFLAGS (default -O2). Rebuilds only when a source is newer.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
grammar=${1:-${RELAX_GRAMMAR_DIR:-$here/../../grammar}}
grammar=$(cd "$grammar" && pwd)
src=$grammar/src
[ -f "$src/parser.c" ] || { echo "build.sh: $src/parser.c not found" >&2; exit 1; }

out=$here/parser/relax.so
mkdir -p "$here/parser" "$here/queries/relax"
if [ ! -f "$out" ] || [ "$src/parser.c" -nt "$out" ] || [ "$src/scanner.c" -nt "$out" ]; then
  # parser.c includes "tree_sitter/parser.h" from src/; nothing else is linked: the parser is
  # self-contained and Neovim provides the tree-sitter runtime.
  ${CC:-cc} ${CFLAGS:--O2} -std=c11 -fPIC -shared -I "$src" \
    "$src/parser.c" "$src/scanner.c" -o "$out.tmp.$$"
  mv -f "$out.tmp.$$" "$out"
  echo "build.sh: built $out"
fi
for q in "$grammar"/queries/*.scm; do
  dest=$here/queries/relax/$(basename "$q")
  if [ ! -f "$dest" ] || ! cmp -s "$q" "$dest"; then
    cp "$q" "$dest"
  fi
done
