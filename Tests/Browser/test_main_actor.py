"""Swift concurrency through the analysis (issue 26), in Chromium against a real `tracesvc serve`:
the main-actor findings and their task links, the cause chain from a task to the bodies it ran in
the Cause & Effect graph (the task node opens the task), and the comparison's frames and Main
Actor rows, in the words `tracesvc compare` prints. On the Landmarks concurrency samples and on
another app (Harbor, Tests/Fixtures/harbor-conversation*.json: other task, actor and view names;
-time-only's write is tied to its task by time only). A budget offender's link opens its task."""

import json
import os
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

SLOW = "landmarks-concurrency-slow"
FIXED = "landmarks-concurrency-fixed"
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "Fixtures"


def findings(server, trace_id):
    with urllib.request.urlopen(f"{server}/api/traces/{trace_id}/findings") as response:
        return json.load(response)["findings"]


def query_of(page):
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


@pytest.fixture(scope="module")
def harbor(server_control):
    """Ids of the Harbor traces: decoding on the Main Actor, and moved off it."""
    slow = server_control.upload(FIXTURES / "harbor-conversation.json")["id"]
    fixed = server_control.upload(FIXTURES / "harbor-conversation-fixed.json")["id"]
    return slow, fixed


def wait_graph(page):
    page.wait_for_selector(".cg-root:not([aria-busy]) .cg-node", state="attached", timeout=30_000)


def node(page, title):
    return page.locator(".cg-node", has=page.locator(".cg-title", has_text=title)).first


def box(locator):
    b = locator.locator(".cg-box").bounding_box()
    assert b, "node not drawn"
    return b


