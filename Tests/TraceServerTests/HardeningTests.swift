import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer
import TraceStorage

@Suite struct HardeningTests {
    // MARK: 1. Deep stacks

    @Test func aFiveThousandFrameStackAnswersTheCallTreeFoldedAtTheDocumentedDepth() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(HostileTraces.deepNativeStack(depth: 5000), name: "deep.json")
            for mode in ["top-down", "bottom-up"] {
                let response = try await client.get("/api/traces/\(id)/calltree?mode=\(mode)&minPercent=0")
                #expect(response.status == .ok, "\(response.text.prefix(300))")
                let json = try response.json()
                #expect(json["maxDepth"] as? Int == 200)
                // Walk down the only path: it stops at the fold, which carries the whole weight.
                var node = try #require((json["roots"] as? [[String: Any]])?.first)
                var depth = 0
                while let next = (node["children"] as? [[String: Any]])?.first {
                    node = next
                    depth += 1
                }
                #expect(node["foldedDepth"] as? Bool == true)
                // Top-down charges the folded frames to the deepest node kept; bottom-up's callers carry totals.
                #expect(node[mode == "top-down" ? "self" : "total"] as? Int == 1_000_000)
                #expect(depth == (mode == "top-down" ? 200 : 199), "thread root, then at most 200 frames")
            }
        }
    }

    @Test func internalErrorsDoNotLeakDetails() async throws {
        let error = APIError(.internalServerError, "internal error", detail: "x")
        #expect(String(decoding: error.jsonBody(), as: UTF8.self).contains("\"detail\":\"x\""))
        // The middleware's text for unexpected errors names the request, not the error's dump.
        struct Secret: Error, CustomStringConvertible { var description: String { "SECRET-STATE" } }
        let router = Router()
        router.add(middleware: APIErrorMiddleware())
        router.get("/boom") { _, _ -> String in throw Secret() }
        let app = Application(router: router)
        try await app.test(.router) { client in
            let response = try await client.get("/boom")
            #expect(response.status == .internalServerError)
            #expect(!response.text.contains("SECRET-STATE"))
        }
    }

    @Test func aCancelledQueryIsNotAnInternalError() async throws {
        // A query stops when its client leaves or the server shuts down: a 503 saying so, never a
        // 500 "internal error" (and no error in the log for every abandoned request).
        let router = Router()
        router.add(middleware: APIErrorMiddleware())
        router.get("/gone") { _, _ -> String in throw CancellationError() }
        let app = Application(router: router)
        try await app.test(.router) { client in
            let response = try await client.get("/gone")
            #expect(response.status == .serviceUnavailable)
            #expect(response.text.contains("cancelled"))
        }
    }

    // MARK: 3. Heavy queries off the request path

    @Test func aCheapRequestIsAnsweredWhileHeavyQueriesQueue() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.maxConcurrentQueries = 1
        try await scratch.withServer(options) { client in
            let id = try await client.uploadedID(nativeTrace(updates: 60_000), name: "big.json")
            let finished = ProbeLog()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let response = try await client.get("/api/traces/\(id)/graph?view=LandmarkListItemView&module=Landmarks")
                        #expect(response.status == .ok)
                        await finished.add("heavy")
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(20))
                    let response = try await client.get("/api/traces")
                    #expect(response.status == .ok)
                    await finished.add("cheap")
                }
                try await group.waitForAll()
            }
            // One heavy query runs at a time, off the cooperative pool: the list does not wait for them all.
            let order = await finished.entries
            let cheapAt = try #require(order.firstIndex(of: "cheap"))
            #expect(cheapAt < 6, "the cheap request finished after \(cheapAt) of 12 heavy queries")
        }
    }

    @Test func theWorkGateRefusesBeyondItsQueue() async throws {
        let gate = WorkGate(name: "queries", limit: 1, maxWaiting: 0)
        try await gate.enter()
        await #expect(throws: WorkGate.Busy.self) { try await gate.enter() }
        await gate.leave()
        try await gate.enter()
    }

    // MARK: 4. Damaged data directory

    @Test func aDataDirectoryOfTheEarlierLayoutOpensWithNothingLost() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // traces/<id>.trace committed by traces/<id>.json, as releases before the catalog wrote them.
        let traces = scratch.dataDirectory.appendingPathComponent("traces")
        try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
        func store(_ text: String) throws -> (id: String, size: Int) {
            let bytes = Data(text.utf8)
            let id = String(SigV4.hex(SHA256.hash(data: bytes)).prefix(32))
            try bytes.write(to: traces.appendingPathComponent("\(id).trace"))
            return (id, bytes.count)
        }
        func sidecar(_ id: String, _ json: String) throws {
            try Data(json.utf8).write(to: traces.appendingPathComponent("\(id).json"))
        }
        let kept = try store(nativeTrace(updates: 33, app: "Recipes"))
        try sidecar(kept.id, """
            {"id":"\(kept.id)","name":"recipes-ci-1234.json","app":"Recipes","device":"iPhone 16 Pro","durationNs":6300000,"sizeBytes":\(kept.size),\
            "uploadedAt":"2026-03-01T09:30:00.250Z","isSample":false,"sourceFormat":"tracesvc-trace","updateCount":33,"run":null}
            """)
        let older = try store(nativeTrace(updates: 12, app: "Weather"))
        try sidecar(older.id, """
            {"id":"\(older.id)","name":"weather.json","app":"Weather","device":"iPhone 16 Pro","durationNs":4200000,"sizeBytes":\(older.size),\
            "uploadedAt":"2025-12-24T18:00:00.000Z","isSample":false,"sourceFormat":"tracesvc-trace","updateCount":12,"run":null}
            """)
        let damaged = try store(nativeTrace(updates: 21, app: "Notes"))
        try sidecar(damaged.id, "garbage{")
        // A file whose bytes are not what its name says, and a sidecar without its file: set aside, never deleted.
        try Data(nativeTrace(updates: 5).utf8).write(to: traces.appendingPathComponent("0123456789abcdef0123456789abcdef.trace"))
        try sidecar("fedcba9876543210fedcba9876543210", "{}")

        try await scratch.withServer { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            let uploads = list.filter { $0["isSample"] as? Bool == false }
            #expect(uploads.map { $0["id"] as? String } == [damaged.id, kept.id, older.id].map(Optional.some), "newest first; the rebuilt one dated by its file")
            #expect(uploads[1]["name"] as? String == "recipes-ci-1234.json")
            #expect(uploads[1]["uploadedAt"] as? String == "2026-03-01T09:30:00.250Z")
            #expect(uploads[2]["app"] as? String == "Weather")
            #expect(uploads[0]["app"] as? String == "Notes")
            for trace in [kept, older, damaged] {
                #expect(try await client.get("/api/traces/\(trace.id)/summary").status == .ok)
            }
        }
        let files = FileManager.default
        #expect(!files.fileExists(atPath: traces.path), "the old folder is gone once moved")
        #expect(files.fileExists(atPath: scratch.dataDirectory.appendingPathComponent("catalog.sqlite").path))
        #expect(try files.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path).count == 3)
        let quarantined = try files.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("quarantine").path)
        #expect(quarantined.contains { $0.hasSuffix("0123456789abcdef0123456789abcdef.trace") })
        #expect(quarantined.contains { $0.hasSuffix("fedcba9876543210fedcba9876543210.json") })
        // A second start finds nothing more to move and keeps everything.
        try await scratch.withServer { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.filter { $0["isSample"] as? Bool == false }.count == 3)
        }
    }

    @Test func aReplacedBlobIsNotServedUnderTheOldIdAndIsKept() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let id = try await scratch.withServer { client in try await client.uploadedID(nativeTrace(updates: 33)) }
        let blobs = scratch.dataDirectory.appendingPathComponent("blobs")
        let file = blobs.appendingPathComponent(try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).first))
        // Same size, other content: fails the hash at load.
        let original = try String(contentsOf: file, encoding: .utf8)
        try Data(original.replacingOccurrences(of: "iPhone 16 Pro", with: "iPhone 16 Max").utf8).write(to: file)
        var options = scratch.options()
        options.memoryBudgetBytes = 1  // nothing stays loaded from the start
        try await scratch.withServer(options) { client in
            try expectError(try await client.get("/api/traces/\(id)/summary"), .conflict)
        }
        #expect(FileManager.default.fileExists(atPath: file.path), "never deleted")
    }

    // MARK: 5. Memory budget

    @Test func loadsInFlightAreBoundedAndCounted() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for index in 0..<6 {
            try Data(nativeTrace(updates: 2000 + index, app: "App\(index)").utf8).write(to: scratch.samples.appendingPathComponent("extra-\(index).json"))
        }
        let logger = Logger(label: "test")
        _ = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: scratch.samples, memoryBudgetBytes: 1), logger: logger)
        // Second open: samples are listed from the cache, not loaded.
        var configuration = TraceStore.Configuration(dataDirectory: scratch.dataDirectory, samplesDirectory: scratch.samples, memoryBudgetBytes: 1, maxConcurrentLoads: 2)
        // The bound on loads in flight is under test, not the 30 s wait for memory (MemoryWaitTests):
        // eight loads queued behind a one-byte budget passed it in a whole run on two loaded cores.
        configuration.memoryWait = .seconds(600)
        let store = try await TraceStore.open(configuration, logger: logger)
        let ids = try await store.list().map(\.id)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { _ = try await store.trace(id: id) } }
            try await group.waitForAll()
        }
        #expect(await store.peakConcurrentLoads <= 2)
        #expect(await store.peakConcurrentLoads >= 1)
        #expect(await ids.asyncFilter { await store.isInMemory(id: $0) }.count == 1, "a budget of one byte keeps only the last")
    }

    // MARK: 6, 7. Cross-site requests, DNS rebinding, write token

    @Test func crossOriginStateChangesAreRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let trace = ByteBuffer(string: nativeTrace())
            let foreign: [HTTPFields] = [
                [.origin: "http://evil.example", .contentType: "application/octet-stream"],
                [.origin: "http://localhost.evil.example", .contentType: "application/octet-stream"],
                [.secFetchSite: "cross-site", .contentType: "application/octet-stream"],
                [.origin: "null", .contentType: "application/octet-stream"],
            ]
            for headers in foreign {
                try expectError(try await client.execute(uri: "/api/traces", method: .post, headers: headers, body: trace), .forbidden)
            }
            // The no-cors text/plain POST a foreign page can send without a preflight.
            try expectError(try await client.execute(uri: "/api/traces", method: .post, headers: [.contentType: "text/plain"], body: trace), .unsupportedMediaType)
            // The test client's requests are for host "localhost".
            let same: HTTPFields = [.origin: "http://localhost", .secFetchSite: "same-origin", .contentType: "application/octet-stream"]
            #expect(try await client.execute(uri: "/api/traces", method: .post, headers: same, body: trace).status == .created)
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.filter { $0["isSample"] as? Bool == false }.count == 1, "only the same-origin upload was stored")
        }
    }

    @Test func writesNeedTheTokenWhenOneIsSetAndReadsDoNot() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.access = AccessPolicy(writeToken: "s3cret-token")
        try await scratch.withServer(options) { client in
            let trace = ByteBuffer(string: nativeTrace())
            let plain: HTTPFields = [.contentType: "application/octet-stream"]
            try expectError(try await client.execute(uri: "/api/traces", method: .post, headers: plain, body: trace), .unauthorized)
            var wrong = plain
            wrong[.authorization] = "Bearer s3cret-tokeN"
            try expectError(try await client.execute(uri: "/api/traces", method: .post, headers: wrong, body: trace), .unauthorized)
            var right = plain
            right[.authorization] = "Bearer s3cret-token"
            let created = try await client.execute(uri: "/api/traces", method: .post, headers: right, body: trace)
            #expect(created.status == .created)
            let id = try #require((try created.json()["trace"] as? [String: Any])?["id"] as? String)
            #expect(try await client.get("/api/traces/\(id)/summary").status == .ok, "reading by link stays open")
            try expectError(try await client.execute(uri: "/api/traces/\(id)", method: .delete), .unauthorized)
            #expect(try await client.execute(uri: "/api/traces/\(id)", method: .delete, headers: [.authorization: "Bearer s3cret-token"]).status == .noContent)
        }
    }

    @Test func theStorageQuotaRefusesUploadsBeyondIt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        // One trace and its record (4 KB, counted with every trace), not two.
        options.maxStoredBytes = Int64(nativeTrace(updates: 20).utf8.count) + StorageQuota.recordAllowance + 100
        try await scratch.withServer(options) { client in
            _ = try await client.uploadedID(nativeTrace(updates: 20))
            let response = try await client.upload(nativeTrace(updates: 21), name: "second.json")
            try expectError(response, .init(code: 507))
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)
        #expect(stored.count == 1, "one trace's bytes, nothing of the refused upload")
    }

    // MARK: 8, 9. Bombs, non-traces, headers

    @Test func aWhitespaceGzipBombFailsAfterBoundedInflation() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // `{` and 100 MB of spaces gzip to about 400 KB (the JSON reader skips whitespace); the default size allowance alone would read 8 x 2 GB of such a stream.
        let bomb = scratch.root.appendingPathComponent("bomb.json.gz")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "(printf '{'; head -c 100000000 /dev/zero | tr '\\0' ' ') | gzip -1 > '\(bomb.path)'"]
        try shell.run()
        shell.waitUntilExit()
        let data = try Data(contentsOf: bomb)
        #expect(data.count < 1 << 20)
        try await scratch.withServer(ServerOptions.defaultsFor(scratch)) { client in
            let response = try await client.execute(
                uri: "/api/traces?name=bomb.json.gz", method: .post, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(data: data)
            )
            try expectError(response, .unprocessableContent)
            // Inflation stopped at 100 times the upload's size, not at the 16 GB size allowance.
            let limitMB = try #require(response.text.firstMatch(of: /decompresses to more than (\d+) MB/).flatMap { Int($0.1) })
            #expect(limitMB <= max(64, ((100 * data.count) >> 20) + 1), "\(response.text)")
        }
    }

    @Test func wellFormedXMLThatIsNotAnExportIs422() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            for (name, text) in [
                ("page.html", "<html><body>hi</body></html>"),
                ("image.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"),
                ("Info.plist", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>CFBundleName</key><string>Orchard</string></dict></plist>"),
                ("toc.xml", "<?xml version=\"1.0\"?><trace-toc/>"),
            ] {
                let response = try await client.upload(text, name: name)
                try expectError(response, .unprocessableContent)
            }
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.allSatisfy { $0["isSample"] as? Bool == true }, "nothing stored")
        }
    }

    @Test func appPagesCarryAContentSecurityPolicyAndRefuseFraming() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            for path in ["/", "/traces/abc", "/js/app.js", "/api/traces"] {
                let response = try await client.get(path)
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'"))
                #expect(response.headers[.xFrameOptions] == "DENY")
            }
        }
    }
}

