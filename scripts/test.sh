#!/usr/bin/env bash
# Runs every test of tracesvc from a fresh machine: installs what the tests need when missing,
# builds with warnings checked, starts team mode on real engines (PostgreSQL, SeaweedFS, two replicas,
# nginx: scripts/team-up.sh, once for the run), runs the Swift tests, the team tests, the browser logic's
# node tests, then the browser suite in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage says how long it took (and, at the end, all of them), so a slow stage shows where it is.
stage_name=""
stage_began=0
stage_times=()
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
end_stage() {
    [ -n "$stage_name" ] || return 0
    local ms=$(( $(now_ms) - stage_began ))
    stage_times+=("$(printf '%7d.%d s  %s' $((ms / 1000)) $((ms % 1000 / 100)) "$stage_name")")
    printf -- '-- %s: %d.%d s\n' "$stage_name" $((ms / 1000)) $((ms % 1000 / 100))
    stage_name=""
}
stage() {
    end_stage
    stage_name=$1
    stage_began=$(now_ms)
    echo "== $1"
}
summary() {
    local status=$?
    end_stage
    if [ ${#stage_times[@]} -gt 0 ]; then
        echo "== stage times"
        printf '%s\n' "${stage_times[@]}"
    fi
    return $status
}
team_run=.build-team/ci
# summary reads the exit status first (the run keeps it); then the team is stopped.
on_exit() {
    summary || true
    bash scripts/team-down.sh "$team_run" >/dev/null 2>&1 || true
}
trap on_exit EXIT

# What the tests need, installed when missing on Debian or Ubuntu; elsewhere install it yourself
# (README, "Two commands") and this says what is missing.
need_apt=()
[ "$(uname)" = Darwin ] || [ -f /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
[ "$(uname)" = Darwin ] || [ -d /usr/share/fonts/truetype/dejavu ] || need_apt+=(fonts-dejavu-core)
# Team mode's engines (scripts/team-up.sh installs them too; here once, with the rest).
[ -x /usr/lib/postgresql/15/bin/initdb ] || need_apt+=(postgresql)
command -v nginx >/dev/null 2>&1 || need_apt+=(nginx)
command -v bc >/dev/null 2>&1 || need_apt+=(bc)
[ -f /usr/include/sqlite3.h ] || need_apt+=(libsqlite3-dev)
# The flame graph SVGs of `tracesvc flamegraph` and `compare --flamegraph` are rendered by an image tool in the tests.
command -v rsvg-convert >/dev/null 2>&1 || need_apt+=(librsvg2-bin)
if [ ${#need_apt[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "missing: ${need_apt[*]} (Debian package names). This script installs them only on Debian or Ubuntu:"
        echo "install them yourself (README, \"Two commands\"), set CHROMIUM_PATH to a Chromium, and run it again."
        exit 1
    fi
    stage "installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import playwright, pytest' 2>/dev/null || python3 -m pip install -q playwright pytest
python3 -c 'import boto3' 2>/dev/null || python3 -m pip install -q boto3
python3 -c 'import mcp' 2>/dev/null || python3 -m pip install -q 'mcp==2.3.0'  # the version Tests/Agent was written against (its HTTP client is httpx2)

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
# An engine that does not start fails the run here, loudly.
stage "team mode up: PostgreSQL, SeaweedFS, two replicas, nginx (scripts/team-up.sh)"
bash scripts/team-down.sh "$team_run" >/dev/null 2>&1 || true
TRACESVC_BIN="$PWD/.build/debug/tracesvc" bash scripts/team-up.sh "$team_run"
# shellcheck disable=SC1091
source "$team_run/team.env"

# Swift Testing starts every test at once, and on two cores the CPU-heavy suites hold the
# cooperative threads for tens of seconds (measured: every test of a whole run waited 46-75 s), so
# the suites that time a deadline (a breaker, a memory wait, a store's first bytes) would measure
# the queue, not the code (or an order of service: MemoryFairShareTests). Four runs: the rest, the engine contracts alone (each call has a 20 s
# deadline; PostgresCatalogTests stops the shared server, so not beside it), the deadline suites
# alone, then the cost suites.
deadline_suites='FailFastTests|MemoryWaitTests|AgentToolsTests|S3BlobStoreTests|StreamedBlobTests|PostgresCatalogTests|KeepAliveTests|DiskReadinessTests|ShutdownGraceTests|MemoryFairShareTests|ConnectionFairShareTests'
contract_suites='CatalogContractTests|BlobStoreContractTests'
cost_suites='QueryExponentTests|HostileCostTests|HostileQueryTests|FuzzTests'
stage "swift test"
swift test --skip-build --skip "$deadline_suites|$contract_suites|$cost_suites"

stage "swift test: engine contracts (SQLite and PostgreSQL, files and S3), alone"
swift test --skip-build --filter "$contract_suites"

stage "swift test: suites that time deadlines, alone"
swift test --skip-build --filter "$deadline_suites"

# The growth exponents are timed: alone, not beside the hostile suites' seconds-long queries
# (a chain's exponent read 1.34 with them, under 1.2 without).
stage "swift test: growth exponents, alone"
swift test --skip-build --filter QueryExponentTests

stage "swift test: cost and fuzz suites, alone"
swift test --skip-build --filter "HostileCostTests|HostileQueryTests|FuzzTests"

stage "team mode tests (Tests/Team, real engines)"
# A test that fails here is run once more, alone, and the run says so: on two cores a few of these
# (real engines, a real browser) have missed a timing inside a whole run and passed alone. A test
# that fails twice fails the run.
pytest_retrying_failures() {
  python3 -m pytest -q "$@" && return 0
  echo "!! failures above: running only the failed tests once more (pytest --lf)"
  python3 -m pytest -q --lf "$@"
}
pytest_retrying_failures Tests/Team

stage "agent interface (Tests/Agent: the Python MCP client over stdio and POST /mcp)"
TRACESVC_BIN="$PWD/.build/debug/tracesvc" python3 -m pytest -q Tests/Agent

stage "observability (Tests/Ops: JSON logs, access lines, private /metrics, deploy/ dashboard and alerts)"
TRACESVC_BIN="$PWD/.build/debug/tracesvc" python3 -m pytest -q Tests/Ops

stage "browser logic (node --test)"
node --test Tests/Web/*.test.mjs

stage "browser tests"
export TRACESVC_BIN="$PWD/.build/debug/tracesvc"
pytest_retrying_failures Tests/Browser "$@"
