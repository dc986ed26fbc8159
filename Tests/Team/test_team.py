"""Team mode, end to end, against the real engines (conftest.py): replicas that share a PostgreSQL catalog and
an S3 bucket, behind nginx. Each test uses traces of its own app, so the tests do not see each other's rows."""
import hashlib
import json
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import REPO, free_port, native_trace

ROUTES = [
    "", "/timeline?width=200", "/summary", "/updates?view={app}RowView", "/updates/0", "/updates/0/graph",
    "/graph?view={app}RowView&module={app}", "/calltree", "/findings", "/long-update", "/task-states?lane=main-actor&start=0&end=9000000",
    "/tasks/summary",
]


def app_name(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:8]


def test_an_upload_through_one_replica_is_read_through_the_other_and_nginx(team):
    app = app_name("Recipes")
    status, uploaded = team.upload(team.a, native_trace(app, updates=40), f"{app}.json")
    assert status == 201, uploaded
    trace_id = uploaded["trace"]["id"]
    for base in (team.b, team.nginx, team.a):
        for route in ROUTES:
            path = f"/api/traces/{trace_id}" + route.format(app=app)
            status, body, _ = team.request(base, "GET", path)
            assert status == 200, f"{base}{path}: {status} {body[:300]!r}"
        status, body, _ = team.request(base, "GET", f"/api/compare?a={trace_id}&b={trace_id}")
        assert status == 200, body[:300]
        listed = [t["id"] for t in team.json(base, "/api/traces")["traces"]]
        assert trace_id in listed
    summary = team.json(team.b, f"/api/traces/{trace_id}")
    assert summary["app"] == app and summary["counts"]["updates"] == 40


def test_the_same_file_through_both_replicas_at_once_is_one_row_and_one_blob(team):
    app = app_name("Weather")
    data = native_trace(app, updates=30)
    blobs_before = team.blob_keys()
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda base: team.upload(base, data, f"{app}.json"), [team.a, team.b, team.a, team.b]))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 200, 200, 201], results
    assert len({body["trace"]["id"] for _, body in results}) == 1
    assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "1"
    sha = hashlib.sha256(data).hexdigest()
    assert team.blob_keys() - blobs_before == {sha}


def test_a_delete_on_one_replica_is_404_on_the_other_within_a_second_and_its_model_is_dropped(team):
    app = app_name("Notes")
    status, uploaded = team.upload(team.a, native_trace(app), f"{app}.json")
    trace_id = uploaded["trace"]["id"]
    assert team.request(team.b, "GET", f"/api/traces/{trace_id}/summary")[0] == 200  # B has the model in memory
    evictions = team.metric(team.b, "tracesvc_model_cache_evictions_total")
    assert team.request(team.a, "DELETE", f"/api/traces/{trace_id}")[0] == 204
    started = time.monotonic()
    while team.request(team.b, "GET", f"/api/traces/{trace_id}/summary")[0] != 404:
        assert time.monotonic() - started < 1.0, "replica B still serves a trace deleted on A"
        time.sleep(0.02)
    assert team.metric(team.b, "tracesvc_model_cache_evictions_total") > evictions


def test_kill_9_in_the_middle_of_a_200_mb_upload_leaves_nothing_half_visible_and_the_upload_can_be_retried(team):
    app = app_name("Maps")
    data = native_trace(app, updates=50, padding=200 << 20)
    connection = team.upload_in_part(team.a, data, f"{app}.json", sent=100 << 20)
    team.kill_replica("a")
    connection.close()
    try:
        assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "0"
        assert app not in {t["app"] for t in team.json(team.b, "/api/traces")["traces"]}
        assert hashlib.sha256(data).hexdigest() not in team.blob_keys()
    finally:
        team.start_replica("a")
    status, uploaded = team.upload(team.nginx, data, f"{app}.json", timeout=600)
    assert status == 201, uploaded
    assert team.request(team.a, "GET", f"/api/traces/{uploaded['trace']['id']}/summary", timeout=300)[0] == 200


