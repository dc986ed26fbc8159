import Foundation

/// A malformed document, at a byte offset of the stream.
struct XMLSyntaxError: Error {
    var offset: Int
    var message: String
}

/// A streaming, byte-level XML tokenizer: only what `xctrace export` (and hand-edited copies
/// of it) can contain. No DOM and no per-token allocation: names are interned to small ids,
/// attribute values and text stay byte ranges into the buffer until the caller asks for them.
/// Memory is the buffer (a few chunks) plus the largest single token.
///
/// Knows: start/end/self-closing tags, attributes with either quote, the five named
/// entities and numeric character references, comments, `<?...?>`, `<!DOCTYPE>`, CDATA.
/// Checks that end tags match. Several documents in one stream are fine (concatenated exports).
final class XMLTokenizer {
    /// Longest row or token held at once; the same bound as the JSON scanner's.
    static let maxHeldBytes = JSONScanner.maxTokenBytes
    enum Token: Equatable {
        case start(name: UInt16, selfClosing: Bool)
        case end(name: UInt16)
        /// Text or CDATA; read it with `text()`.
        case text
        case endOfInput
    }

    struct Attribute {
        var name: UInt16
        var value: Range<Int>
        var needsDecoding: Bool
    }

    let names = NameTable()
    private let source: ByteChunks
    // `@exclusivity(unchecked)` on the stored properties of the import's per-byte and per-row
    // classes (this tokenizer, XCTraceReader, XCTraceRowBatch, XCTraceAssembler): each instance
    // has one owner thread at a time and no access to a property begins while another is under
    // way, so the runtime's exclusivity checks of class properties only cost. Measured with
    // `tracesvc-bench xctrace --file E --stages --peer-mb 0` on a 199 MB synthetic export
    // (`--mb 200`), release builds with and without the attribute, 5 interleaved runs each in one
    // session (2 shared cores at load 20: CPU time, medians): import CPU 0.79 s without the checks,
    // 1.93 s with them (1.19 s with only the tokenizer's); tokenizer alone 0.25 s against 0.57 s;
    // tokenizer and row reader 0.47 s against 1.44 s.
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var sourceEnded = false
    @exclusivity(unchecked) private var chunk: [UInt8] = []

    /// Absolute stream offset of `buffer[0]`.
    @exclusivity(unchecked) private(set) var bufferOffset = 0
    /// Newlines in the bytes already dropped from the buffer, and where the last line began.
    @exclusivity(unchecked) private var droppedLines = 0
    @exclusivity(unchecked) private var droppedLineStart = 0
    /// The caller may keep bytes from this absolute offset in the buffer (for error locations).
    @exclusivity(unchecked) var keepFrom = Int.max

