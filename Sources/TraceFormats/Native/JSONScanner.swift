import Foundation
import TraceModel

/// Pulls JSON tokens out of a `ByteSource` one chunk at a time. The bytes live in one buffer
/// that is refilled at token boundaries (the partial token is kept), so memory stays at about
/// one chunk whatever the file size. Errors carry the byte offset of the offending token.
struct JSONScanner: ~Copyable {
    private let source: ByteSource
    private var chunk: [UInt8] = []
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Position of the next unread byte in `base`.
    private var pos = 0
    private var end = 0
    /// File offset of `base[0]`.
    private var baseOffset = 0
    private var sourceEnded = false
    private var interner = StringInterner()
    /// Decoded bytes of the last string that had escapes.
    private var unescaped = PlainBuffer<UInt8>(capacity: 256)

    init(source: ByteSource) {
        self.source = source
        capacity = 1 << 20
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
        unescaped.deallocate()
    }

    static let maxTokenBytes = 64 << 20

    /// File offset of the next unread byte.
    var offset: Int { baseOffset + pos }

    // MARK: Buffer

    /// Appends the next chunk, first moving `base[keep..<end]` to the front (so a token that
    /// started at `keep` stays whole). False when the source has no more bytes.
    private mutating func refill(keeping keep: Int) throws(OffsetError) -> Bool {
        if sourceEnded { return false }
        let kept = end - keep
        // Only a single token is kept across refills; one this long is not a trace value and
        // would make memory grow with the file.
        if kept > Self.maxTokenBytes {
            throw OffsetError(offset: baseOffset + keep, message: "a single value is longer than \(Self.maxTokenBytes >> 20) MB")
        }
        if keep > 0 {
            base.update(from: base + keep, count: kept)
            baseOffset += keep
            pos -= keep
            end = kept
        }
        chunk.removeAll(keepingCapacity: true)
        let more: Bool
        do {
            more = try source.read(into: &chunk)
        } catch {
            throw OffsetError(offset: offset, message: error.message)
        }
        guard more else {
            sourceEnded = true
            return false
        }
        if end + chunk.count > capacity {
            let newCapacity = max(capacity * 2, end + chunk.count)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: base, count: end)
            base.deallocate()
            base = grown
            capacity = newCapacity
        }
        chunk.withUnsafeBufferPointer { (base + end).update(from: $0.baseAddress!, count: $0.count) }
        end += chunk.count
        return true
    }

    /// The next non-whitespace byte, not consumed; nil at the end of the input.
    @inline(__always)
    mutating func peek() throws(OffsetError) -> UInt8? {
        while true {
            while pos < end {
                let byte = base[pos]
                // Space, tab, newline, carriage return.
                if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                    pos += 1
                } else {
                    return byte
                }
            }
            if try !refill(keeping: pos) { return nil }
        }
    }

    func error(_ message: String, field: String? = nil) -> OffsetError {
        OffsetError(offset: offset, message: message, field: field)
    }

    /// What the next token looks like, for error messages: `found "abc"`, `found the end of the file`.
    mutating func describeNext() -> String {
        guard let byte = try? peek() else { return "the end of the file (is it truncated?)" }
        switch byte {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "]"): return "']'"
        case UInt8(ascii: "}"): return "'}'"
        case UInt8(ascii: ","): return "','"
        case UInt8(ascii: ":"): return "':'"
        case UInt8(ascii: "\""):
            // Read the string for the message, then step back so the error points at its start.
            let start = offset
            var text = (try? readString()) ?? ""
            pos = start - baseOffset
            if text.count > 40 { text = String(text.prefix(40)) + "…" }
            return "the string \"\(text)\""
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        default:
            return byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII character"
        }
    }

    // MARK: Punctuation

    /// Consumes `byte` (after whitespace) or fails with "expected <what>".
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String, field: String? = nil) throws(OffsetError) {
        if try peek() == byte {
            pos += 1
            return
        }
        let found = describeNext()
        throw error("expected \(what()), found \(found)", field: field)
    }

    /// Consumes `byte` if it comes next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) throws(OffsetError) -> Bool {
        if try peek() == byte {
            pos += 1
            return true
        }
        return false
    }

    /// After an element of an array (or a member of an object): true and the comma consumed
    /// when another follows, false and `closing` consumed at the end.
    @inline(__always)
    mutating func nextElement(closing: UInt8 = UInt8(ascii: "]")) throws(OffsetError) -> Bool {
        let byte = try peek()
        if byte == UInt8(ascii: ",") {
            pos += 1
            return true
        }
        if byte == closing {
            pos += 1
            return false
        }
        let found = describeNext()
        throw error("expected ',' or '\(Character(Unicode.Scalar(closing)))', found \(found)")
    }

    // MARK: Literals

    /// A JSON integer (no fraction or exponent) that fits in Int64.
    @inline(__always)
    mutating func readInt64(field: String? = nil) throws(OffsetError) -> Int64 {
        guard let first = try peek() else { throw error("expected an integer, found the end of the file", field: field) }
        if first != UInt8(ascii: "-") && (first < UInt8(ascii: "0") || first > UInt8(ascii: "9")) {
            let found = describeNext()
            throw error("expected an integer, found \(found)", field: field)
        }
        while true {
            var p = pos
            let negative = base[p] == UInt8(ascii: "-")
            if negative { p += 1 }
            let digitsStart = p
            var magnitude: UInt64 = 0
            var overflow = false
            while p < end {
                let digit = base[p] &- UInt8(ascii: "0")
                if digit > 9 { break }
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
                overflow = overflow || o1 || o2
                magnitude = sum
                p += 1
            }
            if p == end, try refill(keeping: pos) { continue }
            if p == digitsStart { throw error("expected an integer, found '-'", field: field) }
            if p < end, base[p] == UInt8(ascii: ".") || base[p] == UInt8(ascii: "e") || base[p] == UInt8(ascii: "E") {
                throw error("expected an integer, found a number with a fraction or exponent", field: field)
            }
            let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
            if overflow || magnitude > limit { throw error("integer is out of range", field: field) }
            pos = p
            return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
        }
    }

    /// A JSON number of any form.
    mutating func readDouble(field: String? = nil) throws(OffsetError) -> Double {
        guard let first = try peek(), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            let found = describeNext()
            throw error("expected a number, found \(found)", field: field)
        }
        while true {
            var p = pos
            while p < end, Self.isNumberByte(base[p]) { p += 1 }
            if p == end, try refill(keeping: pos) { continue }
            let text = String(decoding: UnsafeBufferPointer(start: base + pos, count: p - pos), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw error("\"\(text)\" is not a valid number", field: field) }
            pos = p
            return value
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): true
        default: false
        }
    }

    mutating func readBool(field: String? = nil) throws(OffsetError) -> Bool {
        if try readKeyword("true") { return true }
        if try readKeyword("false") { return false }
        let found = describeNext()
        throw error("expected true or false, found \(found)", field: field)
    }

    /// Consumes `null` if it comes next.
    mutating func readNull() throws(OffsetError) -> Bool {
        try readKeyword("null")
    }

    private mutating func readKeyword(_ word: StaticString) throws(OffsetError) -> Bool {
        guard try peek() == word.utf8Start[0] else { return false }
        let count = word.utf8CodeUnitCount
        while end - pos < count + 1, try refill(keeping: pos) {}
        guard end - pos >= count, memcmp(base + pos, word.utf8Start, count) == 0 else { return false }
        if end - pos > count, Self.isWordByte(base[pos + count]) { return false }
        pos += count
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    // MARK: Strings

    /// The decoded UTF-8 bytes of the next string (escapes resolved), valid until the scanner
    /// is used again.
    @inline(__always)
    mutating func readStringBytes(field: String? = nil) throws(OffsetError) -> UnsafeBufferPointer<UInt8> {
        guard try peek() == UInt8(ascii: "\"") else {
            let found = describeNext()
            throw error("expected a string, found \(found)", field: field)
        }
        while true {
            var p = pos + 1
            var hasEscape = false
            while p < end {
                let byte = base[p]
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\") {
                    hasEscape = true
                    p += 2
                    continue
                }
                if byte < 0x20 {
                    pos = p
                    throw error("control character in a string (write \\n for a newline)", field: field)
                }
                p += 1
            }
            if p >= end {
                if try refill(keeping: pos) { continue }
                throw error("unterminated string: the file ends inside it", field: field)
            }
            let contentStart = pos + 1
            pos = p + 1
            if !hasEscape {
                return UnsafeBufferPointer(start: base + contentStart, count: p - contentStart)
            }
            try unescape(from: contentStart, to: p, field: field)
            return unescaped.elements
        }
    }

    /// Decodes `base[from..<to]` (a string's content with escapes) into `unescaped`.
    private mutating func unescape(from: Int, to: Int, field: String?) throws(OffsetError) {
        unescaped.count = 0
        var p = from
        func fail(_ message: String, at position: Int) -> OffsetError {
            OffsetError(offset: baseOffset + position, message: message, field: field)
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= to else { return nil }
            var value: UInt32 = 0
            for i in 0..<4 {
                let byte = base[at + i]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while p < to {
            let byte = base[p]
            guard byte == UInt8(ascii: "\\") else {
                unescaped.append(byte)
                p += 1
                continue
            }
            let escape = base[p + 1]
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(p + 2) else { throw fail("\\u must be followed by four hex digits", at: p) }
                p += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard p + 3 < to, base[p + 2] == UInt8(ascii: "\\"), base[p + 3] == UInt8(ascii: "u"), let low = hex4(p + 4), (0xDC00..<0xE000).contains(low) else {
                        throw fail("unpaired UTF-16 surrogate in \\u escape", at: p - 4)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    p += 6
                }
                guard let value = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", at: p - 4) }
                for byte in String(Character(value)).utf8 { unescaped.append(byte) }
            default:
                throw fail("invalid escape \\\(Character(Unicode.Scalar(escape)))", at: p)
            }
            p += 2
        }
    }

    mutating func readString(field: String? = nil) throws(OffsetError) -> String {
        let start = offset
        guard let text = String(validating: try readStringBytes(field: field), as: UTF8.self) else {
            throw OffsetError(offset: start, message: "string is not valid UTF-8", field: field)
        }
        return text
    }

    /// The next string, interned in `builder` without making a `String` when it was seen before.
    @inline(__always)
    mutating func readInterned(into builder: inout TraceBuilder, field: String? = nil) throws(OffsetError) -> StringRef {
        let start = offset
        let bytes = try readStringBytes(field: field)
        guard let ref = interner.intern(bytes, into: &builder) else {
            throw OffsetError(offset: start, message: "string is not valid UTF-8", field: field)
        }
        return ref
    }
}