def test_the_findings_pane_names_the_task_that_blocked_the_main_actor(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    page.goto(f"{server}/traces/{trace_id}?v=2&p=findings")
    blocked = page.locator('.finding[data-kind="main-actor-blocked"]')
    expect(blocked).to_contain_text("LandmarkImageLoader.loadImages(for:) ran on the Main Actor for 120 ms")
    expect(blocked).to_contain_text("View.task @ Landmarks/LandmarkDetail.swift:58")
    # One incident (issue 41): MapView's wait and the hitch are its parts, not findings of their own.
    expect(page.locator('.finding[data-kind="main-actor-wait"]')).to_have_count(0)
    expect(page.locator('.finding[data-kind="hitch-explained"]')).to_have_count(0)
    expect(blocked.locator(".finding-parts-count")).to_have_text("3 parts")

    blocked.locator(".finding-head").click()
    body = blocked.locator(".finding-body")
    wait = body.locator('.finding-part[data-kind="main-actor-wait"]')
    expect(wait).to_contain_text("View.task @ Landmarks/MapView.swift:31 waited 120 ms for the Main Actor while Task 502 ran")
    # The hitch names the task too, and never claims to save 0: the incident's saving is its largest part's.
    hitch = body.locator('.finding-part[data-kind="hitch-explained"]')
    expect(hitch).to_contain_text("Task 502")
    expect(hitch).to_contain_text("Hitch · 125 ms")
    expect(body).to_contain_text("the fix would save about 121 ms")
    expect(body).to_contain_text("@concurrent")
    expect(body.locator(".subject-task", has_text="Task 502")).to_be_visible()
    expect(body.locator(".subject-function", has_text="LandmarkImageLoader.loadImages(for:)")).to_be_visible()
    shot(page, "main-actor-01-finding")

    # The task link shows the run in the side panel, the finding still open.
    body.get_by_role("link", name="Task: Task 502").click()
    details = page.locator("#update-details")
    expect(details.locator("#task-details-title")).to_have_text("Task 502")
    expect(details).to_contain_text("LandmarkImageLoader.loadImages(for:)")
    expect(details).to_contain_text("Running 120 ms")
    assert query_of(page)["fd"][0].startswith("main-actor-blocked:")
    assert "ts" in query_of(page)
    expect(page.locator('.finding[data-kind="main-actor-blocked"].open')).to_be_visible()
    assert not page.errors


def test_the_cause_graph_starts_at_the_task_and_its_node_opens_the_task(page, server, sample_id, shot):
    trace_id = sample_id(SLOW)
    blocked = next(f for f in findings(server, trace_id) if f["kind"] == "main-actor-blocked")
    update = blocked["evidence"]["representativeUpdate"]
    page.goto(f"{server}/traces/{trace_id}/updates/{update}?v=2&p=graph&g=u{update}")
    wait_graph(page)

    creator = node(page, "View.task @ Landmarks/LandmarkDetail.swift:58")
    run = node(page, "Task 502")
    state = node(page, "@Observable LandmarkImageLoader.images")
    body = node(page, "LandmarkDetail")
    waiter = node(page, "View.task @ Landmarks/MapView.swift:31")
    for task in (creator, run, waiter):
        expect(task).to_have_attribute("data-kind", "swift-task")
    expect(run.locator(".cg-subtitle")).to_have_text("ran 120 ms on the Main Actor")
    expect(waiter.locator(".cg-subtitle")).to_contain_text("waited 120 ms")
    # Left to right: the .task that created it, the task, the state it wrote, the body that ran.
    xs = [box(n)["x"] for n in (creator, run, state, body)]
    assert xs == sorted(xs) and len(set(xs)) == 4, xs
    expect(page.locator(".cg-edge-label", has_text="wrote")).to_have_count(1)
    expect(page.locator(".cg-edge-waited")).to_have_count(1)
    shot(page, "main-actor-02-cause-chain")

    # A click opens the task in the side panel; the graph stays the update's.
    run.click()
    details = page.locator("#update-details")
    expect(details.locator("#task-details-title")).to_have_text("Task 502")
    expect(details).to_contain_text("LandmarkImageLoader.loadImages(for:)")
    query = query_of(page)
    assert query["g"] == [f"u{update}"] and "ts" in query, query
    expect(page.locator(".cg-info")).to_contain_text("Written on the thread the task ran on, while it ran.")
    expect(node(page, "Task 502")).to_have_attribute("aria-pressed", "true")

    # The waiting task opens its wait.
    node(page, "View.task @ Landmarks/MapView.swift:31").click()
    expect(details.locator("#task-details-title")).to_have_text("View.task @ Landmarks/MapView.swift:31")
    expect(details).to_contain_text("Enqueued 120")
    shot(page, "main-actor-03-task-from-graph")
    assert not page.errors


def test_comparing_slow_with_fixed_shows_the_main_actor_freed_and_no_regression(page, server, sample_id, shot):
    a, b = sample_id(SLOW), sample_id(FIXED)
    page.goto(f"{server}/compare/{a}/{b}?v=2")
    stack = page.locator('#compare-views tr[data-view="NavigationStack"]')
    expect(stack).to_have_attribute("data-change", "follows-frames")
    expect(stack.locator("td.count-change")).to_have_text("more frames drawn: +14")
    expect(stack.locator(".badge.ns")).to_have_count(0)
    expect(page.locator('#compare-views tr[data-change="regressed"]')).to_have_count(0)
    expect(page.locator("#compare-views").locator("xpath=ancestor::section")).to_contain_text("the count followed the frames drawn (58 → 72)")

    frames = page.locator('#compare-totals tr[data-total="frames"]')
    expect(frames).to_contain_text("58 → 72")
    expect(frames.locator("td.change")).to_have_text("more frames drawn: +14")

    busy = page.locator('#compare-main-actor tr[data-main-actor="main-actor-busy"]')
    expect(busy).to_have_class("change-improved")
    expect(busy.locator("td.change")).to_have_text("better")
    longest = page.locator('#compare-main-actor tr[data-main-actor="main-actor-longest-wait"]')
    expect(longest).to_contain_text("120 ms →")
    map_row = page.locator('#compare-tasks tr[data-function="MapView.updateRegion()"]')
    expect(map_row.locator("td.change")).to_have_text("better")
    moved = page.locator('#compare-tasks tr[data-function="LandmarkImageLoader.loadImages(for:)"][data-actor="Global Concurrent Executor"]')
    expect(moved.locator("td.change")).to_have_text("new")
    page.locator("#compare-main-actor").scroll_into_view_if_needed()
    shot(page, "main-actor-04-compare")

    # `tracesvc compare` says the same words for the same rows.
    binary = os.environ.get("TRACESVC_BIN") or str(ROOT / ".build" / "debug" / "tracesvc")
    cli = subprocess.run([binary, "compare", str(ROOT / "SampleTraces" / f"{SLOW}.json"), str(ROOT / "SampleTraces" / f"{FIXED}.json")],
                         capture_output=True, text=True, check=True).stdout
    stack_line = next(line for line in cli.splitlines() if "NavigationStack (SwiftUI" in line)
    assert "more frames drawn: +14" in stack_line and "regressed" not in cli and "slower" not in stack_line
    # The table's row (the verdict's line above it starts with its tone).
    busy_line = next(line for line in cli.splitlines() if line.lstrip().startswith("Main Actor busy"))
    assert busy_line.rstrip().endswith("better")
    assert not page.errors


def test_one_incident_is_one_finding_with_its_parts_and_the_total_counts_shared_time_once(page, server, harbor, shot):
    """Harbor's 45 ms decode on the Main Actor, the composer's 40 ms wait behind it and the 50 ms
    hitch it caused: one finding with three parts; the list's total is the time they cover, not 135 ms."""
    slow, fixed = harbor
    with urllib.request.urlopen(f"{server}/api/traces/{slow}/findings") as response:
        answer = json.load(response)
    incident = next(f for f in answer["findings"] if f["parts"])
    assert [part["kind"] for part in incident["parts"]] == ["main-actor-blocked", "hitch-explained", "main-actor-wait"]
    assert answer["costNs"] < sum(part["costNs"] for part in incident["parts"])
    assert not any(f["kind"] in ("main-actor-wait", "hitch-explained") for f in answer["findings"])

    page.goto(f"{server}/traces/{slow}?v=2&p=findings")
    rows = page.locator(".finding")
    expect(rows).to_have_count(len(answer["findings"]))
    total_ms = answer["costNs"] / 1e6
    expect(page.locator(".findings-intro")).to_contain_text("in all (time two findings share counted once)")
    expect(page.locator(".findings-intro")).to_contain_text(f"{total_ms:.1f} ms" if total_ms < 100 else f"{total_ms:.0f} ms")
    row = page.locator(f'.finding[data-id="{incident["id"]}"]')
    expect(row.locator(".finding-parts-count")).to_have_text("3 parts")
    expect(row.locator(".finding-title")).to_contain_text("(one incident with a hitch and a Main Actor wait:")
    row.locator(".finding-head").click()
    parts = row.locator(".finding-part")
    expect(parts).to_have_count(3)
    assert parts.evaluate_all("(items) => items.map((item) => item.dataset.kind)") == ["main-actor-blocked", "hitch-explained", "main-actor-wait"]
    expect(parts.nth(1)).to_contain_text("Hitch · 50.0 ms")
    expect(parts.nth(2)).to_contain_text("Main Actor wait · 40.0 ms")
    expect(parts.nth(2)).to_contain_text("View.task @ Harbor/ComposerView.swift:19 waited 40.0 ms")
    shot(page, "findings-incident-parts")
    # The wait's task opens in the side panel, the incident still open.
    parts.nth(2).get_by_role("link", name="Task: View.task @ Harbor/ComposerView.swift:19").click()
    expect(page.locator("#update-details #task-details-title")).to_have_text("View.task @ Harbor/ComposerView.swift:19")
    expect(page.locator(f'.finding.open[data-id="{incident["id"]}"]')).to_be_visible()
    assert not page.errors


def test_another_app_reads_the_same(page, server, harbor, shot):
    slow, fixed = harbor
    page.goto(f"{server}/traces/{slow}?v=2&p=findings")
    blocked = page.locator('.finding[data-kind="main-actor-blocked"]')
    expect(blocked).to_contain_text("MessageStore.decodeHistory() ran on the Main Actor for 45.0 ms in Task 7002 (created by View.task @ Harbor/ConversationView.swift:44)")
    expect(blocked).to_contain_text("View.task @ Harbor/ComposerView.swift:19 waited 40.0 ms")

    update = next(f for f in findings(server, slow) if f["kind"] == "main-actor-blocked")["evidence"]["representativeUpdate"]
    page.goto(f"{server}/traces/{slow}/updates/{update}?v=2&p=graph&g=u{update}")
    wait_graph(page)
    run = node(page, "Task 7002")
    expect(run).to_have_attribute("data-kind", "swift-task")
    expect(node(page, "View.task @ Harbor/ConversationView.swift:44")).to_have_attribute("data-kind", "swift-task")
    assert box(run)["x"] < box(node(page, "@State messages"))["x"] < box(node(page, "ConversationView"))["x"]
    run.click()
    expect(page.locator("#update-details #task-details-title")).to_have_text("Task 7002")

    page.goto(f"{server}/compare/{slow}/{fixed}?v=2")
    scroll = page.locator('#compare-views tr[data-view="ScrollView"]')
    expect(scroll).to_have_attribute("data-change", "follows-frames")
    expect(page.locator('#compare-tasks tr[data-function="MessageStore.decodeHistory()"][data-actor="Global Concurrent Executor"] td.change')).to_have_text("new")
    expect(page.locator('#compare-tasks tr[data-function="AttachmentStore.prefetch(_:)"][data-actor="AttachmentStore"] td.change')).to_have_text("same")
    shot(page, "main-actor-05-harbor-compare")
    assert not page.errors


def check(server, trace, budget, tmp_path):
    """`tracesvc check TRACE --budget BUDGET --format json --server SERVER`: its exit status and report."""
    path = tmp_path / "budget.json"
    path.write_text(budget)
    binary = os.environ.get("TRACESVC_BIN") or str(ROOT / ".build" / "debug" / "tracesvc")
    run = subprocess.run([binary, "check", str(trace), "--budget", str(path), "--format", "json", "--server", server],
                         capture_output=True, text=True, timeout=300)
    return run.returncode, json.loads(run.stdout)


def guide_budget():
    """The budget of docs/ci.md's "Guarding the Main Actor"."""
    section = (ROOT / "docs" / "ci.md").read_text().split("### Guarding the Main Actor")[1]
    return section.split("```json\n")[1].split("```")[0]


def offender_link(report, metric):
    result = next(r for r in report["results"] if r["metric"] == metric)
    assert not result["passed"], result
    offender = result["offenders"][0]
    assert offender["taskState"] is not None and "ts=" in offender["link"], offender
    return offender


def test_a_budget_offender_links_to_its_task(page, server, shot, tmp_path):
    """The guide's Main Actor budget fails the slow sample and passes the fixed one; each offender's
    link (uploaded with --server) opens the trace at the task's run or wait, its details shown."""
    status, report = check(server, ROOT / "SampleTraces" / f"{FIXED}.json", guide_budget(), tmp_path)
    assert status == 0 and report["passed"], report
    status, report = check(server, ROOT / "SampleTraces" / f"{SLOW}.json", guide_budget(), tmp_path)
    assert status == 1 and all(not r["passed"] for r in report["results"]), report

    run = offender_link(report, "main-actor-tasks-over")
    page.goto(run["link"])
    details = page.locator("#update-details")
    expect(details.locator("#task-details-title")).to_have_text("Task 502")
    expect(details).to_contain_text("LandmarkImageLoader.loadImages(for:)")
    expect(details).to_contain_text("Running 120 ms")
    shot(page, "main-actor-06-budget-offender")

    wait = offender_link(report, "main-actor-wait-longest")
    page.goto(wait["link"])
    expect(details.locator("#task-details-title")).to_have_text("View.task @ Landmarks/MapView.swift:31")
    expect(details).to_contain_text("Enqueued 120")
    assert not page.errors


def test_another_apps_budget_offender_links_to_its_task(page, server, tmp_path):
    budget = json.dumps({"version": 1, "rules": [
        {"metric": "main-actor-tasks-over", "max": 0},
        {"metric": "main-actor-wait-longest", "functions": "ComposerView.*", "max": "16ms"},
    ]})
    status, report = check(server, FIXTURES / "harbor-conversation-fixed.json", budget, tmp_path)
    assert status == 0, report
    status, report = check(server, FIXTURES / "harbor-conversation.json", budget, tmp_path)
    assert status == 1, report

    page.goto(offender_link(report, "main-actor-tasks-over")["link"])
    details = page.locator("#update-details")
    expect(details.locator("#task-details-title")).to_have_text("Task 7002")
    expect(details).to_contain_text("MessageStore.decodeHistory()")
    page.goto(offender_link(report, "main-actor-wait-longest")["link"])
    expect(details.locator("#task-details-title")).to_have_text("View.task @ Harbor/ComposerView.swift:19")
    assert not page.errors


def test_a_write_tied_to_the_task_by_time_only_says_it_is_unsure(page, server, server_control, shot):
    """Harbor's messages write names no thread and no resume function: the task is still drawn
    before the state, marked "same time only", and its card says why it is only probable."""
    trace_id = server_control.upload(FIXTURES / "harbor-conversation-time-only.json")["id"]
    update = next(f for f in findings(server, trace_id) if f["kind"] == "main-actor-blocked")["evidence"]["representativeUpdate"]
    page.goto(f"{server}/traces/{trace_id}/updates/{update}?v=2&p=graph&g=u{update}")
    wait_graph(page)
    run = node(page, "Task 7002")
    expect(run.locator(".cg-subtitle")).to_contain_text("(same time only)")
    assert box(run)["x"] < box(node(page, "@State messages"))["x"]
    run.click()
    expect(page.locator("#update-details #task-details-title")).to_have_text("Task 7002")
    expect(page.locator(".cg-info .cg-info-note")).to_have_text(
        "Probably: the change names no thread and no resume function; this was the only task on the Main Actor at that time.")
    shot(page, "main-actor-07-time-only")
    assert not page.errors


def test_a_recording_without_cpu_samples_never_reads_blocked(page, server, server_control, tmp_path):
    """A SwiftUI-only xctrace export (hangs and hitches, no Time Profiler table): the findings
    pane says busy or blocked cannot be told, never 'blocked (0% on CPU)', and how to record it."""
    import tarfile
    xctrace = ROOT / "Tests" / "TraceFormatsTests" / "Fixtures" / "xctrace"
    bundle = tmp_path / "swiftui-only.tar"
    with tarfile.open(bundle, "w") as tar:
        for table in ["toc", "swiftui-updates", "swiftui-update-groups", "swiftui-causes", "swiftui-changes",
                      "potential-hangs", "hitches", "hitches-renders"]:
            tar.add(xctrace / f"{table}.xml", arcname=f"swiftui-only/{table}.xml")
    trace_id = server_control.upload(bundle)["id"]
    page.goto(f"{server}/traces/{trace_id}?v=2&p=findings")
    readings = page.locator('.finding[data-kind="hang-explained"], .finding[data-kind="hitch-explained"]')
    expect(readings.first).to_be_visible()
    assert readings.count() >= 2
    for i in range(readings.count()):
        reading = readings.nth(i)
        expect(reading.locator(".finding-title")).to_contain_text("the recording has no CPU data, so whether the main thread was busy or blocked cannot be told")
        expect(reading).not_to_contain_text("on CPU")
    readings.first.locator(".finding-head").click()
    expect(readings.first.locator(".finding-body")).to_contain_text("Record with the Time Profiler")
    assert not page.errors


def test_task_states_of_a_real_export_read_whole(page, server, server_control):
    """An export's SwiftTaskStateTable alone (a Harbor recording, Tests/TraceFormatsTests/Fixtures/
    xctrace-task-states): the 5.5 s Waiting state is shown as Waiting on the task it awaits, the
    task's whole range comes from its states (no lifetime table), and the unknown state is noted."""
    xml = ROOT / "Tests" / "TraceFormatsTests" / "Fixtures" / "xctrace-task-states" / "SwiftTaskStateTable.xml"
    trace_id = server_control.upload(xml, name="harbor-tasks.xml")["id"]
    row = 0
    while True:
        status, state = server_control.api(f"/api/traces/{trace_id}/task-states/{row}")
        assert status == 200, "no Waiting state in the export"
        if state["state"] == "waiting":
            break
        row += 1
    page.goto(f"{server}/traces/{trace_id}?v=2&ts={row}")
    details = page.locator("#update-details")
    expect(details.locator("#task-details-title")).to_have_text("View.task @ Harbor/InboxView.swift:22")
    expect(details).to_contain_text("Waiting for")
    expect(details).to_contain_text("Task 301 (task 301 in Harbor (5120))")
    expect(details.locator("#task-states tr.current")).to_contain_text("Waiting")
    expect(details).not_to_contain_text("never resumed")
    details.get_by_role("button", name="Range: whole task").click()
    page.wait_for_function("() => new URLSearchParams(location.search).has('r')")
    start, end = (int(v) for v in query_of(page)["r"][0].split(","))
    assert (start, end) == (2_000_000_000, 7_507_040_000), (start, end)
    notes = page.locator(".import-notes")
    notes.locator("summary").click()
    expect(notes).to_contain_text('task state "Sleeping" is not one tracesvc knows (2 rows): read as unknown.')
    expect(notes).to_contain_text("each task's lifetime is taken from its first and last state")
    assert not page.errors