    /// The current start tag's attributes, valid until the next token: a buffer of the
    /// tokenizer's own, reused for every tag, so that reading them costs no reference counting.
    var attributes: UnsafeBufferPointer<Attribute> { attributeStorage.elements }
    @exclusivity(unchecked) private var attributeStorage = PlainBuffer<Attribute>(capacity: 8)
    @exclusivity(unchecked) private var textRange = 0..<0
    @exclusivity(unchecked) private var textNeedsDecoding = false
    /// Absolute offset where the current token starts.
    @exclusivity(unchecked) private(set) var tokenOffset = 0
    /// The names of the open elements, innermost last: a stack in a buffer of its own, so a tag
    /// costs a store or a count, not an array's copy-on-write check.
    @exclusivity(unchecked) private var openElements = PlainBuffer<UInt16>(capacity: 16)
    @exclusivity(unchecked) private var decoded: [UInt8] = []
    /// The last start tag's name, and for each name the name of the start tag that followed it
    /// last (one slot per possible id, so no bounds to check).
    @exclusivity(unchecked) private var previousName: UInt16 = 0
    private let nameAfter: UnsafeMutablePointer<UInt16> = {
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: Int(UInt16.max) + 1)
        table.initialize(repeating: 0, count: Int(UInt16.max) + 1)
        return table
    }()

    init(source: ByteChunks) {
        self.source = source
        capacity = 1 << 17
        buffer = Self.allocateBuffer(capacity)
    }

    deinit {
        buffer.deallocate()
        attributeStorage.deallocate()
        openElements.deallocate()
        nameAfter.deallocate()
    }

    /// `NameTable.padding` zero bytes past the end: names are read eight bytes at a time.
    private static func allocateBuffer(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + NameTable.padding)
        buffer.initialize(repeating: 0, count: capacity + NameTable.padding)
        return buffer
    }

    var depth: Int { openElements.count }

    @inline(__always) private var innermost: UInt16? {
        openElements.count > 0 ? openElements.base[openElements.count - 1] : nil
    }

    /// Total bytes consumed so far.
    var consumedBytes: Int { bufferOffset + position }

    // MARK: Tokens

    func next() throws -> Token {
        while true {
            if let token = try scan() { return token }
            if sourceEnded {
                if position < count {
                    throw XMLSyntaxError(offset: bufferOffset + position, message: "the document ends inside a tag or comment")
                }
                if let open = innermost {
                    throw XMLSyntaxError(offset: bufferOffset + position, message: "the document ends before </\(names.name(open))>")
                }
                return .endOfInput
            }
            try refill()
        }
    }

    /// One token at `position`, or nil when the buffer holds only part of it (skipped
    /// constructs loop here).
    private func scan() throws -> Token? {
        while true {
            guard position < count else { return nil }
            let start = position
            tokenOffset = bufferOffset + start
            if buffer[start] != UInt8(ascii: "<") {
                // One pass finds the end of the text and notes an '&' on the way (rare: then the rest by memchr).
                var lt = ByteScan.first(UInt8(ascii: "<"), UInt8(ascii: "&"), in: buffer, from: start, to: count)
                let needsDecoding = lt < count && buffer[lt] == UInt8(ascii: "&")
                if needsDecoding { lt = find(UInt8(ascii: "<"), from: lt + 1) ?? count }
                guard lt < count else {
                    // Trailing text at the very end (usually a newline) is a token of its own.
                    if sourceEnded { return finishText(start, count, needsDecoding: needsDecoding) }
                    return nil
                }
                return finishText(start, lt, needsDecoding: needsDecoding)
            }
            guard start + 1 < count else { return nil }
            switch buffer[start + 1] {
            case UInt8(ascii: "/"):
                // Nearly every end tag is the open element's name and '>': checked in place.
                if let open = innermost {
                    let gtAt = start + 2 + names.length(open)
                    if gtAt < count, buffer[gtAt] == UInt8(ascii: ">"), names.matches(open, padded: buffer + start + 2, gtAt - start - 2) {
                        openElements.count -= 1
                        position = gtAt + 1
                        return .end(name: open)
                    }
                }
                guard let gt = find(UInt8(ascii: ">"), from: start + 2) else { return nil }
                var nameEnd = start + 2
                while nameEnd < gt, !isSpace(buffer[nameEnd]) { nameEnd += 1 }
                // Nearly every end tag closes the open element: comparing with its name skips interning.
                if let open = innermost, names.matches(open, buffer + start + 2, nameEnd - start - 2) {
                    openElements.count -= 1
                    position = gt + 1
                    return .end(name: open)
                }
                let name = try internName(buffer + start + 2, nameEnd - start - 2)
                guard let open = innermost else {
                    throw XMLSyntaxError(offset: tokenOffset, message: "</\(names.name(name))> closes nothing")
                }
                openElements.count -= 1
                guard open == name else {
                    throw XMLSyntaxError(offset: tokenOffset, message: "expected </\(names.name(open))> but found </\(names.name(name))>")
                }
                position = gt + 1
                return .end(name: name)
            case UInt8(ascii: "?"):
                guard let end = find("?>", from: start + 2) else { return nil }
                position = end + 2
            case UInt8(ascii: "!"):
                if hasPrefix("<!--", at: start) {
                    guard let end = find("-->", from: start + 4) else { return nil }
                    position = end + 3
                } else if hasPrefix("<![CDATA[", at: start) {
                    guard let end = find("]]>", from: start + 9) else { return nil }
                    position = end + 3
                    return finishText(start + 9, end, needsDecoding: false, advance: false)
                } else if start + 9 > count {
                    return nil
                } else if hasPrefix("<!DOCTYPE", at: start) {
                    // An internal subset ends with "]>"; xctrace never writes one, but skip it whole.
                    let bracket = find(UInt8(ascii: "["), from: start)
                    let gt = find(UInt8(ascii: ">"), from: start)
                    guard let gt else { return nil }
                    if let bracket, bracket < gt {
                        guard let end = find("]>", from: bracket) else { return nil }
                        position = end + 2
                    } else {
                        position = gt + 1
                    }
                } else {
                    throw XMLSyntaxError(offset: tokenOffset, message: "unsupported markup declaration")
                }
            default:
                return try scanStartTag(start)
            }
        }
    }

    private func finishText(_ start: Int, _ end: Int, needsDecoding: Bool, advance: Bool = true) -> Token {
        textRange = start..<end
        textNeedsDecoding = needsDecoding
        if advance { position = end }
        return .text
    }

    private func internName(_ start: UnsafeMutablePointer<UInt8>, _ length: Int) throws -> UInt16 {
        guard let name = names.intern(start, length, padded: true) else {
            throw XMLSyntaxError(offset: tokenOffset, message: "more than 65535 distinct element and attribute names")
        }
        return name
    }

    private func scanStartTag(_ start: Int) throws -> Token? {
        let bytes = buffer
        let end = count
        var p = start + 1
        let nameStart = p
        // Rows repeat their columns: the name that followed the previous start tag's name last
        // time is checked in place first, and when it is right (most tags) there is no scan
        // for the name's end and no lookup in the name table.
        let guess = nameAfter[Int(previousName)]
        let guessEnd = nameStart &+ names.length(guess)
        let name: UInt16
        if guessEnd < end, Self.endsName(bytes[guessEnd]), names.matches(guess, padded: bytes + nameStart, guessEnd &- nameStart) {
            name = guess
            p = guessEnd
        } else {
            p = ByteScan.nameEnd(UInt8(ascii: "/"), in: bytes, from: p, to: end)
            guard p < end else { return nil }
            guard p > nameStart else { throw XMLSyntaxError(offset: tokenOffset, message: "a tag without a name") }
            name = try internName(bytes + nameStart, p - nameStart)
            nameAfter[Int(previousName)] = name
        }
        previousName = name
        attributeStorage.count = 0
        while true {
            while p < end, isSpace(bytes[p]) { p += 1 }
            guard p < end else { return nil }
            let c = bytes[p]
            if c == UInt8(ascii: ">") {
                position = p + 1
                openElements.append(name)
                return .start(name: name, selfClosing: false)
            }
            if c == UInt8(ascii: "/") {
                guard p + 1 < end else { return nil }
                guard bytes[p + 1] == UInt8(ascii: ">") else {
                    throw XMLSyntaxError(offset: bufferOffset + p, message: "expected '>' after '/' in <\(names.name(name))>")
                }
                position = p + 2
                return .start(name: name, selfClosing: true)
            }
            let attributeName: UInt16
            let row = Self.rowAttribute(at: bytes + p)
            if row.length > 0, p &+ row.length < end {
                attributeName = row.name
                p &+= row.length
            } else {
                let attributeStart = p
                p = ByteScan.nameEnd(UInt8(ascii: "="), in: bytes, from: p, to: end)
                guard p < end else { return nil }
                attributeName = try internName(bytes + attributeStart, p - attributeStart)
                while p < end, isSpace(bytes[p]) { p += 1 }
                guard p < end else { return nil }
                guard bytes[p] == UInt8(ascii: "=") else {
                    throw XMLSyntaxError(offset: bufferOffset + p, message: "attribute \(names.name(attributeName)) of <\(names.name(name))> has no value")
                }
                p += 1
                while p < end, isSpace(bytes[p]) { p += 1 }
                guard p < end else { return nil }
            }
            let quote = bytes[p]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw XMLSyntaxError(offset: bufferOffset + p, message: "attribute \(names.name(attributeName)) of <\(names.name(name))> is not quoted")
            }
            // Values are short: one pass finds the closing quote and notes any '&' on the way.
            var close = ByteScan.first(quote, UInt8(ascii: "&"), in: bytes, from: p + 1, to: end)
            let needsDecoding = close < end && bytes[close] == UInt8(ascii: "&")
            if needsDecoding { close = ByteScan.first(quote, quote, in: bytes, from: close + 1, to: end) }
            guard close < end else { return nil }
            attributeStorage.append(Attribute(name: attributeName, value: (p + 1)..<close, needsDecoding: needsDecoding))
            p = close + 1
        }
    }


    /// `id=`, `fmt=` or `ref=` at `start` (nearly every attribute of a row), told by one
    /// four-byte load without scanning for the name's end or looking it up in the name table:
    /// its id and length with the '=', or length 0. Reads four bytes: the caller's buffer is
    /// readable that far, and a match counts only when it ends before the buffer's end.
    @inline(__always) private static func rowAttribute(at start: UnsafePointer<UInt8>) -> (name: UInt16, length: Int) {
        #if _endian(little)
        let word = UnsafeRawPointer(start).loadUnaligned(as: UInt32.self)
        if word & 0x00FF_FFFF == 0x003D_6469 { return (XMLName.id.rawValue, 3) }   // "id="
        if word == 0x3D74_6D66 { return (XMLName.fmt.rawValue, 4) }                // "fmt="
        if word == 0x3D66_6572 { return (XMLName.ref.rawValue, 4) }                // "ref="
        #endif
        return (0, 0)
    }

    // MARK: Values of the current token

    func attribute(_ name: UInt16) -> Attribute? {
        attributes.first { $0.name == name }
    }

    func string(_ attribute: Attribute) throws -> String {
        try string(attribute.value, decode: attribute.needsDecoding)
    }

    /// The integer value of an attribute written as plain decimal digits, else nil.
    func integer(_ attribute: Attribute) -> Int64? {
        parseInteger(attribute.value)
    }

    var textIsWhitespace: Bool {
        for i in textRange where !isSpace(buffer[i]) { return false }
        return true
    }

    func text() throws -> String { try string(textRange, decode: textNeedsDecoding) }

    /// Appends the current text token, decoded, to `bytes`.
    func appendText(to bytes: inout [UInt8]) throws {
        if textNeedsDecoding {
            try decode(textRange, into: &bytes)
        } else {
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer + textRange.lowerBound, count: textRange.count))
        }
    }

    /// Where the current text token starts in the stream (absolute offset) and its length,
    /// when it needs no decoding (its bytes are then its text); nil otherwise.
    var rawTextInStream: (start: Int, count: Int)? {
        textNeedsDecoding ? nil : (bufferOffset + textRange.lowerBound, textRange.count)
    }

    /// Where an attribute's raw value starts in the stream (absolute offset).
    func streamOffset(of attribute: Attribute) -> Int { bufferOffset + attribute.value.lowerBound }

    /// The bytes at absolute stream offset `start`: valid until the next token, and only for
    /// bytes the buffer still holds (those of the current token, or from `keepFrom` on).
    func keptBytes(at start: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
        precondition(start >= bufferOffset && start - bufferOffset + count <= self.count, "bytes no longer in the buffer")
        return UnsafeBufferPointer(start: buffer + (start - bufferOffset), count: count)
    }

    /// Appends an attribute's value, decoded, to `bytes`.
    func appendValue(of attribute: Attribute, to bytes: inout [UInt8]) throws {
        if attribute.needsDecoding {
            try decode(attribute.value, into: &bytes)
        } else {
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer + attribute.value.lowerBound, count: attribute.value.count))
        }
    }

    private func string(_ range: Range<Int>, decode: Bool) throws -> String {
        if !decode {
            return String(decoding: UnsafeBufferPointer(start: buffer + range.lowerBound, count: range.count), as: UTF8.self)
        }
        decoded.removeAll(keepingCapacity: true)
        try self.decode(range, into: &decoded)
        return String(decoding: decoded, as: UTF8.self)
    }

    private func parseInteger(_ range: Range<Int>) -> Int64? {
        parseCanonicalInteger(padded: UnsafeBufferPointer(start: buffer + range.lowerBound, count: range.count))
    }

    private func decode(_ range: Range<Int>, into out: inout [UInt8]) throws {
        var i = range.lowerBound
        while i < range.upperBound {
            let c = buffer[i]
            guard c == UInt8(ascii: "&") else {
                out.append(c)
                i += 1
                continue
            }
            guard let semicolon = find(UInt8(ascii: ";"), from: i + 1, before: min(range.upperBound, i + 12)) else {
                throw XMLSyntaxError(offset: bufferOffset + i, message: "'&' that starts no entity (write &amp;)")
            }
            let entity = UnsafeBufferPointer(start: buffer + i + 1, count: semicolon - i - 1)
            func isEntity(_ name: StaticString) -> Bool {
                entity.count == name.utf8CodeUnitCount && memcmp(entity.baseAddress!, name.utf8Start, entity.count) == 0
            }
            if isEntity("amp") {
                out.append(UInt8(ascii: "&"))
            } else if isEntity("lt") {
                out.append(UInt8(ascii: "<"))
            } else if isEntity("gt") {
                out.append(UInt8(ascii: ">"))
            } else if isEntity("quot") {
                out.append(UInt8(ascii: "\""))
            } else if isEntity("apos") {
                out.append(UInt8(ascii: "'"))
            } else {
                guard entity.first == UInt8(ascii: "#"),
                      let scalar = Self.characterReference(entity.dropFirst()),
                      let unicode = Unicode.Scalar(scalar)
                else {
                    let text = String(decoding: entity, as: UTF8.self)
                    throw XMLSyntaxError(offset: bufferOffset + i, message: "unknown entity &\(text);")
                }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
            }
            i = semicolon + 1
        }
    }

    private static func characterReference(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt32? {
        var rest = digits[...]
        var radix: UInt32 = 10
        if rest.first == UInt8(ascii: "x") || rest.first == UInt8(ascii: "X") {
            radix = 16
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        var value: UInt32 = 0
        for c in rest {
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * radix + digit
            if value > 0x10FFFF { return nil }
        }
        return value
    }

    // MARK: Locations

    /// 1-based line and byte column of an absolute offset that is still in the buffer (or
    /// at its start); offsets already dropped report the first line still held.
    func location(ofOffset offset: Int) -> (line: Int, column: Int) {
        let target = min(max(offset - bufferOffset, 0), count)
        var line = droppedLines + 1
        var lineStart = droppedLineStart
        for i in 0..<target where buffer[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = bufferOffset + i + 1
        }
        return (line, bufferOffset + target - lineStart + 1)
    }

    // MARK: Buffer

    private func refill() throws {
        // Drop what the caller no longer needs, counting its lines for later error locations.
        let keep = min(position, max(0, keepFrom - bufferOffset))
        if keep > 0 {
            var from = 0
            while let newline = find(UInt8(ascii: "\n"), from: from, before: keep) {
                droppedLines += 1
                droppedLineStart = bufferOffset + newline + 1
                from = newline + 1
            }
            (buffer).update(from: buffer + keep, count: count - keep)
            count -= keep
            position -= keep
            bufferOffset += keep
        }
        // What is held is one row (kept for error locations) or one token: real ones are small.
        if count > Self.maxHeldBytes {
            throw XMLSyntaxError(offset: bufferOffset, message: "a single row or tag is longer than \(Self.maxHeldBytes >> 20) MB")
        }
        guard try source.next(&chunk) else {
            sourceEnded = true
            return
        }
        if count + chunk.count > capacity {
            let newCapacity = max(capacity * 2, count + chunk.count)
            let grown = Self.allocateBuffer(newCapacity)
            grown.update(from: buffer, count: count)
            buffer.deallocate()
            buffer = grown
            capacity = newCapacity
        }
        chunk.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            (buffer + count).update(from: base, count: bytes.count)
        }
        count += chunk.count
    }

    /// What `ByteScan.nameEnd(_:in:from:to:)` stops at in a start tag.
    @inline(__always) private static func endsName(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
    }

    @inline(__always) private func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D
    }

    private func find(_ byte: UInt8, from start: Int, before end: Int? = nil) -> Int? {
        let end = end ?? count
        guard start < end, let hit = memchr(buffer + start, Int32(byte), end - start) else { return nil }
        return buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    private func find(_ pattern: StaticString, from start: Int) -> Int? {
        let first = pattern.utf8Start[0]
        let length = pattern.utf8CodeUnitCount
        var i = start
        while i + length <= count {
            if buffer[i] == first, memcmp(buffer + i, pattern.utf8Start, length) == 0 { return i }
            i += 1
        }
        return nil
    }

    private func hasPrefix(_ pattern: StaticString, at start: Int) -> Bool {
        let length = pattern.utf8CodeUnitCount
        return start + length <= count && memcmp(buffer + start, pattern.utf8Start, length) == 0
    }
}

