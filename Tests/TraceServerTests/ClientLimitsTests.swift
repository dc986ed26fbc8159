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

/// Issue 24, items 2 (multipart headers), 3 (abandoned and unfair work), 4 (connections) and 9
/// (Origin scheme, 100 Continue): no client may starve the others.
@Suite(.serialized) struct ClientLimitsTests {
    // MARK: 3. The query pool, shared fairly and cancellable

    @Test func aFreeSlotGoesToTheWaitingClientServedLeastRecently() async throws {
        let gate = WorkGate(name: "queries", limit: 1, maxWaiting: 100)
        let log = ProbeLog()
        let flood = WorkClient(key: "flood", connection: nil), other = WorkClient(key: "other", connection: nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await gate.run(for: flood) { Thread.sleep(forTimeInterval: 0.03) }
                    await log.add("flood")
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            group.addTask {
                try await gate.run(for: other) {}
                await log.add("other")
            }
            try await group.waitForAll()
        }
        let order = await log.entries
        #expect(try #require(order.firstIndex(of: "other")) <= 2, "served after the flood's running piece, not after the flood: \(order)")
    }

    @Test func eachClientsQueueIsBoundedOnItsOwn() async throws {
        let gate = WorkGate(name: "queries", limit: 1, maxWaiting: 100, maxWaitingPerClient: 1)
        try await gate.enter("a")
        let queued = Task { try await gate.enter("a") }
        try await Task.sleep(for: .milliseconds(50))
        await #expect(throws: WorkGate.Busy.self, "a's queue is full") { try await gate.enter("a") }
        let other = Task { try await gate.enter("b") }
        try await Task.sleep(for: .milliseconds(50))
        await gate.leave("a")
        try await other.value
        await gate.leave("b")
        try await queued.value
        await gate.leave("a")
    }

    @Test func cancelledWaitersLeaveTheQueueAndRunningWorkStops() async throws {
        let gate = WorkGate(name: "queries", limit: 1, maxWaiting: 100)
        let spin: @Sendable () throws -> Int = {
            let deadline = Date().addingTimeInterval(20)
            while !Task.isCancelled, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            return 1
        }
        let running = Task { try await gate.run(spin) }
        try await Task.sleep(for: .milliseconds(100))
        let waiting = Task { try await gate.run { 2 } }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        waiting.cancel()
        running.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await #expect(throws: CancellationError.self) { try await running.value }
        // Well before the 20 s the work would spin uncancelled (5 s seen with the whole suite at once).
        #expect(ContinuousClock.now - started < .seconds(15))
        // The client's connection closing stops its work the same way.
        let connection = ConnectionWatch()
        let abandoned = Task { try await gate.run(for: WorkClient(key: "a", connection: connection), spin) }
        try await Task.sleep(for: .milliseconds(100))
        connection.close()
        await #expect(throws: CancellationError.self) { try await abandoned.value }
        #expect(try await gate.run { 3 } == 3, "every slot was given back")
    }

