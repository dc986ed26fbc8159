"""`tracesvc migrate` carries everything of an embedded data directory into team mode: traces with their tags,
notes, check verdicts and history figures (the history is whole at once, nothing parsed again); the source
folder is only read (every byte hashed before and after); the report counts each kind (copied / already there
/ failed), and a second run completes what the first could not."""
import hashlib
import json
import os
import subprocess
import time
import uuid
from pathlib import Path

from conftest import REPO, native_trace


def folder_digest(folder: Path) -> str:
    """Every file's path, mode and bytes, and every folder's name, in order."""
    digest = hashlib.sha256()
    for root, folders, files in os.walk(folder):
        folders.sort()
        digest.update(f"dir {os.path.relpath(root, folder)}\n".encode())
        for name in sorted(files):
            path = Path(root) / name
            digest.update(f"file {path.relative_to(folder)} {path.stat().st_mode:o}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_migrate_carries_tags_notes_verdicts_and_history_figures_and_never_changes_the_source(team, tmp_path):
    binary = os.environ.get("TRACESVC_BIN", str(REPO / ".build" / "debug" / "tracesvc"))
    app = "Atlas" + uuid.uuid4().hex[:8]
    data_dir = tmp_path / "embedded"
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data_dir)], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    json_headers = {"Content-Type": "application/json"}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if team.request(base, "GET", "/healthz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the embedded server did not start"
            time.sleep(0.2)
        ids = []
        for n in range(3):
            status, body = team.upload(base, native_trace(app, updates=14 + n, seed=str(n)), f"{app}-{n}.json&tag=project:{app}&tag=build:{n + 1}")
            assert status == 201, body
            ids.append(body["trace"]["id"])
        status, note, _ = team.request(base, "POST", f"/api/traces/{ids[0]}/notes",
                                       json.dumps({"target": {"kind": "update", "update": 3}, "text": "slow row: cached the formatter"}).encode(), json_headers)
        assert status == 201, note
        status, verdict, _ = team.request(base, "POST", f"/api/traces/{ids[1]}/checks",
                                          json.dumps({"passed": False, "failedRules": 1, "rules": 4, "summary": "1 of 4 rules failed"}).encode(), json_headers)
        assert status == 201, verdict
        history = team.json(base, f"/api/history?tag=project:{app}&metric=body-count")
        assert history["matched"] == 3 and history["pending"] == 0, history
    finally:
        server.terminate()
        server.wait(timeout=30)
    before = folder_digest(data_dir)

    command = [binary, "migrate", "--from", str(data_dir), "--catalog", team.catalog_url, "--blobs", team.blobs_url]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300, env=team.env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert folder_digest(data_dir) == before, "migrate changed the folder it copies from"
    for line in ("traces: 3 copied, 0 already there, 0 failed", "notes: 1 copied, 0 already there, 0 failed",
                 "check verdicts: 1 copied, 0 already there, 0 failed", "history figures: 3 copied, 0 already there, 0 failed"):
        assert line in first.stdout, first.stdout
    # The figures arrived with the rows, measured by this release: nothing for the replicas to parse again.
    id_list = ",".join(f"'{trace_id}'" for trace_id in ids)
    assert team.sql(f"SELECT count(*) FROM trace_totals WHERE trace_id IN ({id_list})") == "3"

    # Seen through the team as it was embedded: tags, the note, the verdict, the history.
    listed = {trace["id"]: trace for trace in team.json(team.nginx, f"/api/traces?q={app}")["traces"]}
    assert sorted(listed) == sorted(ids)
    assert f"project:{app}" in listed[ids[2]]["tags"] and "build:3" in listed[ids[2]]["tags"], listed[ids[2]]
    notes = team.json(team.nginx, f"/api/traces/{ids[0]}/notes")["notes"]
    assert [n["text"] for n in notes] == ["slow row: cached the formatter"] and notes[0]["id"] == json.loads(note)["id"]
    history = team.json(team.nginx, f"/api/history?tag=project:{app}&metric=body-count")
    assert history["matched"] == 3 and history["pending"] == 0, history
    checks = [trace.get("check") for build in history["builds"] for trace in build["traces"] if trace["id"] == ids[1]]
    assert checks and checks[0]["passed"] is False and checks[0]["summary"] == "1 of 4 rules failed", history["builds"]

    # A first run that stopped before the notes: the second brings them, and copies nothing twice.
    team.sql(f"DELETE FROM trace_notes WHERE trace_id = '{ids[0]}'")
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=team.env)
    assert again.returncode == 0, again.stdout + again.stderr
    for line in ("traces: 0 copied, 3 already there, 0 failed", "notes: 1 copied, 0 already there, 0 failed",
                 "check verdicts: 0 copied, 1 already there, 0 failed", "history figures: 0 copied, 3 already there, 0 failed"):
        assert line in again.stdout, again.stdout
    assert [n["text"] for n in team.json(team.nginx, f"/api/traces/{ids[0]}/notes")["notes"]] == ["slow row: cached the formatter"]
    assert folder_digest(data_dir) == before