/// Element and attribute names interned to small ids; the ids of the names the importer
/// looks for are fixed, so comparing a name is comparing two integers. Names are kept in one
/// byte arena (no array per name) and found by open addressing; each slot also holds the
/// name's first sixteen bytes, so names up to that length (nearly all of them, "start-time",
/// "typed-array") match without reading the arena.
final class NameTable {
    private struct Slot {
        var id: Int32
        var length: Int32
        var prefix: UInt64
        var prefix2: UInt64
    }

    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var mask: Int
    @exclusivity(unchecked) private var arena: [UInt8] = []
    @exclusivity(unchecked) private var starts: [Int] = [0]
    /// Each name's slot by id (its length and first sixteen bytes), for `matches(_:padded:_:)`.
    @exclusivity(unchecked) private var spellings = PlainBuffer<Slot>(capacity: 64)

    init() {
        mask = 255
        slots = .allocate(capacity: mask + 1)
        slots.initialize(repeating: Slot(id: -1, length: 0, prefix: 0, prefix2: 0), count: mask + 1)
        for name in XMLName.allCases {
            let id = intern(Array(name.spelling.utf8))
            precondition(id == name.rawValue, "XMLName ids must follow declaration order")
        }
    }

    deinit {
        slots.deallocate()
        spellings.deallocate()
    }

