#!/usr/bin/env bash
# Frontend benchmark: generates the large transformer-like module and runs frontend_bench on it.
#   test/bench/run.sh [--layers N] [--runs N]
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
cmake --build "$build" --target frontend_bench >/dev/null
model=$(mktemp --suffix=.rx)
trap 'rm -f "$model"' EXIT
python3 "$root/test/bench/gen_model.py" --layers "$layers" >"$model"
"$build/frontend_bench" "$model" --runs "$runs"
