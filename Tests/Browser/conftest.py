"""Fixtures for the browser tests (links: docs/share-links.md; API: docs/api.md): a real `tracesvc serve`
on a free port with a temporary data dir, Playwright's Chromium (Debian's /usr/bin/chromium), and screenshot helpers."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pyhelpers"))
from tracesvc_test import REPO, free_port, http_request, tracesvc_bin, wait_until_serving  # noqa: E402,F401 (REPO and tracesvc_bin: the tests import them from here)

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


class TraceServer:
    """A `tracesvc serve` process; `restart()` keeps the port and the data dir."""

    def __init__(self, data_dir: Path, extra_args=()):
        self.extra_args = list(extra_args)
        self.binary = tracesvc_bin()
        self.port = free_port()
        self.data_dir = data_dir
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log_path = ARTIFACTS / "server.log"

    def start(self):
        ARTIFACTS.mkdir(exist_ok=True)
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--data-dir", str(self.data_dir), *self.extra_args],
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        wait_until_serving(self.process, self.url, log=self.log_path)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self):
        self.stop()
        self.start()

    # Small JSON client for arranging tests and checking what the page shows against the API.
    def api(self, path, method="GET", body=None, headers=None):
        status, text, _ = http_request(f"{self.url}{path}", method, body, headers, timeout=120)
        if 200 <= status < 300:
            return status, (json.loads(text) if text else None)
        try:
            return status, json.loads(text)
        except ValueError:
            return status, {"error": text.decode(errors="replace")}

    def upload(self, path: Path, name=None):
        status, body = self.api(f"/api/traces?name={urllib.request.quote(name or path.name)}", "POST",
                                path.read_bytes(), {"Content-Type": "application/octet-stream"})
        assert status in (200, 201), body
        return body["trace"]


@pytest.fixture(scope="session")
def server_control():
    data_dir = Path(tempfile.mkdtemp(prefix="tracesvc-browser-"))
    server = TraceServer(data_dir)
    server.start()
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def server(server_control):
    """Base URL of the running server."""
    return server_control.url


@pytest.fixture(scope="session")
def playwright_instance():
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
    yield browser
    browser.close()


@pytest.fixture
def new_context(browser):
    """Factory for extra browser contexts (a colleague opening a shared link)."""
    contexts = []

    def make(width=1280, height=800, color_scheme="light"):
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=color_scheme,
                                      permissions=["clipboard-read", "clipboard-write"])
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context):
    page = new_context().new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page


@pytest.fixture(scope="session")
def sample_id(server_control):
    """sample_id(name) -> id of the sample trace called `name` (GET /api/traces)."""
    def lookup(name):
        status, body = server_control.api("/api/traces")
        assert status == 200, body
        for trace in body["traces"]:
            if trace["name"] == name:
                return trace["id"]
        raise AssertionError(f"no trace named {name}; have {[t['name'] for t in body['traces']]}")
    return lookup


@pytest.fixture(scope="session")
def shot():
    """shot(page, name): saves a screenshot to Tests/Browser/artifacts/NAME.png and returns its path."""
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name, **options):
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), **options)
        return path
    return take


def colour_columns_in(page, canvas_selector, header_selector, css_var):
    """x (CSS px) of the pixel columns drawn in the colour of `--css_var` in the canvas row beside
    the lane header `header_selector` (what the eye sees)."""
    return page.evaluate("""([canvasSelector, headerSelector, cssVar]) => {
        const canvas = document.querySelector(canvasSelector);
        const header = document.querySelector(headerSelector);
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        const top = header.getBoundingClientRect().top - canvas.getBoundingClientRect().top;
        const probe = document.createElement('canvas').getContext('2d');
        probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--' + cssVar).trim();
        probe.fillRect(0, 0, 1, 1);
        const want = probe.getImageData(0, 0, 1, 1).data;
        const y = Math.round((top + header.getBoundingClientRect().height / 2) * dpr);
        const row = canvas.getContext('2d').getImageData(0, y, canvas.width, 1).data;
        const columns = [];
        for (let x = 0; x < canvas.width; x++) {
          const i = x * 4;
          if (Math.abs(row[i] - want[0]) < 8 && Math.abs(row[i + 1] - want[1]) < 8 && Math.abs(row[i + 2] - want[2]) < 8) columns.push(x / dpr);
        }
        return columns;
    }""", [canvas_selector, header_selector, css_var])


def drag_across(page, box, y, start_fraction, end_fraction):
    """Presses at `start_fraction` of `box`'s width and releases at `end_fraction`, at page height `y`, in steps."""
    page.mouse.move(box["x"] + box["width"] * start_fraction, y)
    page.mouse.down()
    middle = (start_fraction + end_fraction) / 2
    page.mouse.move(box["x"] + box["width"] * middle, y, steps=4)
    page.mouse.move(box["x"] + box["width"] * end_fraction, y, steps=4)
    page.mouse.up()


