"""A delete by query on PostgreSQL whose audit record cannot be written deletes nothing (issue 39): each
batch is recorded before it is deleted, so no trace goes without its record. The audit table refuses
inserts through a trigger for the length of the test."""
import json
import uuid

from conftest import native_trace


def test_a_delete_by_query_the_audit_log_cannot_record_deletes_nothing(team):
    tag = f"cleanup:{uuid.uuid4().hex[:10]}"
    ids = []
    for n in range(3):
        status, body, _ = team.request(team.a, "POST", f"/api/traces?name=quay-{n}.json&tag={tag}",
                                       native_trace("Quay", seed=uuid.uuid4().hex), {"Content-Type": "application/octet-stream"})
        assert status == 201, body[:300]
        ids.append(json.loads(body)["trace"]["id"])
    before = int(team.sql(f"SELECT count(*) FROM audit_events WHERE action = 'delete' AND trace_id IN ({', '.join(repr(i) for i in ids)})"))
    assert before == 0
    team.sql("CREATE OR REPLACE FUNCTION audit_refused() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit log is read-only'; END $$ LANGUAGE plpgsql")
    team.sql("CREATE TRIGGER audit_refused BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_refused()")
    try:
        status, body, _ = team.request(team.b, "DELETE", f"/api/traces?tag={tag}")
        assert status == 503, body[:300]
        answer = json.loads(body)
        assert answer["error"] == "audit log unavailable" and "audit_events" in answer["detail"], answer
        listed = {trace["id"] for trace in team.json(team.a, f"/api/traces?tag={tag}")["traces"]}
        assert listed == set(ids), "nothing was deleted"
    finally:
        team.sql("DROP TRIGGER IF EXISTS audit_refused ON audit_events")
        team.sql("DROP FUNCTION IF EXISTS audit_refused()")
    status, body, _ = team.request(team.b, "DELETE", f"/api/traces?tag={tag}")
    assert status == 200 and json.loads(body)["deleted"] == 3, body[:300]
    recorded = int(team.sql(f"SELECT count(*) FROM audit_events WHERE action = 'delete' AND trace_id IN ({', '.join(repr(i) for i in ids)})"))
    assert recorded == 3, "each deleted trace recorded once"
