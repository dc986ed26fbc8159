"""Fail fast, stay up: with a service frozen (SIGSTOP: connections are accepted and never answered, the
harder outage), every request is answered within 3 s, a 200 or a JSON 503 naming the service, never a hang;
once the service is back, the replicas use it again within 5 s without a restart."""
import json
import signal
import socket
import time
import uuid

from conftest import native_trace

ANSWER_SECONDS = 3.0
RECOVERY_SECONDS = 5.0


def timed(team, base, method, path, body=None, headers=None):
    started = time.monotonic()
    try:
        status, answer, _ = team.request(base, method, path, body, headers, timeout=10)
    except (socket.timeout, TimeoutError):
        status, answer = None, b""
    return status, answer, time.monotonic() - started


def assert_fast_answer(what, status, answer, took, service_word):
    assert status is not None and took < ANSWER_SECONDS, f"{what} took {took:.1f} s (status {status})"
    assert status in (200, 201, 503), f"{what}: {status} {answer[:300]!r}"
    if status == 503:
        error = json.loads(answer)
        assert service_word in error.get("error", "") + error["detail"], f"{what}: the 503 does not name the {service_word}: {error}"


def test_a_frozen_object_store_answers_every_request_within_3_s_and_recovers_within_5_s(team):
    app = "Ledger" + uuid.uuid4().hex[:8]
    ids = []
    for i in range(4):
        status, body = team.upload(team.a, native_trace(app, updates=24 + i), f"{app}-{i}.json")
        assert status == 201, body
        ids.append(body["trace"]["id"])
    warm = ids[0]
    assert team.request(team.a, "GET", f"/api/traces/{warm}/summary")[0] == 200
    # ids[1:] were never opened on replica b: reading them there needs their bytes from the store.
    cold_during, cold_after = ids[1:3], ids[3]

    team.object_store(signal.SIGSTOP)
    try:
        answers = {}
        frozen_at = time.monotonic()
        round_number = 0
        while time.monotonic() - frozen_at < 10:
            requests = [
                ("cold read on b", team.b, "GET", f"/api/traces/{cold_during[round_number % 2]}/summary", None, None),
                ("upload on a", team.a, "POST", "/api/traces?name=x.json", native_trace(app, seed=uuid.uuid4().hex),
                 {"Content-Type": "application/octet-stream"}),
                ("list on b", team.b, "GET", f"/api/traces?app={app}", None, None),
                ("warm read on a", team.a, "GET", f"/api/traces/{warm}/timeline?width=100", None, None),
                ("list through nginx", team.nginx, "GET", f"/api/traces?app={app}", None, None),
                ("readiness of b", team.b, "GET", "/readyz", None, None),
            ]
            for what, base, method, path, body, headers in requests:
                status, answer, took = timed(team, base, method, path, body, headers)
                assert_fast_answer(what, status, answer, took, "object store")
                answers.setdefault(what, set()).add(status)
            round_number += 1
        assert round_number >= 3
        assert answers["upload on a"] == {503}, "an upload cannot be stored while the store is frozen"
        assert answers["cold read on b"] == {503}
        assert answers["readiness of b"] == {503}
        assert answers["list on b"] == {200} and answers["warm read on a"] == {200} and answers["list through nginx"] == {200}, answers
    finally:
        team.object_store(signal.SIGCONT)
    thawed_at = time.monotonic()
    while True:
        cold = team.request(team.b, "GET", f"/api/traces/{cold_after}/summary", timeout=10)[0]
        upload = team.request(team.a, "POST", "/api/traces?name=y.json", native_trace(app, seed=uuid.uuid4().hex),
                              {"Content-Type": "application/octet-stream"}, timeout=10)[0]
        if cold == 200 and upload == 201:
            break
        assert time.monotonic() - thawed_at < RECOVERY_SECONDS, f"not recovered {RECOVERY_SECONDS} s after the store's return: {cold} {upload}"
        time.sleep(0.2)
    recovered = time.monotonic() - thawed_at
    assert team.request(team.b, "GET", "/readyz")[0] == 200
    print(f"recovered {recovered:.1f} s after the store's return")


def test_a_frozen_catalog_answers_every_request_within_3_s_and_recovers_within_5_s(team):
    app = "Ledger" + uuid.uuid4().hex[:8]
    status, body = team.upload(team.a, native_trace(app), f"{app}.json")
    assert status == 201, body
    warm = body["trace"]["id"]
    assert team.request(team.a, "GET", f"/api/traces/{warm}/summary")[0] == 200

    team.postgres_signal(signal.SIGSTOP)
    try:
        frozen_at = time.monotonic()
        rounds = 0
        while time.monotonic() - frozen_at < 8:
            for what, base, method, path in [
                ("list on b", team.b, "GET", f"/api/traces?app={app}"),
                ("warm read on a", team.a, "GET", f"/api/traces/{warm}/timeline?width=100"),
                ("readiness of a", team.a, "GET", "/readyz"),
            ]:
                status, answer, took = timed(team, base, method, path)
                assert_fast_answer(what, status, answer, took, "catalog")
            rounds += 1
        assert rounds >= 3
    finally:
        team.postgres_signal(signal.SIGCONT)
    thawed_at = time.monotonic()
    while team.request(team.b, "GET", f"/api/traces?app={app}", timeout=10)[0] != 200:
        assert time.monotonic() - thawed_at < RECOVERY_SECONDS, "the catalog is not used again 5 s after its return"
        time.sleep(0.2)