class TimelinePage:
    """What a user sees of the trace view, read from the page (URL, lane headers, canvas pixels)."""

    def __init__(self, base_url):
        self.base = base_url

    def open(self, page, trace_id, query="", path_suffix=""):
        page.goto(f"{self.base}/traces/{trace_id}{path_suffix}{('?' + query) if query else ''}")
        self.wait_idle(page)

    def wait_idle(self, page):
        page.wait_for_selector('#timeline-canvas[data-loading="false"]', timeout=30_000)
        page.wait_for_selector('#timeline .tl-header[data-marks]', timeout=30_000)
        # Two frames: the last answer is drawn and the lane headers describe it.
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.wait_for_selector('#timeline-canvas[data-loading="false"]', timeout=30_000)

    @staticmethod
    def query(page):
        from urllib.parse import urlparse, parse_qs
        return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}

    def window(self, page):
        start, end = self.query(page)["w"].split(",")
        return int(start), int(end)

    def drawn_data(self, page, server_control, lane_id):
        """The events of `lane_id` the page has on screen: its last timeline query, asked again,
        cut to the visible window (the page fetches a margin around the window)."""
        from urllib.parse import parse_qs
        query = {k: v[0] for k, v in parse_qs(page.locator("#timeline-canvas").get_attribute("data-query")).items()}
        trace_id = page.url.split("/traces/")[1].split("/")[0].split("?")[0]
        status, data = server_control.api(f"/api/traces/{trace_id}/timeline?start={query['start']}&end={query['end']}"
                                          f"&width={query['width']}&lanes={lane_id}")
        assert status == 200, data
        start, end = self.window(page)
        lane = data["lanes"][lane_id]
        return [e for e in lane["events"] if e["start"] <= end and e["start"] + e["duration"] >= start], lane["merged"]

    def lane(self, page, lane_id):
        header = page.locator(f'#timeline .tl-header[data-lane="{lane_id}"]')
        return {
            "marks": int(header.get_attribute("data-marks")),
            "orange": int(header.get_attribute("data-orange")),
            "red": int(header.get_attribute("data-red")),
            "merged": header.get_attribute("data-merged") == "true",
        }

    def lane_box(self, page, lane_id):
        """The lane's row on the canvas in page coordinates: (x, y, width, height)."""
        header = page.locator(f'#timeline .tl-header[data-lane="{lane_id}"]').bounding_box()
        canvas = page.locator("#timeline-canvas").bounding_box()
        return canvas["x"], header["y"], canvas["width"], header["height"]

    def colour_columns(self, page, lane_id, css_var):
        """Pixel columns of the lane's row drawn in the colour of `--css_var` (what the eye sees)."""
        return colour_columns_in(page, "#timeline-canvas", f'#timeline .tl-header[data-lane="{lane_id}"]', css_var)

    @staticmethod
    def runs(columns, gap=1.5):
        """Groups pixel columns into separate marks (runs of adjacent columns)."""
        count, last = 0, None
        for x in columns:
            if last is None or x - last > gap:
                count += 1
            last = x
        return count


@pytest.fixture(scope="session")
def timeline(server):
    return TimelinePage(server)


@pytest.fixture(scope="session")
def generated_trace(tmp_path_factory, server_control):
    """generated_trace(name, updates, seed) -> Path of a native trace made by `tracesvc generate`."""
    directory = tmp_path_factory.mktemp("generated")

    def make(name, updates=3000, seed=7):
        path = directory / f"{name}.json"
        if not path.exists():
            result = subprocess.run([server_control.binary, "generate", "--updates", str(updates), "--seed", str(seed),
                                     "--output", str(path)], capture_output=True, text=True, timeout=600)
            assert result.returncode == 0 and path.exists(), f"tracesvc generate failed: {result.stderr}"
        return path
    return make
