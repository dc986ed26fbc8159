import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Logging
import Synchronization
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

/// Issue 39: a global fair share. One client's flood of trace loads cannot take the memory
/// budget from the others: another client's load is served after one of the flood's, not after
/// all of them, and one client may have only so many loads waiting.
@Suite(.serialized) struct MemoryFairShareTests {
    @Test func theNextClaimGoesToTheClientServedLeastRecently() async throws {
        let budget = MemoryBudget(limit: 100, maxWaiting: 100, maxWaitingPerClient: 5, maxWait: .seconds(600))
        var held: MemoryBudget.Claim? = budget.claimNow(100)
        let order = ProbeLog()
        // Each claim is given back as soon as it is granted: the budget serves one at a time, in its order.
        @Sendable func claimAndGiveBack(_ client: String, _ label: String) async throws {
            let claim = try await budget.claim(100, client: client)
            await order.add(label)
            withExtendedLifetime(claim) {}
        }
        var waiting: [Task<Void, any Error>] = []
        for index in 0..<5 {
            waiting.append(Task { try await claimAndGiveBack("flood", "flood \(index)") })
            while budget.waiting <= index { try await Task.sleep(for: .milliseconds(2)) }
        }
        await #expect(throws: StoreError.self, "the flood's own queue is full") { _ = try await budget.claim(100, client: "flood") }
        waiting.append(Task { try await claimAndGiveBack("other", "other") })
        while budget.waiting < 6 { try await Task.sleep(for: .milliseconds(2)) }
        held = nil
        for task in waiting { try await task.value }
        let entries = await order.entries
        #expect(entries == ["flood 0", "other", "flood 1", "flood 2", "flood 3", "flood 4"], "served after one of the flood's claims, not after all five")
        #expect(held == nil && budget.used == 0)
    }

    /// A cold open parsed while its blob arrives (and an upload parsed while it arrives) runs on a
    /// thread of its own, and waits for the load gate as the client that asked, not as the server:
    /// one client's flood of cold opens delays another's by one of them, not by all.
    @Test func aParseWhileBytesArriveWaitsAsTheClientThatAsked() async throws {
        let gate = WorkGate(name: "trace loads", limit: 1, maxWaiting: 100, maxWaitingPerClient: 5)
        try await gate.enter("holder")
        // Written by the work itself: the gate runs one at a time, so this is the order it served them.
        let served = ServedOrder()
        @Sendable func parse(as client: String, _ label: String) async throws {
            try await WorkClient.$currentKey.withValue(client) {
                try await gate.runOnOwnThread { served.labels.withLock { $0.append(label) } }
            }
        }
        var waiting: [Task<Void, any Error>] = []
        for index in 0..<5 {
            waiting.append(Task { try await parse(as: "flood", "flood \(index)") })
            while await gate.load.waiting <= index { try await Task.sleep(for: .milliseconds(2)) }
        }
        await #expect(throws: WorkGate.Busy.self, "the flood's own queue is full") {
            try await WorkClient.$currentKey.withValue("flood") { _ = try await gate.runOnOwnThread { 0 } }
        }
        waiting.append(Task { try await parse(as: "other", "other") })
        while await gate.load.waiting < 6 { try await Task.sleep(for: .milliseconds(2)) }
        await gate.leave("holder")
        for task in waiting { try await task.value }
        let entries = served.labels.withLock { $0 }
        #expect(try #require(entries.firstIndex(of: "other")) <= 1, "served after one of the flood's parses, not after all five: \(entries)")
        #expect(await gate.load.running == 0)
    }

    @Test func anotherClientsTraceLoadsWhileOneClientFloodsTheMemoryBudget() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Six traces of other apps, each larger than the budget (so loads run one at a time, alone).
        let apps = ["Orders", "Maps", "Notes", "Weather", "Podcasts", "Ledger"]
        for app in apps {
            try Data(nativeTrace(updates: 20_000, app: app).utf8).write(to: scratch.samples.appendingPathComponent("\(app.lowercased()).json"))
        }
        var options = scratch.options(memoryBudgetBytes: 1 << 20)
        options.memoryWait = .seconds(120)
        // Both clients reach the server through one proxy, which says who they are.
        options.connectionLimits.trustedProxies = try TrustedProxies(parsing: ["127.0.0.0/8", "::1"])
        let app = try await buildApplication(options: options, logger: Logger(label: "test"))
        try await app.test(.live) { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            let ids = apps.map { name in list.first { ($0["name"] as? String)?.lowercased() == name.lowercased() }?["id"] as? String ?? "" }
            #expect(!ids.contains(""), "\(list.map { $0["name"] ?? "" })")
            let port = try #require(client.port)
            let order = ProbeLog()
            // Each request over a connection of its own (the test client sends one at a time).
            @Sendable func summary(_ id: String, for address: String, _ label: String) async throws {
                let status = try await onThread {
                    let socket = try StalledClient(port: port, head: "GET /api/traces/\(id)/summary HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "X-Forwarded-For: \(address)\r\nConnection: close\r\n\r\n")
                    defer { socket.close() }
                    return socket.readUntilClosed(within: 120).text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
                }
                #expect(status == 200, "\(label): \(status)")
                await order.add(label)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in ids.prefix(5) { group.addTask { try await summary(id, for: "198.51.100.1", "flood") } }
                try await Task.sleep(for: .milliseconds(300))
                group.addTask { try await summary(ids[5], for: "198.51.100.2", "other") }
                try await group.waitForAll()
            }
            let entries = await order.entries
            #expect(try #require(entries.firstIndex(of: "other")) <= 2, "the other client was served after \(entries.firstIndex(of: "other") ?? -1) of the flood's 5 loads: \(entries)")
        }
    }
}

/// The order pieces of work ran in, as they ran.
private final class ServedOrder: Sendable {
    let labels = Mutex<[String]>([])
}
