#!/usr/bin/env python3
"""Hostile traces of issue 24 through the API: for each shape, the server's CPU time, peak RSS
and answer size of the request that used to cost more than the file's size, on this build and
on a baseline build (`--baseline`, e.g. a build of an older commit) in the same run. Each shape
is generated here (the same shapes as Sources/TraceSamples/HostileTraces.swift); a request that
takes longer than `--timeout` is reported as such. Loopback only, one server at a time.

    swift build --product tracesvc           # or -c release, with --binary .build/release/tracesvc
    python3 scripts/bench-hostile.py --baseline /path/to/old/tracesvc [--scale 1]
    python3 scripts/bench-hostile.py --history-views 300000 [--concurrent 16 --memory-budget-mb 512] [--baseline old]
    python3 scripts/bench-hostile.py --sigterm-grace 3 [--concurrent 16] [--scale 1]
    python3 scripts/bench-hostile.py --list-app-mb 20
    python3 scripts/bench-hostile.py --lockout-addresses 20 [--baseline old]
"""
import argparse
import json
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def header(app):
    return ('{"format":"tracesvc-trace","version":3,"metadata":{"app":"%s","device":"d","osVersion":"1","refreshRate":60,'
            '"recordedAt":null,"start":0,"end":10000000000,"importNotes":[]},'
            '"processes":[[1,"%s"]],"threads":[[1,"Main Thread",0,true]],' % (app, app))


def chain(count):
    return "[[null,0]" + "".join(",[%d,0]" % i for i in range(count - 1)) + "]"


def backtrace_bomb(nodes, depth):
    """One update caused by `nodes` @State nodes, each written from the leaf of a `depth`-frame stack."""
    text = header("Bomb") + '"updateGroups":[[0,1000000,"Tap",0]],"updates":[[1000,50000,"view-body","Bomb","BombView","BombView.body","View Body",0,0,0,"low"]],"nodes":['
    text += "".join('["state","@State value%d","BombView",true,%d,500,null],' % (n, n) for n in range(nodes))
    text += '["view-body","BombView","",true,%d,1000,0]],"edges":[' % nodes
    text += ",".join('[%d,%d,"update","",1000,0]' % (n, nodes) for n in range(nodes))
    text += '],"frames":[["write","Bomb",true]],"stacks":' + chain(depth)
    return text + ',"stateChanges":[' + ",".join('[500,%d,"w",%d,0]' % (n, depth - 1) for n in range(nodes)) + "]}"


def stack_chain(stacks, frame='["recurse","Chain",true]', app="Chain", hang=False):
    text = header(app) + '"frames":[%s],"stacks":%s,"samples":[' % (frame, chain(stacks))
    text += ",".join("[%d,0,1000,%d]" % (i * 1000, i) for i in range(stacks)) + "]"
    if hang:
        text += ',"hangs":[[0,%d,"Hang","Severe hang",0]]' % (stacks * 1000)
    return text + "}"


def generic_body_name(repeats):
    return (header("Generic") + '"updates":[[0,5000000,"view-body","Generic","A","A.body","View Body",0,0,null,"low"]],'
            '"frames":[["%s","Generic",true],["A.body.getter","Generic",true]],"stacks":[[null,0],[0,1]],'
            '"samples":[[1000,0,1000000,0],[2000,0,1000000,1]]}' % ("A<" * repeats))


def many_causes(causes):
    """One update with `causes` direct causes (@State nodes, none written)."""
    text = header("Causes") + '"updates":[[1000,50000,"view-body","Causes","CausesView","CausesView.body","View Body",0,0,null,"low"]],"nodes":['
    text += "".join('["state","@State value%d","CausesView",true,%d,500,null],' % (n, n) for n in range(causes))
    text += '["view-body","CausesView","",true,%d,1000,0]],"edges":[' % causes
    return text + ",".join('[%d,%d,"update","",1000,null]' % (n, causes) for n in range(causes)) + "]}"