def test_kill_9_during_the_catalog_write_leaves_no_row_without_its_blob_and_the_upload_can_be_retried(team):
    app = app_name("Podcasts")
    data = native_trace(app, updates=25)
    sha = hashlib.sha256(data).hexdigest()
    # Hold the table so the replica's INSERT waits: the process dies inside the catalog write.
    holder = subprocess.Popen(
        ["psql", "-h", "127.0.0.1", "-p", str(team.pg_port), "-U", "postgres", "-d", "tracesvc", "-qAt", "-v", "ON_ERROR_STOP=1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    upload = threading.Thread(target=lambda: _ignore(lambda: team.upload(team.a, data, f"{app}.json", timeout=30)))
    try:
        holder.stdin.write("BEGIN; LOCK TABLE traces IN EXCLUSIVE MODE; SELECT 'locked';\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "locked"
        upload.start()
        deadline = time.monotonic() + 20
        while "INSERT INTO traces" not in team.sql(
                "SELECT coalesce(string_agg(query, ' '), '') FROM pg_stat_activity WHERE wait_event_type = 'Lock'"):
            assert time.monotonic() < deadline, "the upload never reached the catalog write"
            time.sleep(0.05)
        assert sha in team.blob_keys(), "the blob is written before its row"
        team.kill_replica("a")
    finally:
        holder.stdin.write("ROLLBACK;\n\\q\n")
        holder.stdin.close()
        holder.wait(timeout=30)
        if upload.is_alive() or upload.ident:
            upload.join(timeout=30)
    try:
        assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "0", "no half-visible trace"
        named = team.sql("SELECT string_agg(DISTINCT coalesce(blob_key, sha256), ',') FROM traces").split(",")
        keys = team.blob_keys()
        assert all(key in keys for key in named if key), "every row's blob exists"
    finally:
        team.start_replica("a")
    status, uploaded = team.upload(team.b, data, f"{app}.json")
    assert status == 201, uploaded
    assert team.request(team.a, "GET", f"/api/traces/{uploaded['trace']['id']}/summary")[0] == 200


def _ignore(call):
    try:
        call()
    except Exception:
        pass


def _outage(team, stop, start, service_words, deadline_seconds):
    """While the service is down for 10 s: reads of models in memory keep working; what needs the service
    is a JSON 503 naming it within its deadline; afterwards everything works without restarting tracesvc."""
    app = app_name("Fitness")
    status, warm = team.upload(team.a, native_trace(app, updates=30), f"{app}-warm.json")
    warm_id = warm["trace"]["id"]
    assert team.request(team.a, "GET", f"/api/traces/{warm_id}/summary")[0] == 200
    stop()
    try:
        stopped_at = time.monotonic()
        answers = 0
        while time.monotonic() - stopped_at < 10:
            started = time.monotonic()
            status, body, _ = team.request(team.a, "POST", "/api/traces?name=x.json", native_trace(app, seed=uuid.uuid4().hex),
                                           {"Content-Type": "application/octet-stream"}, timeout=30)
            took = time.monotonic() - started
            assert status == 503, (status, body[:300])
            error = json.loads(body)
            assert any(word in (error["error"] + error["detail"]) for word in service_words), error
            assert took < deadline_seconds, f"an upload waited {took:.1f} s for a service that is down"
            # A model in memory answers without the services.
            assert team.request(team.a, "GET", f"/api/traces/{warm_id}/timeline?width=100")[0] == 200
            status, body, _ = team.request(team.a, "GET", "/readyz", timeout=30)
            assert status == 503 and any(word in json.loads(body)["detail"] for word in service_words)
            answers += 1
        assert answers >= 2
    finally:
        start()
    deadline = time.monotonic() + 30
    while True:
        status, body = team.upload(team.a, native_trace(app, updates=22), f"{app}-after.json")
        if status == 201:
            break
        assert time.monotonic() < deadline, f"no recovery: {status} {body}"
        time.sleep(0.5)
    assert team.request(team.b, "GET", f"/api/traces/{body['trace']['id']}/summary")[0] == 200
    assert team.request(team.a, "GET", "/readyz")[0] == 200


def test_postgresql_down_for_10_s_is_a_503_naming_the_catalog_and_recovers_without_restart(team):
    _outage(team, lambda: team.pg_ctl("stop"), lambda: team.pg_ctl("start"), ["catalog"], deadline_seconds=3)


def test_the_object_store_down_for_10_s_is_a_503_naming_it_and_recovers_without_restart(team):
    _outage(team, lambda: team.object_store(signal.SIGSTOP), lambda: team.object_store(signal.SIGCONT), ["object store"],
            deadline_seconds=3)


def test_200_uploads_over_both_replicas_at_once_are_200_rows_with_matching_blobs(team):
    app = app_name("Stocks")
    traces = [native_trace(app, updates=10 + n % 7, seed=f"{app}-{n}") for n in range(200)]
    bases = [team.a, team.b, team.nginx]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda n: team.upload(bases[n % 3], traces[n], f"{app}-{n}.json"), range(200)))
    assert [status for status, _ in results] == [201] * 200, [r for r in results if r[0] != 201][:3]
    assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "200"
    rows = team.sql(f"SELECT sha256 FROM traces WHERE app = '{app}'").split()
    assert set(rows) == {hashlib.sha256(t).hexdigest() for t in traces}
    s3 = team.bucket()
    for key in rows[:20]:
        assert hashlib.sha256(s3.get_object(Bucket="traces", Key=f"blobs/{key}")["Body"].read()).hexdigest() == key
    assert set(rows) <= team.blob_keys()
    # Paged through nginx: every one exactly once.
    seen, cursor = [], None
    while True:
        page = team.json(team.nginx, "/api/traces?limit=37" + (f"&cursor={cursor}" if cursor else ""))
        seen += [t["id"] for t in page["traces"] if t["app"] == app]
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert len(seen) == 200 and len(set(seen)) == 200


def test_a_data_directory_of_embedded_mode_moves_to_team_mode_idempotently(team, tmp_path):
    app = app_name("Calendar")
    binary = str(REPO / ".build" / "debug" / "tracesvc")
    data_dir = tmp_path / "embedded"
    # An embedded server on its own, as a developer runs it.
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data_dir)], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_for(lambda: team.request(base, "GET", "/healthz", timeout=2)[0] == 200)
        uploaded = [team.upload(base, native_trace(app, updates=12 + n, seed=str(n)), f"{app}-{n}.json")[1]["trace"] for n in range(3)]
        ids = [trace["id"] for trace in uploaded]
    finally:
        server.terminate()
        server.wait(timeout=30)
    command = [binary, "migrate", "--from", str(data_dir), "--catalog", team.catalog_url, "--blobs", team.blobs_url]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300, env=team.env)
    assert first.returncode == 0, first.stderr
    assert "3 copied, 0 already there, 0 failed" in first.stdout, first.stdout
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=team.env)
    assert again.returncode == 0 and "0 copied, 3 already there, 0 failed" in again.stdout, again.stdout
    for trace_id in ids:
        assert team.request(team.nginx, "GET", f"/api/traces/{trace_id}/summary")[0] == 200
    listed = {t["id"]: t for t in team.json(team.b, "/api/traces")["traces"]}
    for trace in uploaded:
        assert {key: listed[trace["id"]][key] for key in ("name", "uploadedAt", "sizeBytes", "updateCount")} == \
            {key: trace[key] for key in ("name", "uploadedAt", "sizeBytes", "updateCount")}
    # Secrets never appear in what tracesvc prints.
    assert team.env["AWS_SECRET_ACCESS_KEY"] not in first.stdout + first.stderr


