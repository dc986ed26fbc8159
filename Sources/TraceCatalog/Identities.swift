/// A stored trace's id: 32 lowercase hex digits, the first 128 bits of its content's SHA-256
/// (of that and the run, for another run than the first of a several-run export). Made only by
/// checking, so a value of this type is never an unchecked path or query parameter: the server
/// checks the id once at its edge, before any catalog or cache is asked.
public struct TraceID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let text: String

    /// Nil unless `text` is 32 lowercase hex digits.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == 32, isLowercaseHex(text.utf8) else { return nil }
        self.text = String(text)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = TraceID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text.prefix(40))' is not a trace id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    public var description: String { text }

    public static func < (a: TraceID, b: TraceID) -> Bool { a.text < b.text }
}

/// The key of a blob in the blob store: 64 lowercase hex digits (its content's SHA-256), or `up-`
/// and 32 (a streamed upload's random key, before its hash was known). Nothing that could walk
/// a path, whichever store keeps it.
public struct BlobKey: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    /// Nil unless `text` is a content key or a streamed upload's key.
    public init?(_ text: some StringProtocol) {
        let utf8 = text.utf8
        let valid = utf8.count == 64 ? isLowercaseHex(utf8)
            : utf8.count == 35 && text.hasPrefix(Self.streamedPrefix) && isLowercaseHex(utf8.dropFirst(3))
        guard valid else { return nil }
        self.text = String(text)
    }

    /// The key of the content whose SHA-256 is `sha256` (lowercase hex); nil when it is not one.
    public init?(content sha256: String) {
        guard sha256.utf8.count == 64, let key = BlobKey(sha256) else { return nil }
        self = key
    }

    /// A streamed upload's key from 32 random lowercase hex digits; nil when they are not.
    public init?(streamed random: String) {
        guard random.utf8.count == 32, let key = BlobKey(Self.streamedPrefix + random) else { return nil }
        self = key
    }

    /// Whether the blob holds a streamed upload (a key of its own, not its content's hash).
    public var isStreamed: Bool { text.hasPrefix(Self.streamedPrefix) }

    public var description: String { text }

    private static let streamedPrefix = "up-"
}

private func isLowercaseHex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
    bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
}
