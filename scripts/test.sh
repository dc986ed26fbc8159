#!/usr/bin/env bash
# Runs every test of tracesvc from a fresh machine: installs what the tests need when missing,
# builds with warnings checked, starts the team-mode engines (PostgreSQL, SeaweedFS: scripts/team-up.sh),
# runs the Swift tests, the browser logic's node tests, then the browser suite in headless Chromium.
# Each stage prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
stage_started=$started
stage() {
    local now
    now=$(date +%s)
    echo "== $1 (previous stage $((now - stage_started)) s, total $((now - started)) s)"
    stage_started=$now
}

need_apt=()
[ -f /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
[ -d /usr/share/fonts/truetype/dejavu ] || need_apt+=(fonts-dejavu-core)
# Team mode's engines (scripts/team-up.sh installs them too; here once, with the rest).
[ -x /usr/lib/postgresql/15/bin/initdb ] || need_apt+=(postgresql)
command -v nginx >/dev/null 2>&1 || need_apt+=(nginx)
command -v bc >/dev/null 2>&1 || need_apt+=(bc)
[ -f /usr/include/sqlite3.h ] || need_apt+=(libsqlite3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "== installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import playwright, pytest' 2>/dev/null || python3 -m pip install -q playwright pytest

stage "swift build"
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

# One team for the whole run: the Swift storage tests use its engines, Tests/Team its replicas and nginx.
stage "team mode: PostgreSQL, SeaweedFS, two replicas, nginx (scripts/team-up.sh)"
team_run=.build-team/ci
bash scripts/team-down.sh "$team_run" >/dev/null 2>&1 || true
trap 'bash scripts/team-down.sh "$team_run" >/dev/null 2>&1 || true' EXIT
TRACESVC_BIN="$PWD/.build/debug/tracesvc" bash scripts/team-up.sh "$team_run"
# shellcheck disable=SC1091
source "$team_run/team.env"

stage "swift test"
swift test --skip-build

stage "team mode tests (Tests/Team, against the engines)"
python3 -c 'import boto3' 2>/dev/null || python3 -m pip install -q boto3
python3 -m pytest -q Tests/Team

stage "browser logic (node --test)"
node --test Tests/Web/*.test.mjs

stage "browser tests"
export TRACESVC_BIN="$PWD/.build/debug/tracesvc"
python3 -m pytest -q Tests/Browser "$@"
stage "done"