def test_secrets_are_never_printed_and_a_password_in_the_url_is_redacted(team):
    binary = str(REPO / ".build" / "debug" / "tracesvc")
    url = team.catalog_url.replace("postgres@", "postgres:hunter2-secret@")
    result = subprocess.run([binary, "migrate", "--from", "/nonexistent-folder", "--catalog", url, "--blobs", team.blobs_url],
                            capture_output=True, text=True, timeout=60, env={**team.env, "LOG_LEVEL": "debug"})
    assert result.returncode != 0
    refused = subprocess.run([binary, "serve", "--port", "0", "--catalog", url.replace(str(team.pg_port), "1"),
                              "--blobs", team.blobs_url], capture_output=True, text=True, timeout=60, env={**team.env, "LOG_LEVEL": "debug"})
    assert refused.returncode == 1
    assert "catalog (PostgreSQL)" in refused.stderr and "***" in refused.stderr + refused.stdout
    for output in (result.stdout, result.stderr, refused.stdout, refused.stderr):
        assert "hunter2-secret" not in output
        assert team.env["AWS_SECRET_ACCESS_KEY"] not in output
    for name in ("a", "b"):
        log = (team.run / f"replica-{name}" / "log").read_text()
        assert team.env["AWS_SECRET_ACCESS_KEY"] not in log


