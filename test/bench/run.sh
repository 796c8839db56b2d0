#!/usr/bin/env bash
# Frontend and analysis benchmarks: generates the large transformer-like module and runs
# frontend_bench (raw parse vs parse + lower) and analysis_bench (raw parse vs full check, and an
# incremental re-check after a one-character edit) on it. Use a Release build for the numbers:
#   RAXC_BUILD_DIR=build-release test/bench/run.sh [--layers N] [--runs N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
layers=72 runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --layers) layers=$2; shift ;;
    --runs) runs=$2; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
build=${RAXC_BUILD_DIR:-$root/build}
cmake --build "$build" --target frontend_bench analysis_bench >/dev/null
model=$(mktemp --suffix=.rx)
trap 'rm -f "$model"' EXIT
python3 "$root/test/bench/gen_model.py" --layers "$layers" >"$model"
"$build/frontend_bench" "$model" --runs "$runs"
echo
"$build/analysis_bench" "$model" --runs "$runs"