    /// A server on a scratch folder whose sample is a synthetic trace heavy enough that a ranged
    /// compare takes a while; `body` gets the port, the sample's id and the compare's path.
    private func withHeavyServer(
        updates: Int = 20_000, waitingPerClient: Int = 64, _ body: @Sendable (_ port: Int, _ id: String, _ compare: String) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try NativeTraceWriter.write(SyntheticTraces.trace(updates: updates, seed: 24), to: scratch.samples.appendingPathComponent("synthetic.json"))
        for sample in ["landmarks-concurrency-slow", "landmarks-scroll-slow"] {
            try Data(SampleTraces.fileContents(of: sample)).write(to: scratch.samples.appendingPathComponent("\(sample).json"))
        }
        var options = scratch.options()
        options.maxConcurrentQueries = 1
        options.maxWaitingQueriesPerClient = waitingPerClient
        let app = try await buildApplication(options: options, logger: Logger(label: "test"))
        try await app.test(.live) { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            let id = try #require(list.first { ($0["updateCount"] as? Int ?? 0) >= updates }?["id"] as? String)
            let info = try await client.get("/api/traces/\(id)").json()
            let (start, end) = (try #require(info["start"] as? Int), try #require(info["end"] as? Int))
            // Ranged sides are computed per request (the whole trace's side is kept).
            let compare = "/api/compare?a=\(id)&b=\(id)&aStart=\(start)&aEnd=\(end - 1)&bStart=\(start + 1)&bEnd=\(end)"
            try await body(try #require(client.port), id, compare)
        }
    }

    @Test func historyReadsWaitTheirTurnAtTheQueryGate() async throws {
        // One query at a time and no queue per client: a history read while a compare runs is
        // refused as another query would be (it used to run beside every query, unaccounted).
        try await withHeavyServer(waitingPerClient: 0) { port, _, compare in
            #expect(try await exchange(port: port, "GET /api/history?metric=update-count").status == 200)
            // Another client's compare takes the slot.
            let other = try StalledClient(port: port, head: "GET \(compare) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", from: "127.0.0.2")
            defer { other.close() }
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await exchange(port: port, "GET /api/history?metric=update-count").status == 503)
            _ = other.readUntilClosed(within: 30)
        }
    }

    @Test func queriesWhoseClientsLeftStopAndFreeTheirWorker() async throws {
        try await withHeavyServer { port, id, compare in
            let one = try await exchange(port: port, "GET \(compare)")
            #expect(one.status == 200)
            // Four compares whose clients give up after 300 ms.
            var leaving: [StalledClient] = []
            for _ in 0..<4 { leaving.append(try StalledClient(port: port, head: "GET \(compare) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) }
            try await Task.sleep(for: .milliseconds(300))
            for client in leaving { client.close() }
            let summary = try await exchange(port: port, "GET /api/traces/\(id)/summary?start=1&end=2000000000000")
            #expect(summary.status == 200)
            // Left running, the four compares would hold every worker for at least one compare's
            // time; stopped, the summary waits for none (under / 2 failed at load 13 on 2 cores).
            #expect(summary.seconds < one.seconds, "the summary waited \(summary.seconds) s; one compare takes \(one.seconds) s")
        }
    }

    @Test func oneClientsFloodOfComparesDelaysAnotherClientByOnePieceOfWork() async throws {
        try await withHeavyServer { port, id, compare in
            let one = try await exchange(port: port, "GET \(compare)")
            var flood: [StalledClient] = []
            defer { for client in flood { client.close() } }
            for _ in 0..<8 { flood.append(try StalledClient(port: port, head: "GET \(compare) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) }
            try await Task.sleep(for: .milliseconds(300))
            let summary = try await exchange(port: port, "GET /api/traces/\(id)/summary?start=1&end=2000000000000", from: "127.0.0.2")
            #expect(summary.status == 200)
            #expect(summary.seconds < one.seconds, "the other client waited \(summary.seconds) s; one compare takes \(one.seconds) s")
        }
    }

    @Test func theRemainingHeavyRoutesGoThroughTheQueryPool() async throws {
        // One slot, and no client may queue: a request for heavy work while the slot is taken is refused.
        try await withHeavyServer(updates: 40_000, waitingPerClient: 0) { port, id, compare in
            let list = try await onThread { () throws -> Data in
                let client = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                defer { client.close() }
                let text = client.readUntilClosed(within: 10).text
                return Data(text[text.range(of: "\r\n\r\n")!.upperBound...].utf8)
            }
            let traces = try #require((try JSONSerialization.jsonObject(with: list) as? [String: Any])?["traces"] as? [[String: Any]])
            let concurrency = try #require(traces.first { $0["name"] as? String == "landmarks-concurrency-slow" }?["id"] as? String)
            let scroll = try #require(traces.first { $0["name"] as? String == "landmarks-scroll-slow" }?["id"] as? String)
            for path in ["\(id)/updates/0", "\(id)/task-states?lane=main-actor&start=1&end=2000000000000", "\(id)/long-update?direction=next",
                         "\(concurrency)/task-states/0", "\(scroll)/signposts/0"] {
                // The last round's refused compare answered without waiting for its first side, which
                // holds the slot until it sees the cancellation: the pool is free once that work ends.
                var free = try await exchange(port: port, "GET /api/traces/\(path)").status
                for _ in 0..<300 where free == 503 {
                    try await Task.sleep(for: .milliseconds(100))
                    free = try await exchange(port: port, "GET /api/traces/\(path)").status
                }
                #expect(free == 200, "\(path) answers \(free) when the pool is free")
                // Another client's compare takes the slot with its first side (the second is refused).
                let other = try StalledClient(port: port, head: "GET \(compare) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", from: "127.0.0.2")
                try await Task.sleep(for: .milliseconds(50))
                let taken = try await exchange(port: port, "GET /api/traces/\(path)").status
                #expect(taken == 503, "\(path) answers \(taken): it is heavy work, it waits for the pool like the others")
                _ = other.readUntilClosed(within: 30)
                other.close()
            }
        }
    }

    // MARK: 3. Shutdown

    @Test func sigtermStopsQueriesInFlightWithinTheGracePeriod() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try NativeTraceWriter.write(SyntheticTraces.trace(updates: 20_000, seed: 24), to: scratch.samples.appendingPathComponent("synthetic.json"))
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: ["--shutdown-grace", "1"])
        let port = try #require(server.base.port)
        let (list, _) = try await URLSession.shared.data(from: URL(string: "/api/traces", relativeTo: server.base)!)
        let traces = try #require((try JSONSerialization.jsonObject(with: list) as? [String: Any])?["traces"] as? [[String: Any]])
        let id = try #require(traces.first { ($0["updateCount"] as? Int ?? 0) >= 20_000 }?["id"] as? String)
        let compare = "/api/compare?a=\(id)&b=\(id)&aStart=1&aEnd=2000000000000&bStart=2&bEnd=2000000000000"
        var waiting: [StalledClient] = []
        defer { for client in waiting { client.close() } }
        for _ in 0..<12 { waiting.append(try StalledClient(port: port, head: "GET \(compare) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) }
        try await Task.sleep(for: .milliseconds(500))
        let started = Date()
        let status = server.stop(within: 30)
        #expect(status == 0)
        #expect(Date().timeIntervalSince(started) < 10, "exited \(Date().timeIntervalSince(started)) s after SIGTERM with --shutdown-grace 1")
    }

    // MARK: 4. Connections

    @Test func oneAddressHoldingManySocketsDoesNotLockOutOthers() async throws {
        try await withBinary([]) { _, port in
            // More idle sockets than the server has slots, all from one address.
            var held: [StalledClient] = []
            defer { for client in held { client.close() } }
            for _ in 0..<600 { held.append(try StalledClient(port: port, head: "")) }
            try await Task.sleep(for: .milliseconds(300))
            for source in ["127.0.0.2", "127.0.0.3"] {
                let answer = try await exchange(port: port, "GET /api/traces", from: source, within: 10)
                #expect(answer.status == 200, "\(source) got in")
            }
        }
    }

    @Test func nearTheLimitConnectionsWithoutAHeadAreClosedSoonerAndNewClientsGetIn() async throws {
        try await withBinary(["--max-connections", "8", "--idle-timeout", "60"]) { _, port in
            var idle: [StalledClient] = []
            defer { for client in idle { client.close() } }
            for index in 0..<7 { idle.append(try StalledClient(port: port, head: index == 0 ? "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " : "")) }
            try await Task.sleep(for: .seconds(7))
            // Seven of eight slots taken: idle ones are closed (the idle timeout is 60 s) until fewer than six are.
            let closed = idle.filter { $0.readUntilClosed(within: 0.2).closed }.count
            #expect(closed >= 2, "\(closed) of 7 closed 7 s in")
            var newcomers: [StalledClient] = []
            defer { for client in newcomers { client.close() } }
            for source in ["127.0.0.2", "127.0.0.3"] {
                newcomers.append(try StalledClient(port: port, head: "", from: source))
            }
            #expect(try await exchange(port: port, "GET /api/traces", from: "127.0.0.4").status == 200, "a slot was free for the last of three newcomers")
        }
    }

    @Test func aBodyTrickledAByteASecondIsCutOffWith408() async throws {
        try await withBinary([]) { _, port in
            let client = try StalledClient(port: port, head: "POST /api/traces?name=slow.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n{")
            defer { client.close() }
            var answer = ""
            for _ in 0..<25 {
                let (text, closed) = client.readUntilClosed(within: 1)
                answer += text
                if closed || !client.sendMore(" ") { break }
            }
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(200))")
            #expect(answer.contains("--min-upload-rate"))
        }
    }

    @Test func aBodyIsCutOffAtItsDeadlineHoweverItArrives() async throws {
        try await withBinary(["--upload-deadline", "2", "--min-upload-rate", "1"]) { _, port in
            let client = try StalledClient(port: port, head: "POST /api/traces?name=slow.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n{")
            defer { client.close() }
            var answer = ""
            for _ in 0..<40 {
                let (text, closed) = client.readUntilClosed(within: 0.25)
                answer += text
                if closed || !client.sendMore(String(repeating: " ", count: 100)) { break }
            }
            #expect(answer.hasPrefix("HTTP/1.1 408") && answer.contains("--upload-deadline"), "\(answer.prefix(300))")
        }
    }

    // MARK: 9. 100 Continue, Origin

    @Test func noContinueIsSentForAnUploadTheHeadersRefuse() async throws {
        try await withBinary(["--max-upload-mb", "1"]) { _, port in
            let client = try StalledClient(port: port, head: "POST /api/traces?name=big.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
            defer { client.close() }
            let (text, _) = client.readUntilClosed(within: 3)
            #expect(text.hasPrefix("HTTP/1.1 413"), "the answer, not an invitation to send 5 MB for nothing: \(text.prefix(100))")
        }
    }

    @Test func anOriginOfAnotherSchemeIsAnotherOrigin() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let trace = ByteBuffer(string: nativeTrace())
            let https: HTTPFields = [.origin: "https://localhost", .contentType: "application/octet-stream"]
            try expectError(try await client.execute(uri: "/api/traces", method: .post, headers: https, body: trace), .forbidden)
            // Behind a TLS proxy that says so, https is this server's scheme.
            var proxied = https
            proxied[.xForwardedProto] = "https"
            #expect(try await client.execute(uri: "/api/traces", method: .post, headers: proxied, body: trace).status == .created)
            var plain = https
            plain[.origin] = "http://localhost"
            #expect(try await client.execute(uri: "/api/traces", method: .post, headers: plain, body: ByteBuffer(string: nativeTrace(updates: 21))).status == .created)
        }
    }

    // MARK: 2. Multipart headers

    @Test func endlessMultipartHeadersAreRefusedEarlyAndTheListStaysFast() async throws {
        try await withBinary([]) { server, port in
            let megabytes = 16
            let head = "POST /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=XX\r\nConnection: close\r\n"
                + "Content-Length: \(megabytes << 20)\r\n\r\n--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
            let started = Date()
            let answers = try await withThrowingTaskGroup(of: (String, Double).self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await onThread {
                            let client = try StalledClient(port: port, head: head)
                            defer { client.close() }
                            let chunk = String(repeating: "a", count: 64 << 10)
                            for _ in 0..<(megabytes * 16 - 1) where client.sendMore(chunk) {}
                            let (text, _) = client.readUntilClosed(within: 30)
                            return (text, Date().timeIntervalSince(started))
                        }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(300))
                    let list = try await exchange(port: port, "GET /api/traces", from: "127.0.0.2")
                    return ("list \(list.status)", list.seconds)
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (text, seconds) in answers {
                if text.hasPrefix("list") {
                    #expect(text == "list 200" && seconds < 5, "the list took \(seconds) s")
                } else {
                    #expect(text.hasPrefix("HTTP/1.1 400") && text.contains("16 KB"), "\(text.prefix(300))")
                    #expect(seconds < 10, "answered after \(seconds) s")
                }
            }
        }
    }

    private func withBinary(_ arguments: [String], _ body: (LiveServerTests.Server, Int) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: arguments)
        defer { _ = server.stop() }
        try await body(server, try #require(server.base.port))
    }
}

/// One request over a socket of its own (`Connection: close`), from `source`, on a thread of its
/// own (a blocking read must not hold the cooperative pool the in-process server runs on): the
/// status and the seconds until the answer was complete.
func exchange(port: Int, _ requestLine: String, from source: String? = nil, within seconds: Double = 120) async throws -> (status: Int, seconds: Double) {
    try await onThread {
        let started = Date()
        let client = try StalledClient(port: port, head: "\(requestLine) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", from: source)
        defer { client.close() }
        let (text, _) = client.readUntilClosed(within: seconds)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, Date().timeIntervalSince(started))
    }
}

/// Runs blocking work on a thread of its own.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