    var count: Int { starts.count - 1 }

    func name(_ id: UInt16) -> String {
        String(decoding: arena[starts[Int(id)]..<starts[Int(id) + 1]], as: UTF8.self)
    }

    /// The length in bytes of the name with this id.
    @inline(__always) func length(_ id: UInt16) -> Int { Int(spellings.base[Int(id)].length) }

    /// Whether the name with this id is spelled `bytes`, which have `padding` readable bytes
    /// after them: names up to 16 bytes are compared as two words, without the arena.
    @inline(__always) func matches(_ id: UInt16, padded start: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let spelling = spellings.base[Int(id)]
        guard Int(spelling.length) == length else { return false }
        guard length <= 16 else { return matches(id, start, length) }
        return Self.prefix(start, length, from: 0, padded: true) == spelling.prefix
            && Self.prefix(start, length, from: 8, padded: true) == spelling.prefix2
    }

    /// Whether the name with this id is spelled `bytes`.
    func matches(_ id: UInt16, _ start: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let offset = starts[Int(id)]
        guard starts[Int(id) + 1] - offset == length else { return false }
        return arena.withUnsafeBufferPointer { memcmp($0.baseAddress! + offset, start, length) == 0 }
    }

    func intern(_ bytes: [UInt8]) -> UInt16? {
        bytes.withUnsafeBufferPointer { intern(UnsafeMutablePointer(mutating: $0.baseAddress!), $0.count) }
    }

