#!/usr/bin/env bash
# Runs every test of tracesvc from a fresh machine: installs what the tests need when missing,
# builds with warnings checked, runs the Swift tests, the browser logic's node tests, then the browser suite
# in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -f /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
[ -d /usr/share/fonts/truetype/dejavu ] || need_apt+=(fonts-dejavu-core)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "== installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import playwright, pytest' 2>/dev/null || python3 -m pip install -q playwright pytest

echo "== swift build"
build_log=$(mktemp)
if ! swift build --build-tests >"$build_log" 2>&1; then
    grep -v '/.build/checkouts/' "$build_log" | tail -60
    echo "build failed"; exit 1
fi
tail -1 "$build_log"
# Our own sources must build without warnings (dependencies' warnings are not ours to fix).
if grep -E '^/.*(/Sources/|/Tests/).*warning:' "$build_log" | grep -v '/.build/'; then
    echo "warnings in tracesvc sources (above)"; exit 1
fi

echo "== swift test"
swift test --skip-build

echo "== browser logic (node --test)"
node --test Tests/Web/*.test.mjs

echo "== browser tests"
export TRACESVC_BIN="$PWD/.build/debug/tracesvc"
python3 -m pytest -q Tests/Browser "$@"
