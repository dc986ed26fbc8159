import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16).
struct IPAddress: Sendable, Equatable {
    let bytes: [UInt8]

    /// Parses `192.0.2.7`, `2001:db8::1` or `[2001:db8::1]`; nil for anything else (no ports, no names).
    init?(_ text: some StringProtocol) {
        var text = String(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = [UInt8](repeating: 0, count: 4), v6 = [UInt8](repeating: 0, count: 16)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            bytes = v4
        } else if v6.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 {
            // An IPv4 address written as IPv6 (::ffff:a.b.c.d, a dual-stack socket's) is that IPv4 address.
            bytes = v6.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ? Array(v6.suffix(4)) : v6
        } else {
            return nil
        }
    }

    init?(_ address: SocketAddress) {
        guard let text = address.ipAddress else { return nil }
        self.init(text)
    }

    /// The key per-address limits count by: an IPv4 address, or the /64 network of an IPv6 one
    /// (one host usually holds a whole /64, and would otherwise count as billions of clients).
    var clientKey: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

/// A network in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is itself alone).
struct AddressRange: Sendable, Equatable {
    let network: IPAddress
    let prefixLength: Int

    init(parsing text: String) throws(AddressRangeError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw AddressRangeError("'\(text)' is not an IP address or CIDR range (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)")
        }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else {
                throw AddressRangeError("'\(text)': the prefix length must be a number from 0 to \(bits)")
            }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = address
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network.bytes, address.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }
}

/// A text that is no valid value, described so that the caller can name the option.
struct AddressRangeError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The proxies (`serve --trusted-proxy`) whose `X-Forwarded-For` names the client. From any other
/// peer the header is ignored: a client cannot choose the address its limits are counted by.
public struct TrustedProxies: Sendable {
    let ranges: [AddressRange]

    public static let none = TrustedProxies(ranges: [])

    init(ranges: [AddressRange]) { self.ranges = ranges }

    /// Parses CIDR ranges; the error names the bad value.
    public init(parsing texts: [String]) throws {
        ranges = try texts.map { text throws(AddressRangeError) in try AddressRange(parsing: text.trimmingCharacters(in: .whitespaces)) }
    }

    var isEmpty: Bool { ranges.isEmpty }

    func trusts(_ address: IPAddress) -> Bool { ranges.contains { $0.contains(address) } }

    func trusts(_ peer: SocketAddress?) -> Bool {
        guard !ranges.isEmpty, let address = peer.flatMap(IPAddress.init) else { return false }
        return trusts(address)
    }

    /// The address a request's per-client limits count: the peer's, unless the peer is a trusted
    /// proxy; then the right-most address of `X-Forwarded-For` (all its lines, in order) that is
    /// not itself a trusted proxy (each proxy appends the address it was connected from, so what
    /// lies left of it may be made up by the client). When the chain holds only trusted proxies,
    /// the left-most of them; when the entry to read is no address (a misconfigured proxy), the peer.
    func client(peer: SocketAddress?, forwardedFor: [String]) -> (key: String, forwarded: Bool) {
        let peerKey = peer.map(ClientAddress.key) ?? "local"
        guard trusts(peer) else { return (peerKey, false) }
        let entries = forwardedFor.flatMap { $0.split(separator: ",") }
        var leftmostTrusted: IPAddress?
        for entry in entries.reversed() {
            guard let address = IPAddress(entry.trimmingCharacters(in: .whitespaces)) else { break }
            guard trusts(address) else { return (address.clientKey, true) }
            leftmostTrusted = address
        }
        return leftmostTrusted.map { ($0.clientKey, true) } ?? (peerKey, false)
    }
}
