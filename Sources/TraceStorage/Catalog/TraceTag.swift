/// What a trace is: `key:value` (`branch:main`, `commit:4f2c1e9`, `build:412`) or a free label
/// (`nightly`). Given as `tag=key:value` on uploads, lists and histories (`key=value` on the
/// command line), stored and shown as `key:value` text. docs/api.md, "Tags", has the rules.
public struct TraceTag: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let key: String
    /// nil for a label.
    public let value: String?

    public static let maxKeyLength = 32
    public static let maxValueLength = 128
    public static let maxPerTrace = 32
    /// Keys CI scripts are expected to give (any other key is allowed as well).
    public static let knownKeys = ["branch", "commit", "commit-time", "build", "scenario", "device", "os", "app-version"]

    /// The stored and displayed form: `key:value`, or the label alone.
    public var text: String { value.map { "\(key):\($0)" } ?? key }
    public var description: String { text }

    public static func < (lhs: TraceTag, rhs: TraceTag) -> Bool { lhs.text < rhs.text }

    /// Reads `key:value` (or `key=value` with `separator: "="`), or a label without a separator.
    public init(parsing text: String, separator: Character = ":") throws(TagError) {
        guard let split = text.firstIndex(of: separator) else {
            try Self.checkKey(text, in: text)
            key = text
            value = nil
            return
        }
        let key = String(text[..<split]), value = String(text[text.index(after: split)...])
        try Self.checkKey(key, in: text)
        guard !value.isEmpty else { throw TagError(tag: text, reason: "no value after '\(separator)' (a label has no '\(separator)')") }
        guard value.utf8.count <= Self.maxValueLength else { throw TagError(tag: text, reason: "a value has at most \(Self.maxValueLength) characters") }
        guard value.utf8.allSatisfy(Self.isValueByte) else {
            throw TagError(tag: text, reason: "a value has only letters, digits and . _ - / : + @ #")
        }
        self.key = key
        self.value = value
    }

    /// The tags of one trace: each valid, at most `maxPerTrace`, each key once.
    public static func parseAll(_ texts: [String], separator: Character = ":") throws(TagError) -> [TraceTag] {
        var tags: [TraceTag] = []
        var keys: Set<String> = []
        for text in texts {
            let tag = try TraceTag(parsing: text, separator: separator)
            guard keys.insert(tag.key).inserted else { throw TagError(tag: text, reason: "the key '\(tag.key)' is given twice") }
            tags.append(tag)
        }
        guard tags.count <= maxPerTrace else {
            throw TagError(tag: texts[maxPerTrace], reason: "a trace has at most \(maxPerTrace) tags")
        }
        return tags.sorted()
    }

    private static func checkKey(_ key: String, in text: String) throws(TagError) {
        guard !key.isEmpty else { throw TagError(tag: text, reason: "the key is empty") }
        guard key.utf8.count <= maxKeyLength else { throw TagError(tag: text, reason: "a key has at most \(maxKeyLength) characters") }
        let bytes = Array(key.utf8)
        guard isKeyByte(bytes[0]), bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-"), bytes[0] != UInt8(ascii: "_"),
              bytes.allSatisfy(isKeyByte)
        else { throw TagError(tag: text, reason: "a key has only lowercase letters, digits and . _ - (and begins with a letter or digit)") }
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isValueByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("._-/:+@#".utf8).contains(byte)
    }
}

/// A tag that is not one: which, and why (the API's 400 and the CLI's message name it).
public struct TagError: Error, Sendable, Equatable, CustomStringConvertible {
    public var tag: String
    public var reason: String

    public init(tag: String, reason: String) {
        self.tag = tag
        self.reason = reason
    }

    public var description: String { "tag '\(tag.count > 80 ? String(tag.prefix(80)) + "…" : tag)': \(reason)" }
}
