#!/usr/bin/env bash
# Stops what scripts/team-up.sh started in DIR (default .build-team/run) and removes its data.
set -uo pipefail
cd "$(dirname "$0")/.."
run=${1:-.build-team/run}
[ -d "$run" ] || exit 0
run=$(cd "$run" && pwd)

stop_pid_file() {
    local file=$1
    [ -f "$file" ] || return 0
    local pid
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$file"
}

[ -f "$run/nginx/pid" ] && nginx -p "$run/nginx" -c "$run/nginx/nginx.conf" -g "pid $run/nginx/pid;" -s quit 2>/dev/null
stop_pid_file "$run/nginx/pid"
stop_pid_file "$run/replica-a/pid"
stop_pid_file "$run/replica-b/pid"
stop_pid_file "$run/s3/pid"
if [ -d "$run/pg/data" ]; then
    as_postgres=()
    if [ "$(id -u)" = 0 ]; then as_postgres=(runuser -u postgres --); fi
    "${as_postgres[@]}" /usr/lib/postgresql/15/bin/pg_ctl -D "$run/pg/data" -m immediate stop >/dev/null 2>&1
fi
rm -rf "$run"
echo "== team-down: stopped and removed $run"