/// Maps the UTF-8 bytes of strings already seen to their `StringRef`, so a name repeated a
/// million times is hashed, not decoded into a `String` each time.
struct StringInterner {
    private var slots: [Int32]
    private var hashes: [UInt64] = []
    private var starts: [Int] = []
    private var lengths: [Int] = []
    private var refs: [StringRef] = []
    private var arena: [UInt8] = []

    init() { slots = [Int32](repeating: -1, count: 1024) }

    /// nil when the bytes are not valid UTF-8.
    mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>, into builder: inout TraceBuilder) -> StringRef? {
        let hash = ByteHash.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash >> 32) & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { break }
            let e = Int(entry)
            if hashes[e] == hash && lengths[e] == bytes.count {
                let same = arena.withUnsafeBufferPointer { arena in
                    bytes.count == 0 || memcmp(arena.baseAddress! + starts[e], bytes.baseAddress!, bytes.count) == 0
                }
                if same { return refs[e] }
            }
            slot = (slot + 1) & mask
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let ref = builder.intern(text)
        slots[slot] = Int32(refs.count)
        hashes.append(hash)
        starts.append(arena.count)
        lengths.append(bytes.count)
        refs.append(ref)
        arena.append(contentsOf: bytes)
        if refs.count * 2 > slots.count { rehash() }
        return ref
    }

    private mutating func rehash() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (entry, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash >> 32) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry)
        }
    }
}