    /// Readable bytes a caller of `intern(_:_:padded: true)` guarantees past the name.
    static let padding = 16

    /// Bytes `from..<from+8` of the name (zeros past its end).
    @inline(__always) private static func prefix(_ start: UnsafePointer<UInt8>, _ length: Int, from: Int, padded: Bool) -> UInt64 {
        if length >= from + 8 { return UnsafeRawPointer(start + from).loadUnaligned(as: UInt64.self) }
        if length <= from { return 0 }
        #if _endian(little)
        if padded {
            // One load and a mask instead of a memcpy call (the bytes after the name are readable).
            let word = UnsafeRawPointer(start + from).loadUnaligned(as: UInt64.self)
            return word & ((1 << (UInt64(length - from) &* 8)) &- 1)
        }
        #endif
        var key: UInt64 = 0
        if length > from { memcpy(&key, start + from, length - from) }
        return key
    }

    @inline(__always) private static func hash(prefix: UInt64, prefix2: UInt64, length: Int) -> Int {
        let mixed = (prefix ^ (prefix2 &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(length) &* 0x1000_0000_01B3) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 40)
    }

    /// The id of a name, nil when the ids are used up (a malformed or hostile document).
    /// `padded`: at least `padding` bytes after the name may be read.
    func intern(_ start: UnsafeMutablePointer<UInt8>, _ length: Int, padded: Bool = false) -> UInt16? {
        let prefix = Self.prefix(start, length, from: 0, padded: padded)
        let prefix2 = Self.prefix(start, length, from: 8, padded: padded)
        var slot = Self.hash(prefix: prefix, prefix2: prefix2, length: length) & mask
        while true {
            let candidate = slots[slot]
            if candidate.id < 0 { break }
            if candidate.prefix == prefix, candidate.prefix2 == prefix2, Int(candidate.length) == length,
               length <= 16 || matches(UInt16(candidate.id), start, length) {
                return UInt16(candidate.id)
            }
            slot = (slot + 1) & mask
        }
        guard count < Int(UInt16.max) else { return nil }
        let id = Int32(count)
        arena.append(contentsOf: UnsafeBufferPointer(start: start, count: length))
        starts.append(arena.count)
        slots[slot] = Slot(id: id, length: Int32(truncatingIfNeeded: length), prefix: prefix, prefix2: prefix2)
        spellings.append(slots[slot])
        if count * 2 > mask + 1 { grow() }
        return UInt16(id)
    }

