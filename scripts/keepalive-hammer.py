#!/usr/bin/env python3
"""Hammers a tracesvc with requests on keep-alive connections and counts the requests a reused
connection lost ("Server disconnected without sending a response"): every reply must come.

    scripts/keepalive-hammer.py http://127.0.0.1:8080 [--connections 8] [--requests 300]
"""
import argparse
import http.client
import json
import threading
import urllib.parse

MCP_LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}


def worker(host, port, requests, index, results):
    connection = http.client.HTTPConnection(host, port, timeout=30)
    lost = answered = reconnects = 0
    for n in range(requests):
        # GETs (a JSON list, a static file, the 405 of GET /mcp) and POSTs (an MCP call) by turns.
        kind = (n + index) % 4
        try:
            if kind == 0:
                connection.request("POST", "/mcp", MCP_LIST, MCP_HEADERS)
            elif kind == 1:
                connection.request("GET", "/api/traces")
            elif kind == 2:
                connection.request("GET", "/mcp")
            else:
                connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            answered += 1
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                reconnects += 1
        except (http.client.HTTPException, ConnectionError):  # closed before or while answering
            lost += 1
            connection.close()
    results[index] = (answered, lost, reconnects)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    url = urllib.parse.urlsplit(args.url)
    results = {}
    threads = [threading.Thread(target=worker, args=(url.hostname, url.port, args.requests, i, results)) for i in range(args.connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answered = sum(r[0] for r in results.values())
    lost = sum(r[1] for r in results.values())
    closes = sum(r[2] for r in results.values())
    print(f"{answered} answered, {lost} lost (closed before or while answering), {closes} closed by the server with Connection: close"
          f" ({args.connections} connections x {args.requests} requests)")
    raise SystemExit(1 if lost else 0)


if __name__ == "__main__":
    main()
