import Foundation
import Testing
@testable import TraceServer

/// Issue 39: at `--max-connections` the first to connect used to win, so 20 source addresses holding
/// their per-address maximum (20 × 32 at the defaults) took every slot and locked everyone else out.
/// The last quarter of the slots now goes by need (`ConnectionCounter.fairShareAdmits`).
@Suite(.serialized) struct ConnectionFairShareTests {
    /// Opens up to `count` connections from `address`; how many were admitted (refused ones are
    /// released at once, as the guard closes them).
    private func open(_ counter: ConnectionCounter, _ address: String, _ count: Int) -> Int {
        var admitted = 0
        for _ in 0..<count {
            if counter.admit(address) { admitted += 1 } else { counter.release(address) }
        }
        return admitted
    }

    @Test func twentyAddressesAtTheirMaximumLeaveANewcomerItsSlots() {
        // One address after another, each taking all it can: the order that takes the most.
        let oneByOne = ConnectionCounter(limit: 512, limitPerAddress: 32)
        let taken = (1...20).map { open(oneByOne, "10.0.0.\($0)", 32) }
        #expect(taken.prefix(12).allSatisfy { $0 == 32 }, "below three quarters nothing changes: \(taken)")
        #expect(oneByOne.current < 512, "20 addresses hold \(oneByOne.current) of 512")
        #expect(open(oneByOne, "10.0.1.1", 6) >= 1, "a 21st address gets a slot")
        // Round after round, as 20 hogs connecting at once do.
        let together = ConnectionCounter(limit: 512, limitPerAddress: 32)
        for _ in 0..<32 { for hog in 1...20 { _ = open(together, "10.0.0.\(hog)", 1) } }
        #expect(together.current == 384, "the hogs stop at three quarters, each holding its share: \(together.current)")
        #expect(open(together, "10.0.1.1", 6) == 6, "a newcomer gets the six connections a browser opens")
    }

    @Test func theLastSlotsGoToAddressesHoldingNoneAndTheLastOneAlwaysDoes() {
        let counter = ConnectionCounter(limit: 64, limitPerAddress: 64)
        #expect(open(counter, "10.0.0.1", 64) == 48, "one address alone stops at three quarters")
        #expect(open(counter, "10.0.0.2", 64) == 1, "in the last quarter (16 free) one connection each for a newcomer: more needs more than 16 free")
        for index in 3...17 { #expect(open(counter, "10.0.0.\(index)", 2) == 1) }
        #expect(counter.current == 64)
        #expect(open(counter, "10.0.0.99", 1) == 0, "full is full")
        counter.release("10.0.0.1")
        #expect(open(counter, "10.0.0.1", 1) == 0, "a slot freed by an address holding many is not its again...")
        #expect(open(counter, "10.0.0.99", 1) == 1, "...but a newcomer's")
    }

    @Test func aTrustedProxyHasNoShareOnlyTheServersLimitAndItsClientsHaveTheirs() throws {
        let counter = ConnectionCounter(limit: 64, limitPerAddress: 8, exempt: try TrustedProxies(parsing: ["10.0.0.5"]))
        #expect(open(counter, "", 100) == 64, "the proxy carries every client: it is limited in all only")
        // Its clients' requests in flight are shared as an address's connections are.
        let inFlight = RequestsInFlight(limit: 8, limitInAll: 64)
        var tickets: [RequestsInFlight.Ticket] = []
        for client in 1...20 { for _ in 0..<8 { if let ticket = inFlight.enter("198.51.100.\(client)") { tickets.append(ticket) } } }
        #expect(tickets.count < 64, "20 forwarded clients hold \(tickets.count) of 64")
        #expect(inFlight.enter("198.51.100.21") != nil, "a 21st gets in")
    }

    // MARK: Through the server

    @Test func twentyAddressesHoldingUploadsCannotLockOutATwentyFirst() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch,
                                                arguments: ["--max-connections", "64", "--max-connections-per-address", "8"])
        defer { _ = server.stop() }
        let port = try #require(server.base.port)
        // 20 addresses (127.0.0.2-21) each open their 8 connections, one address after another, every
        // one an upload whose body stalls (busy, so no idle timeout closes it): 160 > 64 slots.
        var hogs: [StalledClient] = []
        defer { for hog in hogs { hog.close() } }
        for address in 2...21 {
            for _ in 0..<8 {
                hogs.append(try StalledClient(port: port, head: "POST /api/traces?name=hog.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n{\"a\"", from: "127.0.0.\(address)"))
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let held = hogs.filter { !$0.readUntilClosed(within: 0.01).closed }.count
        #expect(held >= 48 && held < 64, "the 20 addresses hold \(held) of 64 slots")
        // A 21st address is served, every time.
        var answered = 0
        for _ in 0..<5 where try await exchange(port: port, "GET /api/traces", from: "127.0.0.22", within: 10).status == 200 { answered += 1 }
        #expect(answered == 5, "\(answered) of 5 requests from a 21st address answered")
        #expect(hogs.filter { !$0.readUntilClosed(within: 0.01).closed }.count == held, "the hogs' uploads go on: nobody was cut off for the newcomer")
    }

    @Test func aClientThatConnectsAgainFindsTheSlotItJustLeft() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch,
                                                arguments: ["--max-connections-per-address", "1"])
        defer { _ = server.stop() }
        let port = try #require(server.base.port)
        // One connection at a time, each read to its end before the next: the server has closed its
        // side by then, so the slot is free, whether or not it has yet seen the client close.
        var statuses: [Int] = []
        for _ in 0..<40 { statuses.append(try await exchange(port: port, "GET /api/traces", from: "127.0.0.2", within: 10).status) }
        #expect(statuses.allSatisfy { $0 == 200 }, "answers in turn: \(statuses)")
    }

    @Test func behindATrustedProxyTwentyForwardedClientsCannotLockOutATwentyFirst() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: [
            "--trusted-proxy", "127.0.0.1", "--max-connections", "64", "--max-connections-per-address", "8",
        ])
        defer { _ = server.stop() }
        let port = try #require(server.base.port)
        // Through the proxy (127.0.0.1), 20 clients each send their 8 uploads, one client after another.
        var hogs: [StalledClient] = []
        defer { for hog in hogs { hog.close() } }
        for client in 1...20 {
            for _ in 0..<8 {
                hogs.append(try StalledClient(port: port, head: "POST /api/traces?name=hog.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "X-Forwarded-For: 198.51.100.\(client)\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n{\"a\"",
                    from: "127.0.0.1"))
            }
        }
        // Those past their share were answered 429 and closed after reading their bodies away for 2 s.
        try await Task.sleep(for: .seconds(3))
        let inFlight = hogs.filter { !$0.readUntilClosed(within: 0.01).closed }.count
        #expect(inFlight >= 48 && inFlight < 64, "the 20 clients have \(inFlight) uploads in flight over the proxy's 64 connections")
        var answered = 0
        for _ in 0..<5 {
            let answer = try await onThread {
                let client = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 198.51.100.21\r\nConnection: close\r\n\r\n", from: "127.0.0.1")
                defer { client.close() }
                return client.readUntilClosed(within: 10).text
            }
            if answer.hasPrefix("HTTP/1.1 200") { answered += 1 }
        }
        #expect(answered == 5, "\(answered) of 5 requests from a 21st client through the proxy answered")
    }
}