    private func grow() {
        let old = slots
        let oldCapacity = mask + 1
        mask = oldCapacity * 2 - 1
        slots = .allocate(capacity: mask + 1)
        slots.initialize(repeating: Slot(id: -1, length: 0, prefix: 0, prefix2: 0), count: mask + 1)
        for i in 0..<oldCapacity where old[i].id >= 0 {
            var slot = Self.hash(prefix: old[i].prefix, prefix2: old[i].prefix2, length: Int(old[i].length)) & mask
            while slots[slot].id >= 0 { slot = (slot + 1) & mask }
            slots[slot] = old[i]
        }
        old.deallocate()
    }
}

/// Names the xctrace reader looks for, interned first so that their ids are their raw values.
enum XMLName: UInt16, CaseIterable {
    case traceQueryResult, node, schema, col, mnemonic, name, row, sentinel, engineeringType
    case id, ref, fmt, path, xpath
    case frame, binary, backtrace, taggedBacktrace, thread, process, pid, tid, typedArray
    // A frame's `<source line="88"><path>…</path></source>` (Instruments 27).
    case source, line
    // Table of contents.
    case traceTOC, device, target, table, osVersion, model, startDate, duration, summary

    var spelling: String { XCTraceVocabulary.spelling(ofCase: "\(self)") }
}

