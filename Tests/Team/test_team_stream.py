"""Team mode: an upload bigger than one part (16 MB) is sent to the object store while it arrives, as an S3
multipart upload under a key of its own (`blobs/up-…`) that its catalog row names. Against the real engines
(conftest.py); what is left in the bucket is looked at directly with boto3, the catalog with psql."""
import hashlib
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from conftest import native_trace

PART = 16 << 20


def app_name(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:8]


def pending_uploads(team) -> set:
    page = team.bucket().list_multipart_uploads(Bucket="traces", Prefix="blobs/")
    return {(upload["Key"], upload["UploadId"]) for upload in page.get("Uploads", [])}


def settled(team, before_blobs: set, before_uploads: set, seconds=10):
    """Waits (bounded) until no new object and no new unfinished upload is left; returns what is left."""
    deadline = time.monotonic() + seconds
    while True:
        left = (team.blob_keys() - before_blobs, pending_uploads(team) - before_uploads)
        if left == (set(), set()) or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def test_a_body_of_several_parts_is_stored_under_its_own_key_and_reads_back_byte_exact(team):
    app = app_name("Trails")
    data = native_trace(app, updates=40, padding=2 * PART + (9 << 20))
    uploads_before = pending_uploads(team)
    status, uploaded = team.upload(team.a, data, f"{app}.json")
    assert status == 201, uploaded
    trace_id = uploaded["trace"]["id"]
    sha = hashlib.sha256(data).hexdigest()
    key = team.sql(f"SELECT blob_key FROM traces WHERE id = '{trace_id}'")
    assert key.startswith("up-") and len(key) == 35, key
    assert team.sql(f"SELECT sha256 FROM traces WHERE id = '{trace_id}'") == sha
    keys = team.blob_keys()
    assert key in keys and sha not in keys
    assert team.bucket().get_object(Bucket="traces", Key=f"blobs/{key}")["Body"].read() == data
    assert pending_uploads(team) - uploads_before == set()
    # Replica B never saw it: it fetches the blob by the row's key and checks it against the row's hash.
    status, body, _ = team.request(team.b, "GET", f"/api/traces/{trace_id}/file")
    assert status == 200 and body == data
    assert team.json(team.b, f"/api/traces/{trace_id}")["counts"]["updates"] == 40
    # A body of one part is still one PUT under its content hash, its row without a key of its own,
    # as every row written before blob keys existed: it reads through the other replica as before.
    small = native_trace(app, updates=12, padding=1 << 20)
    status, uploaded = team.upload(team.b, small, f"{app}-small.json")
    assert status == 201, uploaded
    assert team.sql(f"SELECT coalesce(blob_key, 'NULL') FROM traces WHERE id = '{uploaded['trace']['id']}'") == "NULL"
    assert hashlib.sha256(small).hexdigest() in team.blob_keys()
    status, body, _ = team.request(team.a, "GET", f"/api/traces/{uploaded['trace']['id']}/file")
    assert status == 200 and body == small


def test_the_same_big_file_through_both_replicas_at_once_is_one_row_and_one_object(team):
    app = app_name("Harbor")
    data = native_trace(app, updates=30, padding=PART + (3 << 20))
    blobs_before, uploads_before = team.blob_keys(), pending_uploads(team)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda base: team.upload(base, data, f"{app}.json"), [team.a, team.b, team.a, team.b]))
    assert sorted(status for status, _ in results) == [200, 200, 200, 201], [(s, b.get("error")) for s, b in results]
    assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "1"
    key = team.sql(f"SELECT coalesce(blob_key, sha256) FROM traces WHERE app = '{app}'")
    # The uploads that lost dropped (or removed) their own copies before answering.
    assert settled(team, blobs_before | {key}, uploads_before) == (set(), set())
    assert key in team.blob_keys()
    # Uploaded again later: the stored blob is named, nothing new is stored.
    status, body = team.upload(team.b, data, f"{app}.json")
    assert status == 200, body
    assert settled(team, blobs_before | {key}, uploads_before) == (set(), set())


def test_a_parse_error_mid_stream_stores_nothing(team):
    app = app_name("Ledger")
    data = bytearray(native_trace(app, updates=20, padding=2 * PART + (5 << 20)))
    data[len(data) - (4 << 20)] = ord("x")  # past the second part: the parts before it were sent already
    blobs_before, uploads_before = team.blob_keys(), pending_uploads(team)
    status, body = team.upload(team.a, bytes(data), f"{app}.json")
    assert status == 422, body
    assert settled(team, blobs_before, uploads_before) == (set(), set())
    assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "0"


def test_a_client_leaving_mid_body_stores_nothing(team):
    app = app_name("Orbit")
    data = native_trace(app, updates=20, padding=3 * PART)
    blobs_before, uploads_before = team.blob_keys(), pending_uploads(team)
    connection = team.upload_in_part(team.a, data, f"{app}.json", sent=2 * PART + (4 << 20))
    time.sleep(1)  # the parts that arrived are on their way to the store
    connection.close()
    assert settled(team, blobs_before, uploads_before) == (set(), set())
    assert team.sql(f"SELECT count(*) FROM traces WHERE app = '{app}'") == "0"
    # The replica is fine and takes the upload whole.
    status, uploaded = team.upload(team.a, data, f"{app}.json")
    assert status == 201, uploaded