def shapes(scale):
    s = lambda n: max(1, int(n * scale))
    return [
        (f"update graph, {s(50)} @State causes written from a {s(20000)}-frame stack", backtrace_bomb(s(50), s(20000)), "updates/0/graph"),
        (f"update detail, {s(300000)} causes", many_causes(s(300000)), "updates/0"),
        (f"call tree, chain of {s(8000)} stacks each one frame deeper", stack_chain(s(8000)), "calltree?minPercent=0"),
        (f"stack chart, chain of {s(120000)} stacks each one frame deeper", stack_chain(s(120000)), "stackchart"),
        (f"calltree?view=A, a frame named A<A<… ({s(100000)} times)", generic_body_name(s(100000)), "calltree?view=A&minPercent=0"),
        (f"upload (findings), hang over {s(8000)} system stacks each one frame deeper",
         stack_chain(s(8000), '["__psynch_mutexwait","libsystem_kernel.dylib",false]', "Hang", hang=True), None),
    ]


def many_views(views, app="Catalogue"):
    """One body each of `views` distinct views (issue 39: the history read every view row)."""
    text = header(app) + '"updates":['
    text += ",".join('[%d,%d,"view-body","%s","Cell%dView","","",0,0,null,"none"]' % (1000 + i * 10, 5000 + i % 997, app, i) for i in range(views))
    return text + "]}"


def history_flood(binary, views, concurrent, budget_mb, timeout, work):
    """Peak RSS while `concurrent` clients ask for the history of a trace of `views` distinct views."""
    import threading
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = Path(tempfile.mkdtemp(dir=work))
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data), "--memory-budget-mb", str(budget_mb)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        server.stdout.readline()
        body = many_views(views).encode()
        request(f"{base}/api/traces?name=views.json&tag=scenario:views", body, timeout=600)
        while json.loads(request(f"{base}/api/history?tag=scenario:views&metric=update-count", timeout=600))["pending"]:
            time.sleep(0.2)
        after_upload = peak_rss_mb(server.pid)
        reset_peak(server.pid)
        statuses = []
        def one(query):
            try:
                request(f"{base}/api/history?tag=scenario:views&{query}", timeout=timeout)
                statuses.append(200)
            except urllib.error.HTTPError as error:
                statuses.append(error.code)
            except (TimeoutError, urllib.error.URLError, ConnectionError):
                statuses.append("no answer")
        queries = ["metric=update-count", "metric=body-time-total"]
        threads = [threading.Thread(target=one, args=(queries[i % 2],)) for i in range(concurrent)]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - began
        alive = server.poll() is None
        peak = peak_rss_mb(server.pid) if alive else float("nan")
        print(f"{views:,} distinct views ({len(body) / 1e6:.1f} MB), --memory-budget-mb {budget_mb}: peak RSS after upload {after_upload:.0f} MB; "
              f"{concurrent} concurrent history requests: {wall:.2f} s, peak RSS {peak:.0f} MB "
              f"({peak / budget_mb:.2f}x the budget), answers {sorted(statuses, key=str)}, server {'alive' if alive else 'DIED'}")
    finally:
        server.kill()
        server.wait()


def sigterm_during_queries(binary, grace, concurrent, scale, work):
    """Seconds from SIGTERM to exit while `concurrent` hostile queries run, with `--shutdown-grace`."""
    import signal
    import threading
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = Path(tempfile.mkdtemp(dir=work))
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data), "--shutdown-grace", str(grace)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        server.stdout.readline()
        s = lambda n: max(1, int(n * scale))
        chain_id = json.loads(request(f"{base}/api/traces?name=chain.json", stack_chain(s(120000)).encode(), timeout=600))["trace"]["id"]
        views_id = json.loads(request(f"{base}/api/traces?name=views.json&tag=scenario:views", many_views(s(300000)).encode(), timeout=600))["trace"]["id"]
        queries = [f"traces/{chain_id}/stackchart", f"traces/{chain_id}/calltree?minPercent=0&inverted=true",
                   f"traces/{views_id}/summary", f"compare?a={chain_id}&b={views_id}", "history?tag=scenario:views&metric=update-count"]
        def one(query):
            try:
                request(f"{base}/api/{query}", timeout=120)
            except Exception:
                pass
        threads = [threading.Thread(target=one, args=(queries[i % len(queries)],), daemon=True) for i in range(concurrent)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        cpu = cpu_seconds(server.pid)
        began = time.perf_counter()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=120)
            ended = f"exited in {time.perf_counter() - began:.2f} s"
        except subprocess.TimeoutExpired:
            ended = "still running after 120 s"
        print(f"SIGTERM with --shutdown-grace {grace} during {concurrent} hostile queries ({', '.join(q.split('?')[0].split('/')[-1] for q in queries)}): "
              f"{ended} (server CPU before the signal {cpu:.1f} s)")
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()


