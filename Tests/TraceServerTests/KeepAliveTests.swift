import Foundation
import Testing
@testable import TraceServer

/// A keep-alive connection is closed by the server only when it has been idle: never while it
/// answers, and never just after an answer, when its client may already be sending the next
/// request ("Server disconnected without sending a response", scripts/keepalive-hammer.py).
@Suite(.serialized) struct KeepAliveTests {
    @Test func nearTheLimitAConnectionIdleOnlySinceItsLastAnswerIsKeptForItsNextRequest() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Four connections an address: three make it "near the limit", where a connection waiting
        // busyHeaderTimeout (5 s) for a request head is closed.
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: ["--max-connections-per-address", "4"])
        defer { _ = server.stop() }
        let port = try #require(server.base.port)
        // Two uploads whose bodies have not come yet hold two of the address's slots.
        var uploads: [StalledClient] = []
        defer { for upload in uploads { upload.close() } }
        for _ in 0..<2 {
            uploads.append(try StalledClient(port: port, head: "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"))
        }
        let request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let opened = Date()
        let client = try StalledClient(port: port, head: "")
        defer { client.close() }
        // The first request 4 s in; the check the connection scheduled when it opened fires at 5 s,
        // with the connection idle since its answer for well under the 5 s it may wait.
        try await Task.sleep(for: .seconds(4))
        #expect(client.sendMore(request))
        let first = client.readUntilClosed(within: 0.8)  // the server is another process: blocking here holds nothing it needs
        #expect(first.text.hasPrefix("HTTP/1.1 200"), "first answer: \(first.text.prefix(80))")
        #expect(!first.closed)
        try await Task.sleep(for: .seconds(max(0, 5.6 - Date().timeIntervalSince(opened))))
        #expect(client.sendMore(request))
        let second = client.readUntilClosed(within: 2)
        #expect(second.text.hasPrefix("HTTP/1.1 200"), "the reused connection answered: \(second.text.prefix(80))")
    }
}
