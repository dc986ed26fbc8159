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
for pid_file in "$run"/replica-*/pid; do stop_pid_file "$pid_file"; done
stop_pid_file "$run/s3/pid"
# PostgreSQL's folder is outside $run (team-up.sh says why); runs of older scripts kept it in $run/pg.
pg_dir=$run/pg
[ -f "$run/pg-dir" ] && pg_dir=$(cat "$run/pg-dir")
case "$pg_dir" in
    /tmp/tracesvc-pg.*|"$run/pg") ;;
    *) echo "team-down: $run/pg-dir names $pg_dir, not a folder team-up.sh made; left alone" >&2; pg_dir= ;;
esac
if [ -n "$pg_dir" ] && [ -d "$pg_dir/data" ]; then
    as_postgres=()
    if [ "$(id -u)" = 0 ]; then as_postgres=(runuser -u postgres --); fi
    "${as_postgres[@]}" /usr/lib/postgresql/15/bin/pg_ctl -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1
fi
[ -n "$pg_dir" ] && rm -rf "$pg_dir"
rm -rf "$run"
echo "== team-down: stopped and removed $run"