actor ProbeLog {
    private(set) var entries: [String] = []
    func add(_ entry: String) { entries.append(entry) }
}

extension Array where Element: Sendable {
    func asyncFilter(_ predicate: (Element) async -> Bool) async -> [Element] {
        var kept: [Element] = []
        for element in self where await predicate(element) { kept.append(element) }
        return kept
    }
}

extension ServerOptions {
    /// The shipped defaults (as `tracesvc serve` has them), on a scratch folder.
    static func defaultsFor(_ scratch: Scratch) -> ServerOptions {
        var options = ServerOptions(dataDirectory: scratch.dataDirectory)
        options.webRoot = scratch.webRoot
        options.samplesDirectory = scratch.samples
        options.port = 0
        return options
    }
}

/// The real binary over TCP: what only a socket can show (timeouts, connection limit, raw HTTP).
@Suite(.serialized) struct HardeningLiveTests {
    private func withServer(_ arguments: [String], _ body: (LiveServerTests.Server, Int) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: arguments)
        defer { _ = server.stop() }
        try await body(server, try #require(server.base.port))
    }

    @Test func inspectReadsTheDeepStackTraces() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for (name, text) in [("deep.json", HostileTraces.deepNativeStack(depth: 5000)), ("deep.xml", HostileTraces.deepXCTraceBacktrace(repeats: 6000))] {
            let file = scratch.root.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            let inspect = Process()
            inspect.executableURL = LiveServerTests.binary
            inspect.arguments = ["inspect", file.path]
            inspect.standardOutput = FileHandle.nullDevice
            try inspect.run()
            inspect.waitUntilExit()
            #expect(inspect.terminationStatus == 0, "\(name): inspect exits normally, no crash")
        }
    }

    @Test func aClientThatNeverFinishesItsHeadersIsDisconnected() async throws {
        try await withServer(["--idle-timeout", "1"]) { _, port in
            let client = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            defer { client.close() }
            #expect(client.sendMore("a"))
            #expect(client.readUntilClosed(within: 10).closed, "closed after the idle timeout, not held open")
        }
    }

    @Test func aStalledUploadBodyIsDisconnectedAndNothingStored() async throws {
        try await withServer(["--read-timeout", "1"]) { _, port in
            let client = try StalledClient(port: port, head: "POST /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n{")
            defer { client.close() }
            #expect(client.readUntilClosed(within: 10).closed)
        }
    }

    /// A 2.1 GB upload is refused on its Content-Length: the answer comes before a byte of the body
    /// beyond the first (a server that read on would wait for the rest until its read timeout).
    @Test func anUploadOverTheLimitIsRefusedOnItsAnnouncedLength() async throws {
        try await withServer(["--max-upload-mb", "10", "--read-timeout", "20"]) { _, port in
            let client = try StalledClient(port: port, head: "POST /api/traces?name=big.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 2100000000\r\n\r\n{")
            defer { client.close() }
            let answer = client.readUntilClosed(within: 5).text
            #expect(answer.hasPrefix("HTTP/1.1 413") && answer.contains("upload too large"), "\(answer.prefix(300))")
        }
    }

    @Test func connectionsBeyondTheLimitAreClosedAndTheServerStillAnswers() async throws {
        try await withServer(["--max-connections", "4"]) { server, port in
            var held: [StalledClient] = []
            for _ in 0..<4 { held.append(try StalledClient(port: port, head: "")) }
            let extra = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(extra.readUntilClosed(within: 10) == ("", true), "the fifth connection is closed unanswered")
            extra.close()
            for client in held { client.close() }
            try await Task.sleep(for: .milliseconds(200))
            let (_, response) = try await URLSession.shared.data(from: URL(string: "/api/traces", relativeTo: server.base)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "slots are given back when clients leave")
            let (metrics, _) = try await URLSession.shared.data(from: URL(string: "/metrics", relativeTo: server.base)!)
            #expect(String(decoding: metrics, as: UTF8.self).contains("tracesvc_connections_refused_total{limit=\"server\"}"), "the refusal is counted")
        }
    }

    @Test func expectContinueIsAnswered() async throws {
        try await withServer([]) { _, port in
            let body = nativeTrace(updates: 5)
            let client = try StalledClient(port: port, head: "POST /api/traces?name=c.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
            defer { client.close() }
            let (interim, _) = client.readUntilClosed(within: 0.5)
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue"), "answered before the body is sent: \(interim)")
            #expect(client.sendMore(body))
            let (rest, _) = client.readUntilClosed(within: 10)
            #expect(rest.contains("HTTP/1.1 201"), "\(rest.prefix(200))")
        }
    }

    @Test func aForeignHostIsRefusedForReadsAndWrites() async throws {
        try await withServer([]) { _, port in
            for line in ["GET /api/traces", "DELETE /api/traces/0123456789abcdef0123456789abcdef", "GET /"] {
                let client = try StalledClient(port: port, head: "\(line) HTTP/1.1\r\nHost: attacker.example.com:\(port)\r\nConnection: close\r\n\r\n")
                defer { client.close() }
                let (text, _) = client.readUntilClosed(within: 10)
                #expect(text.hasPrefix("HTTP/1.1 421"), "\(line): \(text.prefix(120))")
                #expect(text.contains("--allowed-host attacker.example.com"))
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
                let client = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                defer { client.close() }
                #expect(client.readUntilClosed(within: 10).text.hasPrefix("HTTP/1.1 200"), "\(host)")
            }
        }
        try await withServer(["--allowed-host", "traces.example.com"]) { _, port in
            let client = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: traces.example.com\r\nConnection: close\r\n\r\n")
            defer { client.close() }
            #expect(client.readUntilClosed(within: 10).text.hasPrefix("HTTP/1.1 200"))
        }
    }

    /// Answered before routing, still with every answer's security headers (issue 39: they lacked CSP, X-Frame-Options, nosniff).
    @Test func aMalformedRequestGetsAJSONErrorWithTheSecurityHeaders() async throws {
        try await withServer([]) { _, port in
            let heads = [
                "GET /api/traces?\(String(repeating: "a", count: 200_000)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n",
                "G@T /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            ]
            for head in heads {
                let client = try StalledClient(port: port, head: head)
                defer { client.close() }
                let (text, _) = client.readUntilClosed(within: 10)
                let shown = "\(head.prefix(40)): \(text.prefix(400))"
                #expect(text.hasPrefix("HTTP/1.1 400"), "\(shown)")
                #expect(text.contains("application/json") && text.contains("\"error\":\"malformed request\""), "\(shown)")
                let lines = Set(text.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n").map { $0.lowercased() })
                #expect(lines.contains("x-content-type-options: nosniff"), "\(shown)")
                #expect(lines.contains("x-frame-options: deny"), "\(shown)")
                #expect(lines.contains("referrer-policy: same-origin"), "\(shown)")
                #expect(lines.contains("content-security-policy: \(SecurityHeaders.contentSecurityPolicy.lowercased())"), "\(shown)")
            }
        }
    }

    @Test func aServerOnTheNetworkMakesUpAWriteTokenUnlessToldOtherwise() async throws {
        try await withServer(["--host", "0.0.0.0"]) { server, port in
            let printed = server.printed
            let token = try #require(printed.range(of: "write token ").map { String(printed[$0.upperBound...].prefix { !$0.isWhitespace }) })
            #expect(token.count >= 32)
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/traces?name=t.json")!)
            request.httpMethod = "POST"
            request.httpBody = Data(nativeTrace().utf8)
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            let (_, refused) = try await URLSession.shared.data(for: request)
            #expect((refused as? HTTPURLResponse)?.statusCode == 401)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (_, accepted) = try await URLSession.shared.data(for: request)
            #expect((accepted as? HTTPURLResponse)?.statusCode == 201)
        }
        try await withServer(["--host", "0.0.0.0", "--allow-anonymous-writes"]) { server, port in
            #expect(!server.printed.contains("write token"))
        }
    }
}
