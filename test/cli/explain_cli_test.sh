#!/bin/sh
# `raxc explain`: one code's explanation (text, markdown, html), the list of every code, an
# unknown or malformed code (RX1098, exit 2), and the page the build writes for the language
# server (<build>/share/raxc/diagnostics.html, next to the raxc it was built with).
#   explain_cli_test.sh RAXC
set -u
raxc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_status() {
  want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(head -3 "$tmp/err")"
}
expect_in() { grep -qF -- "$2" "$1" || fail "expected '$2' in $(basename "$1"): $(head -3 "$1")"; }
expect_not_in() { ! grep -qF -- "$2" "$1" || fail "did not expect '$2' in $(basename "$1")"; }

# One code: the heading with severity and message template, the trigger and the fix.
expect_status 0 "$raxc" explain RX3000
expect_in "$tmp/out" "RX3000 (error): '{binding}' is annotated '{annotation}'"
expect_in "$tmp/out" "Trigger"
expect_in "$tmp/out" "Fix"
expect_not_in "$tmp/out" '```'
[ -s "$tmp/err" ] && fail "explain RX3000 wrote to stderr: $(head -3 "$tmp/err")"
# Lower case is accepted.
expect_status 0 "$raxc" explain rx3000
expect_in "$tmp/out" "RX3000 (error)"
# A runtime code: its trigger is a `raxc run` command line.
expect_status 0 "$raxc" explain RX5023
expect_in "$tmp/out" '$ raxc run example.rx'
# Markdown keeps the fences; HTML is one section with the code's anchor.
expect_status 0 "$raxc" explain RX4000 --format markdown
expect_in "$tmp/out" "## RX4000 (warning)"
expect_in "$tmp/out" '```rx'
expect_status 0 "$raxc" explain RX4000 --format html
expect_in "$tmp/out" '<section id="RX4000">'

# Unknown and malformed codes: RX1098, exit 2, nothing on stdout.
expect_status 2 "$raxc" explain RX0001
expect_in "$tmp/err" "'RX0001' is not a raxc diagnostic code"
expect_in "$tmp/err" "[RX1098]"
[ -s "$tmp/out" ] && fail "explain RX0001 wrote to stdout"
expect_status 2 "$raxc" explain banana
expect_in "$tmp/err" "[RX1098]"
# RX1098 near miss: a known code, in any case, is explained without a diagnostic.
expect_status 0 "$raxc" explain Rx1098
expect_not_in "$tmp/err" "[RX1098]"

# No code: one line per registry code, in registry order.
expect_status 0 "$raxc" explain
expect_in "$tmp/out" "RX1001  error   unexpected {token}"
expect_in "$tmp/out" "RX4000  warning"
lines=$(wc -l <"$tmp/out")
codes=$(grep -c '^RAXC_DIAG(' "$(dirname "$0")/../../frontend/diagnostics.def")
[ "$lines" -eq "$codes" ] || fail "explain lists $lines lines for $codes registry codes"
# A bad format is a usage error.
expect_status 2 "$raxc" explain RX3000 --format pdf
expect_in "$tmp/err" "[RX1099]"

# The whole page, and the copy the build put next to raxc (what `raxc lsp` links to).
expect_status 0 "$raxc" explain --format html --output "$tmp/page.html"
expect_in "$tmp/page.html" '<section id="RX3000">'
expect_in "$tmp/page.html" '<a href="#RX5033">'
page="$(dirname "$raxc")/share/raxc/diagnostics.html"
if [ -f "$page" ]; then
  cmp -s "$page" "$tmp/page.html" || fail "$page differs from 'raxc explain --format html'"
else
  fail "the build did not write $page"
fi

[ "$failures" -eq 0 ] && echo "explain_cli: all passed"
exit "$failures"