def test_health_readiness_and_metrics_are_served(team):
    assert team.json(team.a, "/healthz") == {"status": "ok"}
    ready = team.json(team.nginx, "/readyz")
    assert ready["ready"] is True
    names = [s["name"] for s in ready["services"]]
    assert names[:2] == ["catalog (PostgreSQL)", "object store (S3)"] and names[2].startswith("replica disk (/"), names
    status, body, headers = team.request(team.a, "GET", "/metrics")
    text = body.decode()
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    for name in ("hb_requests", "http_server_request_duration_bucket", "tracesvc_storage_call_duration_seconds_bucket",
                 "tracesvc_uploads_total", "tracesvc_model_cache_loads_total", "tracesvc_import_duration_seconds_bucket"):
        assert name in text, name


def _wait_for(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_tags_the_history_and_notes_written_through_one_replica_are_read_through_the_other(team):
    """Issue 29 in team mode: the tags, the figures measured at upload and the notes are the
    PostgreSQL catalog's, so every replica answers the same list, history and notes."""
    app = app_name("Cookbook")
    scenario = f"scenario:{app.lower()}"
    ids = []
    for build in range(1, 7):
        data = native_trace(app, updates=20 + build, seed=f"build {build}")
        status, body, _ = team.request(team.a if build % 2 else team.b, "POST",
                                       f"/api/traces?name={app}-{build}.json&tag={scenario}&tag=branch:main&tag=build:{build}",
                                       data, {"Content-Type": "application/octet-stream"})
        assert status == 201, body[:300]
        ids.append(json.loads(body)["trace"]["id"])
    assert team.sql(f"SELECT count(*) FROM trace_totals WHERE trace_id IN ({','.join(repr(i) for i in ids)})") == "6", \
        "the figures are written with the upload"
    for base in (team.a, team.b, team.nginx):
        listed = team.json(base, f"/api/traces?tag={scenario}&limit=4")
        assert listed["total"] == 6 and [t["id"] for t in listed["traces"]] == ids[::-1][:4]
        history = team.json(base, f"/api/history?tag={scenario}&metric=update-count")
        assert [build["median"] for build in history["builds"]] == [21, 22, 23, 24, 25, 26]
        assert history["firstBad"] is None or history["firstBad"]["direction"] == "up"
    # Tags edited on B, a note written on A: both seen at once on the other replica.
    status, body, _ = team.request(team.b, "PATCH", f"/api/traces/{ids[0]}", json.dumps({"add": ["nightly"]}).encode(),
                                   {"Content-Type": "application/json"})
    assert status == 200, body[:300]
    assert "nightly" in team.json(team.a, f"/api/traces/{ids[0]}")["tags"]
    note = {"target": {"kind": "update", "update": 3}, "text": "fixed in #1234: cached the formatter"}
    status, body, _ = team.request(team.a, "POST", f"/api/traces/{ids[1]}/notes", json.dumps(note).encode(),
                                   {"Content-Type": "application/json"})
    assert status == 201, body[:300]
    notes = team.json(team.b, f"/api/traces/{ids[1]}/notes")["notes"]
    assert [n["text"] for n in notes] == [note["text"]]