def huge_app_names(binary, megabytes, traces, work):
    """The 50-trace list's size and time, and /healthz's, with `traces` traces whose app name is `megabytes` MB."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = Path(tempfile.mkdtemp(dir=work))
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data), "--max-upload-mb", str(4 * megabytes + 10)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        server.stdout.readline()
        for index in range(traces):
            app = f"App{index}" + "x" * (megabytes * 1_000_000)
            body = header(app) + '"updates":[[1000,5000,"view-body","M","V","","",0,0,null,"none"]]}'
            request(f"{base}/api/traces?name=big{index}.json", body.encode(), timeout=600)
        began = time.perf_counter()
        answer = request(f"{base}/api/traces?limit=50", timeout=120)
        listed = time.perf_counter() - began
        began = time.perf_counter()
        request(f"{base}/healthz")
        health = time.perf_counter() - began
        print(f"{traces} traces with {megabytes} MB app names: GET /api/traces?limit=50 {len(answer):,} bytes in {listed:.3f} s; /healthz {health * 1000:.1f} ms")
    finally:
        server.kill()
        server.wait()


def connection_lockout(binary, addresses, per_address, probes, work):
    """`addresses` loopback addresses (127.0.0.2, ...) each keep `per_address` connections open (the
    server's per-address maximum at the defaults), every one an upload trickled at 2 KB/s (fast enough
    for --min-upload-rate, so none is cut off) and opened again as soon as the server closes it; then
    `probes` requests, one every 0.5 s, from one more address: how many are answered."""
    port = free_port()
    data = Path(tempfile.mkdtemp(dir=work))
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stopping = threading.Event()

    def hog(source):
        sockets = []
        while not stopping.is_set():
            while len(sockets) < per_address and not stopping.is_set():
                try:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(source, 0))
                    sock.sendall(b"POST /api/traces?name=hog.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 b"Content-Type: application/octet-stream\r\nContent-Length: 200000\r\n\r\n{")
                    sockets.append(sock)
                except OSError:
                    break
            # A socket the server answered or closed is gone: open another.
            readable = select.select(sockets, [], [], 0)[0] if sockets else []
            for sock in readable:
                sockets.remove(sock)
                sock.close()
            for sock in list(sockets):
                try:
                    sock.sendall(b" " * 1000)
                except OSError:
                    sockets.remove(sock)
                    sock.close()
            time.sleep(0.5)
        for sock in sockets:
            sock.close()

    try:
        server.stdout.readline()
        # Its log goes on to stdout: read it away, or a full pipe stops the server.
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        threads = [threading.Thread(target=hog, args=(f"127.0.0.{2 + index}",), daemon=True) for index in range(addresses)]
        for thread in threads:
            thread.start()
        time.sleep(5)
        answered = 0
        for _ in range(probes):
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(f"127.0.0.{2 + addresses}", 0))
                connection.sendall(b"GET /api/traces?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                answered += connection.recv(12).startswith(b"HTTP/1.1 200")
                connection.close()
            except OSError:
                pass
            time.sleep(0.5)
        sockets = sum(1 for fd in Path(f"/proc/{server.pid}/fd").iterdir() if os.readlink(fd).startswith("socket:"))
        print(f"{addresses} addresses, {per_address} connections each, opened again as closed: the server holds {sockets} sockets; "
              f"{answered} of {probes} probes from address {addresses + 1} answered")
    finally:
        stopping.set()
        server.kill()
        server.wait()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak(pid):
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def request(url, data=None, timeout=60):
    headers = {"Content-Type": "application/octet-stream", "Expect": ""} if data is not None else {}
    req = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    with urllib.request.urlopen(req, timeout=timeout) as response:
        return response.read()


def measure(binary, traces, timeout, work):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = Path(tempfile.mkdtemp(dir=work))
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--data-dir", str(data)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    results = []
    try:
        server.stdout.readline()  # "tracesvc is running: ..."
        for name, text, query in traces:
            body = text.encode()
            if query is not None:
                trace_id = json.loads(request(f"{base}/api/traces?name=hostile.json", body, timeout=600))["trace"]["id"]
            reset_peak(server.pid)
            cpu = cpu_seconds(server.pid)
            began = time.perf_counter()
            try:
                if query is None:
                    answer = request(f"{base}/api/traces?name=hostile-{port}.json", body, timeout=timeout)
                else:
                    answer = request(f"{base}/api/traces/{trace_id}/{query}", timeout=timeout)
                outcome = f"{len(answer):,} B"
            except (TimeoutError, urllib.error.URLError, ConnectionError) as error:
                outcome = f"no answer in {timeout} s" if "timed out" in str(error) else f"failed: {error}"
            if server.poll() is not None:
                results.append((name, time.perf_counter() - began, float("nan"), float("nan"), "server died"))
                break
            results.append((name, time.perf_counter() - began, cpu_seconds(server.pid) - cpu, peak_rss_mb(server.pid), outcome))
    finally:
        server.kill()
        server.wait()
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(REPO / ".build/debug/tracesvc"))
    parser.add_argument("--baseline", help="tracesvc of the build to compare with (required but with --history-views)")
    parser.add_argument("--history-views", type=int, help="instead: concurrent history requests over a trace of this many distinct views")
    parser.add_argument("--concurrent", type=int, default=16, help="with --history-views: requests at once")
    parser.add_argument("--memory-budget-mb", type=int, default=512, help="with --history-views: the server's budget")
    parser.add_argument("--sigterm-grace", type=int, help="instead: seconds from SIGTERM to exit during hostile queries, with this --shutdown-grace")
    parser.add_argument("--list-app-mb", type=int, help="instead: the list and /healthz with five traces whose app name is this many MB")
    parser.add_argument("--lockout-addresses", type=int, help="instead: this many addresses hold their 32 connections each; probes from one more")
    parser.add_argument("--probes", type=int, default=40, help="with --lockout-addresses: requests from the extra address, one every 0.5 s")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every shape's size")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per request")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tracesvc-bench-hostile-"))
    if args.lockout_addresses:
        try:
            for binary in [b for b in (args.baseline, args.binary) if b]:
                print(binary)
                connection_lockout(binary, args.lockout_addresses, 32, args.probes, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    if args.list_app_mb:
        try:
            for binary in [b for b in (args.baseline, args.binary) if b]:
                print(binary)
                huge_app_names(binary, args.list_app_mb, 5, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    if args.sigterm_grace is not None:
        try:
            for binary in [b for b in (args.baseline, args.binary) if b]:
                print(binary)
                sigterm_during_queries(binary, args.sigterm_grace, args.concurrent, args.scale, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    if args.history_views:
        try:
            for binary in [b for b in (args.baseline, args.binary) if b]:
                print(binary)
                history_flood(binary, args.history_views, args.concurrent, args.memory_budget_mb, args.timeout, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    if not args.baseline:
        parser.error("--baseline is required")
    try:
        traces = shapes(args.scale)
        for name, text, _ in traces:
            print(f"{len(text) / 1e6:6.2f} MB  {name}")
        rows = {label: measure(binary, traces, args.timeout, work)
                for label, binary in (("baseline", args.baseline), ("this build", args.binary))}
        print(f"\n{'':82} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}  answer")
        for index, (name, _, _) in enumerate(traces):
            for label, results in rows.items():
                if index < len(results):
                    _, wall, cpu, rss, outcome = results[index]
                    print(f"{name[:70]:70} {label:>11} {wall:8.2f} {cpu:8.2f} {rss:12.0f}  {outcome}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
