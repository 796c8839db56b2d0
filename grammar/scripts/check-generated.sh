#!/usr/bin/env bash
# check-generated.sh — verify that the committed generated parser matches grammar.js.
#
# Regenerates src/parser.c, src/grammar.json, src/node-types.json and
# src/tree_sitter/parser.h from grammar.js in a temporary copy of grammar/ and
# diffs them against the committed files. Exit 0 when identical, 1 when they
# differ (run `tree-sitter generate --no-bindings` in grammar/ and commit), 2 on
# a tooling problem. Needs the tree-sitter 0.20.7 CLI (scripts/install-deps).
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
grammar_dir=$(cd "$here/.." && pwd)
TREE_SITTER=${TREE_SITTER:-tree-sitter}
expected_version=0.20.7

if ! command -v "$TREE_SITTER" >/dev/null 2>&1; then
  echo "check-generated: '$TREE_SITTER' not found (install it with scripts/install-deps)" >&2
  exit 2
fi
version=$("$TREE_SITTER" --version | awk '{print $2}')
if [ "$version" != "$expected_version" ]; then
  echo "check-generated: tree-sitter $version found, $expected_version required (the output differs between versions)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/grammar/src"
cp "$grammar_dir/grammar.js" "$grammar_dir/package.json" "$tmp/grammar/"
cp "$grammar_dir/src/scanner.c" "$tmp/grammar/src/"

if ! (cd "$tmp/grammar" && "$TREE_SITTER" generate --no-bindings >"$tmp/generate.log" 2>&1); then
  cat "$tmp/generate.log" >&2
  echo "check-generated: tree-sitter generate failed" >&2
  exit 2
fi

status=0
for f in src/parser.c src/grammar.json src/node-types.json src/tree_sitter/parser.h; do
  if [ ! -f "$grammar_dir/$f" ]; then
    echo "check-generated: $f is missing from grammar/" >&2
    status=1
  elif ! diff -u "$grammar_dir/$f" "$tmp/grammar/$f" >"$tmp/diff" 2>&1; then
    echo "check-generated: grammar/$f is out of date with grammar.js:" >&2
    head -n 40 "$tmp/diff" >&2
    status=1
  fi
done
if [ "$status" -eq 0 ]; then
  echo "check-generated: generated parser is up to date"
fi
exit "$status"
