import Foundation
import NIOCore
import Testing
@testable import TraceServer

/// Issue 39 (and 44, item 1): behind a trusted proxy the per-address limits count the client the
/// proxy forwarded; from any other peer `X-Forwarded-For` changes nothing.
@Suite(.serialized) struct TrustedProxyTests {
    private func peer(_ ip: String) throws -> SocketAddress { try SocketAddress(ipAddress: ip, port: 40000) }

    // MARK: Ranges

    @Test func rangesParseIPv4AndIPv6AndBareAddresses() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "192.0.2.7", "fd00:1234::/32", "::1"])
        #expect(proxies.trusts(try #require(IPAddress("10.200.3.4"))))
        #expect(!proxies.trusts(try #require(IPAddress("11.0.0.1"))))
        #expect(proxies.trusts(try #require(IPAddress("192.0.2.7"))))
        #expect(!proxies.trusts(try #require(IPAddress("192.0.2.8"))), "a bare address is a /32")
        #expect(proxies.trusts(try #require(IPAddress("fd00:1234:ffff::9"))))
        #expect(!proxies.trusts(try #require(IPAddress("fd00:1235::9"))))
        #expect(proxies.trusts(try #require(IPAddress("::1"))))
        #expect(proxies.trusts(try #require(IPAddress("::ffff:10.1.2.3"))), "an IPv4-mapped address is its IPv4 address")
        let odd = try TrustedProxies(parsing: ["172.16.0.0/12"])
        #expect(odd.trusts(try #require(IPAddress("172.31.255.255"))))
        #expect(!odd.trusts(try #require(IPAddress("172.32.0.0"))))
        #expect(try TrustedProxies(parsing: ["0.0.0.0/0"]).trusts(try #require(IPAddress("203.0.113.1"))))
        #expect(!(try TrustedProxies(parsing: ["0.0.0.0/0"]).trusts(try #require(IPAddress("2001:db8::1")))), "an IPv4 range holds no IPv6 address")
    }

    @Test func aBadRangeIsAnErrorNamingTheValue() {
        for (text, says) in [("10.0.0.0/33", "from 0 to 32"), ("fd00::/129", "from 0 to 128"), ("proxy.local", "not an IP address"),
                             ("10.0.0.0/", "prefix length"), ("10.0.0/8", "not an IP address"), ("10.0.0.1:80", "not an IP address")] {
            do {
                _ = try TrustedProxies(parsing: [text])
                Issue.record("\(text) was accepted")
            } catch {
                #expect("\(error)".contains("'\(text)'") && "\(error)".contains(says), "\(text): \(error)")
            }
        }
    }

    // MARK: The address chosen

    @Test func anUntrustedPeerIsItselfWhateverItForwards() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8"])
        let choice = proxies.client(peer: try peer("203.0.113.5"), forwardedFor: ["198.51.100.1"])
        #expect(choice.key == "203.0.113.5" && !choice.forwarded)
        #expect(TrustedProxies.none.client(peer: try peer("10.0.0.2"), forwardedFor: ["198.51.100.1"]).key == "10.0.0.2", "no proxy is trusted by default")
    }

    @Test func behindATrustedProxyTheRightMostUntrustedAddressIsTheClient() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "fd00::/8"])
        // The client made up the left entry; the proxy appended the address it saw.
        #expect(proxies.client(peer: try peer("10.0.0.2"), forwardedFor: ["1.2.3.4, 198.51.100.7"]).key == "198.51.100.7")
        // A chain of trusted proxies is walked through, over several header lines.
        #expect(proxies.client(peer: try peer("10.0.0.2"), forwardedFor: ["1.2.3.4, 198.51.100.7", "10.9.9.9 , 10.0.0.3"]).key == "198.51.100.7")
        // An IPv6 client counts by its /64, behind an IPv6 proxy too.
        let v6 = proxies.client(peer: try peer("fd00::2"), forwardedFor: ["2001:db8:aa:bb:1:2:3:4"])
        #expect(v6.key == "2001:db8:aa:bb::/64" && v6.forwarded)
        #expect(proxies.client(peer: try peer("10.0.0.2"), forwardedFor: ["[2001:db8::1]"]).key == "2001:db8:0:0::/64")
        // Only trusted proxies in the chain: the left-most of them.
        #expect(proxies.client(peer: try peer("10.0.0.2"), forwardedFor: ["10.1.1.1, 10.0.0.3"]).key == "10.1.1.1")
        // No header, or an entry that is no address where the client should be: the proxy itself.
        #expect(proxies.client(peer: try peer("10.0.0.2"), forwardedFor: []) == ("10.0.0.2", false))
        #expect(proxies.client(peer: try peer("10.0.0.2"), forwardedFor: ["198.51.100.7, unknown"]) == ("10.0.0.2", false))
    }

    // MARK: Through the server

    @Test func aForwardedClientIsLimitedByItsOwnAddressAndTheProxyIsNotLockedOut() async throws {
        try await withBinary(["--trusted-proxy", "127.0.0.1", "--max-connections-per-address", "3"]) { port in
            // Three uploads in flight through the proxy (127.0.0.1) for one client.
            var held: [StalledClient] = []
            defer { for client in held { client.close() } }
            for _ in 0..<3 { held.append(try StalledClient(port: port, head: Self.stalledUpload(forwardedFor: "198.51.100.7"), from: "127.0.0.1")) }
            try await Task.sleep(for: .milliseconds(500))
            // That client's fourth request is refused, whatever it put left of what the proxy appended...
            let refused = try await request(port: port, from: "127.0.0.1", forwardedFor: "203.0.113.9, 198.51.100.7")
            #expect(refused.status == 429, "\(refused.text)")
            #expect(refused.text.contains("198.51.100.7"))
            // ...while another client through the same proxy is served over the proxy's fifth connection.
            #expect(try await request(port: port, from: "127.0.0.1", forwardedFor: "198.51.100.8").status == 200)
            // A peer that is no trusted proxy claims to be another client: the header is ignored, and
            // its own address's connection limit holds (its fourth connection is closed unanswered).
            for _ in 0..<3 { held.append(try StalledClient(port: port, head: Self.stalledUpload(forwardedFor: "198.51.100.20"), from: "127.0.0.2")) }
            try await Task.sleep(for: .milliseconds(300))
            let forged = try await request(port: port, from: "127.0.0.2", forwardedFor: "198.51.100.21")
            #expect(forged.status == 0, "closed without an answer: \(forged.text)")
            // ...and claiming to be the client at its limit does not make it that client either.
            #expect(try await request(port: port, from: "127.0.0.3", forwardedFor: "198.51.100.7").status == 200)
        }
    }

    @Test func withoutTrustedProxiesTheHeaderChangesNothing() async throws {
        try await withBinary(["--max-connections-per-address", "2"]) { port in
            var held: [StalledClient] = []
            defer { for client in held { client.close() } }
            for index in 0..<2 { held.append(try StalledClient(port: port, head: Self.stalledUpload(forwardedFor: "198.51.100.\(index)"), from: "127.0.0.4")) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await request(port: port, from: "127.0.0.4", forwardedFor: "198.51.100.99").status == 0)
            #expect(try await request(port: port, from: "127.0.0.5", forwardedFor: "127.0.0.4").status == 200)
        }
    }

    private static func stalledUpload(forwardedFor: String) -> String {
        "POST /api/traces?name=slow.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: \(forwardedFor)\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n{\"a\""
    }

    private func request(port: Int, from source: String, forwardedFor: String) async throws -> (status: Int, text: String) {
        try await onThread {
            let client = try StalledClient(port: port, head: "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: \(forwardedFor)\r\nConnection: close\r\n\r\n", from: source)
            defer { client.close() }
            let (text, _) = client.readUntilClosed(within: 10)
            return (text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0, text)
        }
    }

    private func withBinary(_ arguments: [String], _ body: (Int) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: arguments)
        defer { _ = server.stop() }
        try await body(try #require(server.base.port))
    }
}
