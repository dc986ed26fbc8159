"""The agent interface (docs/agents.md) through a real MCP client, the Python `mcp` SDK from PyPI:
`tracesvc mcp --server URL` over stdio and `POST /mcp` on the server, on the Landmarks samples and
on recordings of another app (Pantry, from `tracesvc generate --scenario`)."""
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pyhelpers"))
from tracesvc_test import REPO, free_port, http_request, tracesvc_bin, wait_until_serving, xctrace_tar  # noqa: E402

TOKEN = "agent-test-token"
MAX_ANSWER = 16 * 1024
TOOLS = {"list_traces", "trace_overview", "findings", "view_updates", "why_update", "cpu_hotspots", "compare", "history", "add_note"}


def request(url, method="GET", body=None, headers=None):
    return http_request(url, method, body, headers, timeout=30)[:2]


def trips_export() -> bytes:
    """toc.xml and the time profile of Tests/TraceFormatsTests/Fixtures/xctrace-27."""
    return xctrace_tar(REPO / "Tests" / "TraceFormatsTests" / "Fixtures" / "xctrace-27", "trips", ["time-profile"])


@pytest.fixture(scope="module")
def server():
    """A `tracesvc serve` with a write token, the samples, and two uploads of another app."""
    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-agent-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(data_dir / "server.log", "wb")
    process = subprocess.Popen([tracesvc_bin(), "serve", "--port", str(port), "--data-dir", str(data_dir / "data"),
                                "--write-token", TOKEN], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    wait_until_serving(process, url, log=data_dir / "server.log")
    ids = {}
    for index, scenario in enumerate(["pantry-slow", "pantry-fixed"]):
        path = data_dir / f"{scenario}.json"
        subprocess.run([tracesvc_bin(), "generate", "--scenario", scenario, "--seed", "1", "--output", str(path)], check=True, capture_output=True)
        status, body = request(f"{url}/api/traces?name={scenario}&tag=branch:main&tag=scenario:pantry&tag=build:{index + 1}",
                               "POST", path.read_bytes(), {"Content-Type": "application/octet-stream", "Authorization": f"Bearer {TOKEN}"})
        assert status == 201, body
        ids[scenario] = json.loads(body)["trace"]["id"]
    # An Instruments 27 export of an app called Trips whose app frames carry their file and line.
    status, body = request(f"{url}/api/traces?name=trips.tar", "POST", trips_export(), {"Content-Type": "application/octet-stream", "Authorization": f"Bearer {TOKEN}"})
    assert status == 201, body
    ids["trips"] = json.loads(body)["trace"]["id"]
    for trace in json.loads(request(f"{url}/api/traces")[1])["traces"]:
        ids.setdefault(trace["name"], trace["id"])
    yield {"url": url, "port": port, "ids": ids}
    process.terminate()
    process.wait(timeout=15)
    shutil.rmtree(data_dir, ignore_errors=True)


async def stdio_calls(server, calls, token_file=None):
    args = ["mcp", "--server", server["url"]] + (["--token-file", token_file] if token_file else [])
    params = StdioServerParameters(command=tracesvc_bin(), args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await run_calls(session, calls)


async def http_calls(server, calls, headers=None):
    import httpx2 as httpx  # the SDK's HTTP client, with its default pool of keep-alive connections
    async with httpx.AsyncClient(headers=headers or {}, timeout=60) as client:
        async with streamable_http_client(f"{server['url']}/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await run_calls(session, calls)


async def run_calls(session, calls):
    answers = []
    for name, arguments in calls:
        if name == "tools/list":
            answers.append((await session.list_tools()).tools)
            continue
        result = await session.call_tool(name, arguments)
        assert len(result.content) == 1
        answers.append((result.is_error, result.content[0].text))
    return answers


def every_tool_call(ids):
    slow, fixed = ids["landmarks-favorites-slow"], ids["landmarks-favorites-fixed"]
    scroll = ids["landmarks-scroll-slow"]
    pantry_slow, pantry_fixed = ids["pantry-slow"], ids["pantry-fixed"]
    return [
        ("list_traces", {}),
        ("list_traces", {"tags": ["scenario:pantry"], "limit": 1}),
        ("trace_overview", {"trace": slow}),
        ("trace_overview", {"trace": pantry_slow}),
        ("findings", {"trace": scroll}),
        ("findings", {"trace": pantry_slow, "limit": 2}),
        ("view_updates", {"trace": slow, "view": "LandmarkListItemView", "limit": 3}),
        ("why_update", {"trace": slow, "update": 17}),
        ("cpu_hotspots", {"trace": scroll, "view": "LandmarkListItemView"}),
        ("cpu_hotspots", {"trace": pantry_slow}),
        ("compare", {"a": slow, "b": fixed}),
        ("compare", {"a": pantry_slow, "b": pantry_fixed}),
        ("history", {"tags": ["scenario:pantry"]}),
    ]


def test_the_tools_are_listed_with_descriptions_and_schemas(server):
    [tools] = asyncio.run(stdio_calls(server, [("tools/list", {})]))
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert len(tool.description) > 60, tool.name
        assert tool.input_schema["type"] == "object", tool.name


def test_every_tool_answers_the_same_over_stdio_and_http_within_16_kb(server):
    calls = every_tool_call(server["ids"])
    over_stdio = asyncio.run(stdio_calls(server, calls))
    over_http = asyncio.run(http_calls(server, calls))
    for (name, arguments), answer, same in zip(calls, over_stdio, over_http):
        is_error, text = answer
        assert not is_error, f"{name} {arguments}: {text}"
        assert len(text.encode()) <= MAX_ANSWER, f"{name} answered {len(text.encode())} bytes"
        assert f"{server['url']}/" in text, f"{name} links no evidence"
        assert answer == same, f"{name} {arguments} differs between stdio and /mcp"
    tools = {name for name, _ in calls}
    assert tools == TOOLS - {"add_note"}


def test_findings_name_the_slow_view_and_its_expensive_frame_with_links(server):
    scroll = server["ids"]["landmarks-scroll-slow"]
    [(is_error, text)] = asyncio.run(stdio_calls(server, [("findings", {"trace": scroll, "limit": 1})]))
    assert not is_error
    first = text.split("\n## 2.")[0]
    assert "LandmarkListItemView" in first
    assert "NumberFormatter.init()" in first
    assert f"{server['url']}/traces/{scroll}?v=3&p=findings&fd=long-body%3ALandmarks.LandmarkListItemView" in first
    assert "&p=cpu&pv=Landmarks%3ALandmarkListItemView" in first
    assert "more findings left out" in text


def test_cpu_hotspots_name_the_source_file_and_line_where_the_recording_has_them(server):
    [(is_error, trips), (_, landmarks)] = asyncio.run(stdio_calls(server, [
        ("cpu_hotspots", {"trace": server["ids"]["trips"]}),
        ("cpu_hotspots", {"trace": server["ids"]["landmarks-scroll-slow"], "limit": 3}),
    ]))
    assert not is_error, trips
    by_total = trips.split("## By total time")[1]
    line = next(line for line in by_total.splitlines() if line.startswith("- TripCard.body.getter "))
    assert "at /Users/dev/Trips/Trips/Views/TripCard.swift:88)" in line
    system = next(line for line in by_total.splitlines() if line.startswith("- ViewBodyAccessor.updateBody"))
    assert " at " not in system.split(")")[0], "a system frame has no source"
    assert "carries no source" not in trips
    assert ".swift:" not in landmarks and "carries no source file:line" in landmarks


def test_why_update_reaches_the_state_change_and_its_backtrace(server):
    slow = server["ids"]["landmarks-favorites-slow"]
    [(is_error, text)] = asyncio.run(http_calls(server, [("why_update", {"trace": slow, "update": 17})]))
    assert not is_error
    chain = text.split("## Cause chain")[1]
    assert chain.index("@Observable ModelData.favoritesCollection") < chain.index("LandmarkListItemView")
    assert "▶ LandmarkDetailView.toggleFavorite()" in text


def test_compare_says_the_fan_out_went_away(server):
    ids = server["ids"]
    [(is_error, text)] = asyncio.run(stdio_calls(server, [("compare", {"a": ids["landmarks-favorites-slow"], "b": ids["landmarks-favorites-fixed"]})]))
    assert not is_error
    verdict = text.split("## Verdict")[1].split("##")[0]
    assert "resolved" in verdict.lower() or "went away" in verdict.lower() or "fewer" in verdict.lower(), verdict
    assert f"{server['url']}/compare/{ids['landmarks-favorites-slow']}/{ids['landmarks-favorites-fixed']}?v=3" in text


def test_answers_are_bounded_and_page_on(server):
    ids = server["ids"]
    calls = [("view_updates", {"trace": ids["landmarks-scroll-slow"], "view": "LandmarkListItemView", "limit": 50}),
             ("view_updates", {"trace": ids["landmarks-scroll-slow"], "view": "LandmarkListItemView", "limit": 50, "cursor": "50"})]
    (error1, first), (error2, second) = asyncio.run(http_calls(server, calls))
    assert not error1 and not error2
    assert "left out: call view_updates with cursor \"50\"" in first
    first_ids = {line.split(":")[0] for line in first.splitlines() if line.startswith("- update ")}
    second_ids = {line.split(":")[0] for line in second.splitlines() if line.startswith("- update ")}
    assert len(first_ids) == 50 and second_ids and not first_ids & second_ids


@pytest.mark.parametrize("name,arguments,message", [
    ("trace_overview", {"trace": "0" * 32}, "unknown trace"),
    ("findings", {"trace": "not-an-id"}, "is not a trace id"),
    ("why_update", {"trace": None, "update": 999999}, "unknown update"),
    ("view_updates", {"trace": None, "view": "NoSuchView"}, "has no view named 'NoSuchView'"),
    ("no_such_tool", {}, "no tool named"),
])
def test_bad_requests_are_tool_errors(server, name, arguments, message):
    arguments = {key: (server["ids"]["landmarks-favorites-slow"] if value is None else value) for key, value in arguments.items()}
    for is_error, text in [asyncio.run(stdio_calls(server, [(name, arguments)]))[0], asyncio.run(http_calls(server, [(name, arguments)]))[0]]:
        assert is_error, text
        assert message in text.lower() or message in text, text


def test_a_server_that_is_down_is_a_tool_error_not_a_hang(server):
    down = {"url": f"http://127.0.0.1:{free_port()}"}
    began = time.monotonic()
    [(is_error, text)] = asyncio.run(stdio_calls(down, [("list_traces", {})]))
    assert is_error and "cannot reach tracesvc" in text
    assert time.monotonic() - began < 20


def test_mcp_refuses_writes_without_the_token(server):
    pantry = server["ids"]["pantry-slow"]
    note = ("add_note", {"trace": pantry, "text": "agent note", "update": 1})
    [(is_error, text)] = asyncio.run(http_calls(server, [note]))
    assert is_error and "read-only" in text
    [(is_error, text)] = asyncio.run(http_calls(server, [note], headers={"Authorization": "Bearer wrong"}))
    assert is_error and "read-only" in text
    [(is_error, text)] = asyncio.run(http_calls(server, [note], headers={"Authorization": f"Bearer {TOKEN}"}))
    assert not is_error, text
    assert "Note " in text and f"/traces/{pantry}?v=3&p=notes&nt=" in text
    notes = json.loads(request(f"{server['url']}/api/traces/{pantry}/notes")[1])["notes"]
    assert [n["text"] for n in notes] == ["agent note"]
    # Over stdio the server decides by the token file: without it, its 401 comes back as a tool error.
    [(is_error, text)] = asyncio.run(stdio_calls(server, [note]))
    assert is_error and "write token required" in text


def test_mcp_keeps_the_access_rules(server):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    status, _ = request(f"{server['url']}/mcp", "POST", body, {**headers, "Host": "attacker.example"})
    assert status == 421
    status, _ = request(f"{server['url']}/mcp", "POST", body, {**headers, "Origin": "http://attacker.example"})
    assert status == 403
    status, answer = request(f"{server['url']}/mcp", "POST", body, headers)
    assert status == 200 and json.loads(answer)["result"]["tools"]


def test_traces_and_findings_are_resources_and_the_prompt_names_the_steps(server):
    slow = server["ids"]["landmarks-favorites-slow"]

    async def read(session):
        resources = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        finding = f"{server['url']}/traces/{slow}?v=3&p=findings&fd=collection-fan-out%3A%40Observable%20ModelData.favoritesCollection%3ELandmarkListItemView"
        contents = (await session.read_resource(finding)).contents
        prompts = (await session.list_prompts()).prompts
        prompt = await session.get_prompt("diagnose-slow-interaction", {"trace": slow, "interaction": "tapping favorite"})
        return resources, templates, contents, prompts, prompt

    async def over_stdio():
        params = StdioServerParameters(command=tracesvc_bin(), args=["mcp", "--server", server["url"]])
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                return await read(session)

    resources, templates, contents, prompts, prompt = asyncio.run(over_stdio())
    assert f"{server['url']}/traces/{slow}?v=3&p=findings" in {str(resource.uri) for resource in resources}
    assert any("fd={finding}" in template.uri_template for template in templates)
    assert "runs 12 LandmarkListItemView bodies" in contents[0].text and "Fix:" in contents[0].text
    assert [p.name for p in prompts] == ["diagnose-slow-interaction"]
    text = prompt.messages[0].content.text
    assert slow in text and "tapping favorite" in text and "why_update" in text and "compare" in text


def test_get_mcp_says_there_is_no_event_stream(server):
    status, _ = request(f"{server['url']}/mcp", "GET", None, {"Accept": "text/event-stream"})
    assert status == 405