/// `parseCanonicalInteger` of bytes followed by at least eight readable bytes (those of the
/// tokenizer's buffer): up to sixteen digits are checked and converted eight at a time, in a
/// 64-bit word, instead of digit by digit (ids, timestamps and counts are most of a row's bytes).
@inline(__always) func parseCanonicalInteger(padded bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    #if _endian(little)
    let count = bytes.count
    guard count >= 1, count <= 16, let start = bytes.baseAddress, start[0] != UInt8(ascii: "-") else {
        return parseCanonicalInteger(bytes)
    }
    if count > 1, start[0] == UInt8(ascii: "0") { return nil }
    if count <= 8 { return eightDigits(start, count).map { Int64($0) } }
    guard let high = eightDigits(start, count &- 8), let low = eightDigits(start + (count &- 8), 8) else { return nil }
    return Int64(high) &* 100_000_000 &+ Int64(low)
    #else
    return parseCanonicalInteger(bytes)
    #endif
}

/// The value of the `count` (1...8) ASCII digits at `start`, nil unless all are digits. Reads
/// the eight bytes from `start`; the word's bytes are the digits in order (little-endian).
@inline(__always) private func eightDigits(_ start: UnsafePointer<UInt8>, _ count: Int) -> UInt64? {
    let word = UnsafeRawPointer(start).loadUnaligned(as: UInt64.self)
    // The digits to the top of the word (the bytes after them drop out), '0's below them.
    let shift = UInt64(8 &- count) &* 8
    let zeros: UInt64 = 0x3030_3030_3030_3030
    let digits = shift == 0 ? word : (word &<< shift) | (zeros &>> (64 &- shift))
    // Every byte 0x30...0x3F, and still below 0x40 plus six: '0'...'9'.
    guard digits & 0xF0F0_F0F0_F0F0_F0F0 == zeros,
          (digits &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == zeros else { return nil }
    // Pairs, then fours, then all eight (the fast_float conversion).
    var value = digits &- zeros
    value = value &* 10 &+ (value &>> 8)
    value = ((value & 0x0000_00FF_0000_00FF) &* 0x000F_4240_0000_0064
        &+ ((value &>> 16) & 0x0000_00FF_0000_00FF) &* 0x0000_2710_0000_0001) &>> 32
    return value & 0xFFFF_FFFF
}

/// The value of decimal digits written the way a number prints ("0", "-12", not "007" or
/// "+1"), so that printing it gives back the same text; nil otherwise.
func parseCanonicalInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    var i = 0
    let negative = bytes.first == UInt8(ascii: "-")
    if negative { i = 1 }
    let digits = bytes.count - i
    guard digits > 0, digits <= 19 else { return nil }
    if digits > 1, bytes[i] == UInt8(ascii: "0") { return nil }
    if negative, digits == 1, bytes[i] == UInt8(ascii: "0") { return nil }
    var value: Int64 = 0
    if digits <= 18 {
        // Eighteen digits cannot overflow: no checks per digit (timestamps have ten).
        while i < bytes.count {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            i += 1
        }
        return negative ? -value : value
    }
    while i < bytes.count {
        let digit = bytes[i] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (times10, o1) = value.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(Int64(digit))
        if o1 || o2 { return nil }
        value = sum
        i += 1
    }
    return negative ? -value : value
}
