import Foundation

/// A cell value: an index into the value store (`>= 0` kept for the whole `<node>`, negative
/// kept for the current row only), or one of the two markers below.
typealias ValueRef = Int32
/// `<sentinel/>`: an empty cell.
let sentinelValue: ValueRef = .min
/// The row has no cell for this column.
let missingValue: ValueRef = .min + 1

/// One resolved value: its raw text (as a number when it is one), its `fmt` when it has no
/// raw text (threads, processes, typed arrays...), and its child values.
struct StoredValue {
    var number: Int64 = 0
    /// Index into `StringPool`: the raw text, or `fmt` when there is none; -1 for neither.
    var text: Int32 = -1
    /// Index into `StringPool` of `fmt` for values with children; -1 otherwise.
    var fmt: Int32 = -1
    var childStart: UInt32 = 0
    var childCount: UInt32 = 0
    var tag: UInt16 = 0
    var hasNumber = false
}

/// The `name` and `path` attributes of a frame or binary value (pool ids, -1 when absent), and
/// the `line` of a frame's `source` (-1 when absent).
struct ValueAttributes {
    var value: ValueRef
    var name: Int32
    var path: Int32
    var line: Int32 = -1
}

/// Every distinct text of an import, once. Texts arrive as bytes and are looked up by their
/// bytes (hashed in place, compared with memcmp), so a text already seen costs no allocation;
/// only a new byte sequence makes a `String`, and that one is checked against the texts by
/// `String` equality too, so that two spellings Swift calls equal (canonically equivalent
/// Unicode, invalid UTF-8 repaired the same way) still share one id, as they did before.
struct StringPool {
    private(set) var strings: [String] = []
    private var index: [String: Int32] = [:]
    /// Byte sequences seen: where in `arena`, how long, their text's id, their hash.
    private var keys: [ByteKey] = []
    private var arena: [UInt8] = []
    /// Open addressing over `keys` (index + 1, 0 = empty).
    private var table = [Int32](repeating: 0, count: 1024)

    private struct ByteKey {
        var start: Int
        var length: Int32
        var id: Int32
        var hash: UInt64
    }

    mutating func intern(_ text: String) -> Int32 {
        if let id = index[text] { return id }
        let id = Int32(strings.count)
        strings.append(text)
        index[text] = id
        return id
    }

    /// The id of the text these UTF-8 bytes spell.
    mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        let hash = ByteHash.hash(bytes)
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash >> 32) & mask
        let found: Int32? = arena.withUnsafeBufferPointer { arenaBytes in
            table.withUnsafeBufferPointer { table in
                keys.withUnsafeBufferPointer { keys in
                    while true {
                        let entry = table[slot]
                        if entry == 0 { return nil }
                        let key = keys[Int(entry) - 1]
                        if key.hash == hash, Int(key.length) == bytes.count,
                           bytes.count == 0 || memcmp(arenaBytes.baseAddress! + key.start, bytes.baseAddress!, bytes.count) == 0 {
                            return key.id
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
        if let found { return found }
        let id = intern(String(decoding: bytes, as: UTF8.self))
        keys.append(ByteKey(start: arena.count, length: Int32(bytes.count), id: id, hash: hash))
        arena.append(contentsOf: bytes)
        table[slot] = Int32(keys.count)
        if keys.count * 2 > table.count { growTable() }
        return id
    }

    mutating func intern(_ bytes: ArraySlice<UInt8>) -> Int32 {
        bytes.withUnsafeBufferPointer { intern($0) }
    }

    private mutating func growTable() {
        table = [Int32](repeating: 0, count: table.count * 2)
        let mask = table.count - 1
        for (i, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: key.hash >> 32) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = Int32(i + 1)
        }
    }

    subscript(_ id: Int32) -> String { strings[Int(id)] }

    var count: Int { strings.count }
}

struct TableColumn: Equatable {
    var mnemonic: String
    var name: String
    var engineeringType: String
}

struct TableSchema {
    var name: String
    var columns: [TableColumn]
    /// Absolute stream offset of `<schema>`, for errors about the table as a whole.
    var offset: Int
    /// The recording run the `<node xpath='…/run[N]/…'>` says the table is from; nil when it does not say.
    var run: Int? = nil

    func column(_ mnemonic: String) -> Int? { columns.firstIndex { $0.mnemonic == mnemonic } }
}

/// What the table of contents (`xctrace export --toc`) says about the recording.
struct TableOfContents {
    /// `<run number="N">`: a file of several runs has one table of contents per run.
    var run: Int?
    var deviceModel = ""
    var deviceName = ""
    var osVersion = ""
    var platform = ""
    var processName = ""
    var startDate: String?
    var durationSeconds: Double?
    var tables: [String] = []
}

/// A malformed or unexpected value at a byte offset, inside a table.
struct XCTraceValueError: Error {
    var offset: Int
    var table: String?
    var field: String?
    var message: String
}

/// Turns the token stream of one export document (or several concatenated) into resolved rows:
/// `id`/`ref` deduplication per `<node>`, nested values, sentinels, raw text vs `fmt`.
///
/// Values written with an `id` (and everything inside them) are kept until the `<node>` ends,
/// because a later row may refer to them; everything else is dropped after its row. Memory is
/// therefore proportional to the distinct values of a table, not to its size.
final class XCTraceReader {
    let tokenizer: XMLTokenizer
    @exclusivity(unchecked) private(set) var strings = StringPool()
    /// Where values, cells and rows go: the batch being filled, which travels to the assembler
    /// when full. The reader keeps no values itself, only how many the `<node>` and the row have.
    @exclusivity(unchecked) private var pipeline: XCTracePipeline?
    @exclusivity(unchecked) private var batch = XCTraceRowBatch()
    /// The values the current `<node>` keeps, shared with the assembler (which reads them in place).
    @exclusivity(unchecked) private var kept = XCTraceKeptValues()
    @exclusivity(unchecked) private var keptPages: XCTraceKeptValues.Pages
    @exclusivity(unchecked) private var keptCount = 0
    @exclusivity(unchecked) private var keptChildrenCount = 0
    /// Where the current row's cells, values, children and attributes start in `batch`.
    @exclusivity(unchecked) private var rowCellStart = 0
    @exclusivity(unchecked) private var rowValueStart = 0
    @exclusivity(unchecked) private var rowChildStart = 0
    @exclusivity(unchecked) private var rowAttributeStart = 0
    /// Texts and element names already in a batch.
    @exclusivity(unchecked) private var sentStrings = 0
    @exclusivity(unchecked) private var sentNames = 0
    @exclusivity(unchecked) private var valueByID: [ValueRef] = []
    @exclusivity(unchecked) private var valueByTextID: [String: ValueRef] = [:]

    @exclusivity(unchecked) private(set) var schema: TableSchema?
    @exclusivity(unchecked) private var readingRows = false
    /// The open values of the current row, a stack in a buffer of its own: pushing and popping
    /// is a store and a count, with no copy-on-write check and no optional to unwrap.
    @exclusivity(unchecked) private var openValues = PlainBuffer<OpenValue>(capacity: 16)
    @exclusivity(unchecked) private var openTextIDs: [String] = []
    @exclusivity(unchecked) private var pendingChildren: [ValueRef] = []
    @exclusivity(unchecked) private var textBytes: [UInt8] = []
    @exclusivity(unchecked) private var fmtBytes: [UInt8] = []
    @exclusivity(unchecked) private(set) var rowOffset = 0
    @exclusivity(unchecked) private var rowDepth = 0
    @exclusivity(unchecked) private(set) var rowCount = 0
    /// Run of the current `<node>`, from its xpath.
    @exclusivity(unchecked) private var nodeRun: Int?

    /// Plain data (the rare text id lives in `openTextIDs`), so pushing and popping costs no reference counting.
    /// Plain fields only (no optionals), so that the struct stays small and its copies cheap.
    private struct OpenValue {
        var offset: Int
        /// The `id`, when `hasID`.
        var id: Int64
        var textStart: Int
        /// The value's only text so far, when it needed no decoding, stays in the tokenizer's
        /// buffer like `fmtStreamStart`: its absolute offset and length (-1 when none).
        var textStreamStart: Int
        var textStreamLength: Int
        var fmtStart: Int
        /// End of the `fmt` in `fmtBytes`, or its length when `fmtStreamStart >= 0`.
        var fmtEnd: Int
        /// A `fmt` needing no decoding stays in the tokenizer's buffer (the row's bytes are kept
        /// until it ends): its absolute stream offset, or -1 when it was copied to `fmtBytes`.
        var fmtStreamStart: Int
        var childrenStart: Int
        /// A `ref` element (when `hasTarget`): stands for this value, its content (there should be none) is ignored.
        var target: ValueRef
        /// Index into `openTextIDs`, or -1.
        var textID: Int32
        var name: Int32
        var path: Int32
        var line: Int32
        var tag: UInt16
        var hasID: Bool
        var hasTarget: Bool
        var keep: Bool
        var hasFmt: Bool
    }

    init(source: ByteChunks) {
        tokenizer = XMLTokenizer(source: source)
        keptPages = kept.pages
    }

    deinit {
        openValues.deallocate()
    }

    // MARK: The document

    /// Reads the document to its end into batches for `pipeline`; the last one goes when it ends.
    func run(_ document: XCTraceDocument, into pipeline: XCTracePipeline) throws {
        self.pipeline = pipeline
        defer { self.pipeline = nil }
        batch.events.append(.document(document, kept))
        do {
            try readDocument()
        } catch let error where !(error is HandoffStopped) {
            // The rows read before the error go first: an error in one of them is reported
            // first, as reading in one pass would.
            _ = try? send()
            throw error
        }
        try send()
    }

    /// Hands the batch over (waiting while the assembler is `depth` batches behind).
    private func send() throws {
        batch = try pipeline!.send(batch)
    }

    /// Whether the assembler reads the table: asked and waited for (a few times per file).
    private func beginTable(_ schema: TableSchema) throws -> Bool {
        batch.events.append(.beginTable(schema))
        try send()
        return try pipeline!.tableAnswer()
    }

    private func readDocument() throws {
        var column: TableColumn?
        var capture: UInt16?
        var captured: [UInt8] = []
        var skippingRows = false
        var toc: TableOfContents?
        var inTOCTarget = false
        var sawRoot = false

        while true {
            let token = try tokenizer.next()
            if readingRows {
                try readRowToken(token, skipping: skippingRows)
                continue
            }
            switch token {
            case .endOfInput:
                return
            case .text:
                if capture != nil { try tokenizer.appendText(to: &captured) }
            case let .start(name, selfClosing):
                if !sawRoot {
                    // Any well-formed XML (an HTML page, a plist) would otherwise pass as an empty trace.
                    guard name == XMLName.traceQueryResult.rawValue || name == XMLName.traceTOC.rawValue else {
                        throw XCTraceValueError(
                            offset: tokenizer.tokenOffset,
                            message: "not an xctrace export: the document is <\(tokenizer.names.name(name))>, where `xctrace export` writes <trace-query-result> or <trace-toc>"
                        )
                    }
                    sawRoot = true
                }
                switch XMLName(rawValue: name) {
                case .node:
                    beginNode()
                    batch.events.append(.node(kept))
                    nodeRun = try tokenizer.attribute(XMLName.xpath.rawValue).map(tokenizer.string).flatMap(Self.run(inXPath:))
                case .schema:
                    let tableName = try tokenizer.attribute(XMLName.name.rawValue).map(tokenizer.string) ?? ""
                    schema = TableSchema(name: tableName, columns: [], offset: tokenizer.tokenOffset, run: nodeRun)
                    if selfClosing { skippingRows = try !beginTable(schema!) }
                case .col:
                    column = TableColumn(mnemonic: "", name: "", engineeringType: "")
                case .mnemonic, .name, .engineeringType, .startDate, .duration:
                    if column != nil || toc != nil {
                        capture = name
                        captured.removeAll(keepingCapacity: true)
                    }
                case .row:
                    if schema == nil {
                        throw XCTraceValueError(
                            offset: tokenizer.tokenOffset,
                            message: "<row> before any <schema> in this <node>: this looks like a track-detail export (Allocations, Leaks, VM Tracker), which is not a table tracesvc reads; export the SwiftUI tables with scripts/export-instruments-trace.sh"
                        )
                    }
                    if selfClosing {
                        if !skippingRows {
                            markRowStart()
                            try endRow(at: rowOffset)
                        }
                    } else {
                        beginRow()
                    }
                case .traceTOC:
                    toc = TableOfContents()
                case .target:
                    inTOCTarget = !selfClosing
                case .device where toc != nil:
                    toc!.deviceModel = try tokenizer.attribute(XMLName.model.rawValue).map(tokenizer.string) ?? ""
                    toc!.deviceName = try tokenizer.attribute(XMLName.name.rawValue).map(tokenizer.string) ?? ""
                    toc!.osVersion = try tokenizer.attribute(XMLName.osVersion.rawValue).map(tokenizer.string) ?? ""
                    if let platform = tokenizer.attributes.first(where: { tokenizer.names.name($0.name) == "platform" }) {
                        toc!.platform = try tokenizer.string(platform)
                    }
                case .process where toc != nil && inTOCTarget && toc!.processName.isEmpty:
                    toc!.processName = try tokenizer.attribute(XMLName.name.rawValue).map(tokenizer.string) ?? ""
                case .none where toc != nil && tokenizer.names.name(name) == "run":
                    // Each <run> of a recording has its own target and summary: one table of contents each.
                    if toc!.run != nil {
                        batch.events.append(.tableOfContents(toc!))
                        toc = TableOfContents()
                    }
                    let number = tokenizer.attributes.first { tokenizer.names.name($0.name) == "number" }
                    toc!.run = try number.map(tokenizer.string).flatMap { Int($0) } ?? 1
                case .table where toc != nil:
                    if let schemaName = tokenizer.attributes.first(where: { tokenizer.names.name($0.name) == "schema" }) {
                        toc!.tables.append(try tokenizer.string(schemaName))
                    }
                default:
                    break
                }
            case let .end(name):
                switch XMLName(rawValue: name) {
                case .mnemonic, .name, .engineeringType:
                    if capture == name, column != nil {
                        let text = String(decoding: captured, as: UTF8.self)
                        switch XMLName(rawValue: name) {
                        case .mnemonic: column!.mnemonic = text
                        case .name: column!.name = text
                        default: column!.engineeringType = text
                        }
                    }
                    capture = nil
                case .startDate, .duration:
                    if capture == name, toc != nil {
                        let text = String(decoding: captured, as: UTF8.self).trimmingSpaces
                        if name == XMLName.startDate.rawValue { toc!.startDate = text } else { toc!.durationSeconds = Double(text) }
                    }
                    capture = nil
                case .col:
                    if let column { schema?.columns.append(column) }
                    column = nil
                case .schema:
                    if let schema { skippingRows = try !beginTable(schema) }
                case .node:
                    if schema != nil, !skippingRows { batch.events.append(.endTable) }
                    schema = nil
                    skippingRows = false
                    beginNode()
                    batch.events.append(.node(kept))
                case .target:
                    inTOCTarget = false
                case .traceTOC:
                    if let toc { batch.events.append(.tableOfContents(toc)) }
                    toc = nil
                default:
                    break
                }
            }
        }
    }

    /// "//trace-toc[1]/run[2]/data[1]/table[35]" -> 2.
    static func run(inXPath xpath: String) -> Int? {
        guard let open = xpath.range(of: "/run[") else { return nil }
        return Int(xpath[open.upperBound...].prefix { $0 != "]" })
    }

    private func beginNode() {
        nodeRun = nil
        kept = XCTraceKeptValues()
        keptPages = kept.pages
        keptCount = 0
        keptChildrenCount = 0
        valueByID.removeAll(keepingCapacity: false)
        valueByTextID.removeAll(keepingCapacity: false)
        rowCount = 0
    }

    private func beginRow() {
        markRowStart()
        readingRows = true
        rowDepth = tokenizer.depth
        // Keep the row's bytes in the buffer so that errors found at its end can say where.
        tokenizer.keepFrom = rowOffset
    }

    /// Where the row at the current token starts: in the stream, and in the batch's lists.
    private func markRowStart() {
        rowCellStart = batch.cells.count
        rowValueStart = batch.rowValues.count
        rowChildStart = batch.rowChildren.count
        rowAttributeStart = batch.rowAttributes.count
        rowOffset = tokenizer.tokenOffset
    }

    private func readRowToken(_ token: XMLTokenizer.Token, skipping: Bool) throws {
        switch token {
        case let .start(name, selfClosing):
            if skipping { return }
            try startValue(name, selfClosing: selfClosing)
        case .end:
            if tokenizer.depth < rowDepth {
                // </row>: the tokenizer has checked that it matches.
                readingRows = false
                tokenizer.keepFrom = .max
                rowCount += 1
                if !skipping {
                    while batch.cells.count - rowCellStart < (schema?.columns.count ?? 0) {
                        batch.cells.append(missingValue)
                        batch.cellOffsets.append(rowOffset)
                    }
                    try endRow(at: rowOffset)
                }
                return
            }
            if skipping { return }
            try endValue()
        case .text:
            if skipping || openValues.count == 0 || openValues.base[openValues.count - 1].hasTarget { return }
            let top = openValues.base + (openValues.count - 1)
            if top.pointee.textStreamStart < 0, textBytes.count == top.pointee.textStart, let raw = tokenizer.rawTextInStream {
                top.pointee.textStreamStart = raw.start
                top.pointee.textStreamLength = raw.count
                return
            }
            if top.pointee.textStreamStart >= 0 {
                // A second text token (or one to decode): the texts join in `textBytes`.
                textBytes.append(contentsOf: tokenizer.keptBytes(at: top.pointee.textStreamStart, count: top.pointee.textStreamLength))
                top.pointee.textStreamStart = -1
            }
            try tokenizer.appendText(to: &textBytes)
        case .endOfInput:
            break
        }
    }

    /// Records the finished row in the batch, with the texts and names it may refer to that the
    /// assembler has not been sent yet; a full batch goes.
    private func endRow(at offset: Int) throws {
        if strings.count > sentStrings {
            batch.strings.append(contentsOf: strings.strings[sentStrings...])
            sentStrings = strings.count
        }
        let names = tokenizer.names
        while sentNames < names.count {
            batch.names.append(names.name(UInt16(sentNames)))
            sentNames += 1
        }
        batch.rows.append(XCTraceRowBatch.Row(
            offset: offset, rowCount: rowCount, cells: rowCellStart..<batch.cells.count, valueStart: rowValueStart,
            childStart: rowChildStart, attributes: rowAttributeStart..<batch.rowAttributes.count,
            keptChildrenEnd: batch.keptChildren.count, keptAttributesEnd: batch.keptAttributes.count,
            stringsEnd: batch.strings.count, namesEnd: batch.names.count
        ))
        let row = batch.rows.count - 1
        if case let .rows(range)? = batch.events.last, range.upperBound == row {
            batch.events[batch.events.count - 1] = .rows(range.lowerBound..<(row + 1))
        } else {
            batch.events.append(.rows(row..<(row + 1)))
        }
        // Large enough that handing a batch over costs little per row (1024 was measurably
        // slower), small enough that the assembler starts early and a batch stays about a MB.
        if batch.rows.count >= 4096 { try send() }
    }

    private func startValue(_ name: UInt16, selfClosing: Bool) throws {
        let offset = tokenizer.tokenOffset
        if name == XMLName.sentinel.rawValue {
            add(sentinelValue, offset: offset)
            if !selfClosing {
                openValues.append(OpenValue(
                    offset: offset, id: 0, textStart: textBytes.count,
                    textStreamStart: -1, textStreamLength: 0, fmtStart: fmtBytes.count, fmtEnd: fmtBytes.count,
                    fmtStreamStart: -1, childrenStart: pendingChildren.count, target: sentinelValue, textID: -1, name: -1, path: -1, line: -1,
                    tag: name, hasID: false, hasTarget: true, keep: false, hasFmt: false
                ))
            }
            return
        }
        var id: Int64?
        var textID: String?
        var target: ValueRef?
        var fmtStart = fmtBytes.count
        var fmtStreamStart = -1
        var fmtLength = 0
        var hasFmt = false
        var nameAttribute: Int32 = -1
        var pathAttribute: Int32 = -1
        var lineAttribute: Int32 = -1
        for attribute in tokenizer.attributes {
            // On the raw ids: `XMLName(rawValue:)` was a call per attribute.
            switch attribute.name {
            case XMLName.id.rawValue:
                if let number = tokenizer.integer(attribute) { id = number } else { textID = try tokenizer.string(attribute) }
            case XMLName.ref.rawValue:
                target = try resolve(attribute, tag: name)
            case XMLName.fmt.rawValue:
                fmtStart = fmtBytes.count
                if attribute.needsDecoding {
                    try tokenizer.appendValue(of: attribute, to: &fmtBytes)
                    fmtStreamStart = -1
                } else {
                    fmtStreamStart = tokenizer.streamOffset(of: attribute)
                    fmtLength = attribute.value.count
                }
                hasFmt = true
            case XMLName.name.rawValue:
                nameAttribute = strings.intern(try tokenizer.string(attribute))
            case XMLName.path.rawValue:
                pathAttribute = strings.intern(try tokenizer.string(attribute))
            case XMLName.line.rawValue:
                // A line that is no number (or negative) is no line: the frame keeps its path.
                lineAttribute = tokenizer.integer(attribute).map { Int32(clamping: max(0, $0)) } ?? -1
            default:
                break
            }
        }
        if selfClosing, let target {
            // A self-closing `ref` (most cells of a table with many repeats) stands for its
            // target at once: what `endValue` would do, without opening and closing it.
            if fmtBytes.count > fmtStart { fmtBytes.removeLast(fmtBytes.count - fmtStart) }
            add(target, offset: offset)
            return
        }
        let keep = id != nil || textID != nil || (openValues.count > 0 && openValues.base[openValues.count - 1].keep)
        var textIDIndex: Int32 = -1
        if let textID {
            textIDIndex = Int32(openTextIDs.count)
            openTextIDs.append(textID)
        }
        openValues.append(OpenValue(
            offset: offset, id: id ?? 0, textStart: textBytes.count,
            textStreamStart: -1, textStreamLength: 0, fmtStart: fmtStart,
            fmtEnd: fmtStreamStart >= 0 ? fmtLength : fmtBytes.count, fmtStreamStart: fmtStreamStart, childrenStart: pendingChildren.count, target: target ?? 0, textID: textIDIndex, name: nameAttribute,
            path: pathAttribute, line: lineAttribute, tag: name, hasID: id != nil, hasTarget: target != nil, keep: keep, hasFmt: hasFmt
        ))
        if selfClosing { try endValue() }
    }

    private func resolve(_ attribute: XMLTokenizer.Attribute, tag: UInt16) throws -> ValueRef {
        if let number = tokenizer.integer(attribute), number >= 0, number < valueByID.count, valueByID[Int(number)] >= 0 {
            return valueByID[Int(number)]
        }
        let text = try tokenizer.string(attribute)
        if let value = valueByTextID[text] { return value }
        throw XCTraceValueError(
            offset: tokenizer.tokenOffset, table: schema?.name, field: nil,
            message: "<\(tokenizer.names.name(tag)) ref=\"\(text)\"/> refers to no earlier id in this <node>"
        )
    }

    private func endValue() throws {
        openValues.count -= 1
        // Its fields are read in place: a copy of the whole struct, just stored field by field
        // (a self-closing value is closed right after it is opened), stalled on every value.
        let item = openValues.base + openValues.count
        if item.pointee.hasTarget {
            dropBuffers(of: item)
            add(item.pointee.target, offset: item.pointee.offset)
            return
        }
        var value = StoredValue(tag: item.pointee.tag)
        let hasText = item.pointee.textStreamStart >= 0 ? item.pointee.textStreamLength > 0 : textBytes.count > item.pointee.textStart
        if hasText {
            if item.pointee.textStreamStart >= 0 {
                internText(tokenizer.keptBytes(at: item.pointee.textStreamStart, count: item.pointee.textStreamLength), padded: true, childrenStart: item.pointee.childrenStart, into: &value)
            } else {
                textBytes.withUnsafeBufferPointer { all in
                    internText(UnsafeBufferPointer(rebasing: all[item.pointee.textStart...]), padded: false, childrenStart: item.pointee.childrenStart, into: &value)
                }
            }
        }
        if item.pointee.hasFmt, !hasText || pendingChildren.count > item.pointee.childrenStart {
            let fmt = item.pointee.fmtStreamStart >= 0
                ? strings.intern(tokenizer.keptBytes(at: item.pointee.fmtStreamStart, count: item.pointee.fmtEnd))
                : strings.intern(fmtBytes[item.pointee.fmtStart..<item.pointee.fmtEnd])
            value.fmt = fmt
            if value.text < 0, !value.hasNumber { value.text = fmt }
        }
        // Most values have no children: then no slice of `pendingChildren` (a retain and a release).
        let childCount = pendingChildren.count - item.pointee.childrenStart
        let ref: ValueRef
        if item.pointee.keep {
            value.childStart = UInt32(keptChildrenCount)
            value.childCount = UInt32(childCount)
            if childCount > 0 { batch.keptChildren.append(contentsOf: pendingChildren[item.pointee.childrenStart...]) }
            keptChildrenCount += childCount
            guard XCTraceKeptValues.store(value, at: keptCount, in: keptPages) else {
                throw XCTraceValueError(offset: item.pointee.offset, table: schema?.name, field: nil, message: "more than \(Int32.max) values with an id in one <node>")
            }
            ref = ValueRef(keptCount)
            keptCount += 1
            if item.pointee.name >= 0 || item.pointee.path >= 0 || item.pointee.line >= 0 {
                batch.keptAttributes.append(ValueAttributes(value: ref, name: item.pointee.name, path: item.pointee.path, line: item.pointee.line))
            }
            if item.pointee.hasID {
                let id = item.pointee.id
                // Dense ids go in the array; a stray huge one must not make it allocate gigabytes.
                if id >= 0, id < Int64(keptCount * 2 + 4096) {
                    if id >= valueByID.count {
                        // Doubled, not grown by the one id: ids arrive in order, one per value.
                        let newCount = max(Int(id) + 1, 2 * valueByID.count, 1024)
                        valueByID.append(contentsOf: repeatElement(-1, count: newCount - valueByID.count))
                    }
                    valueByID[Int(id)] = ref
                } else {
                    valueByTextID[String(id)] = ref
                }
            } else if item.pointee.textID >= 0 {
                valueByTextID[openTextIDs[Int(item.pointee.textID)]] = ref
            }
        } else {
            value.childStart = UInt32(batch.rowChildren.count - rowChildStart)
            value.childCount = UInt32(childCount)
            if childCount > 0 { batch.rowChildren.append(contentsOf: pendingChildren[item.pointee.childrenStart...]) }
            ref = -1 - ValueRef(batch.rowValues.count - rowValueStart)
            batch.rowValues.append(value)
            if item.pointee.name >= 0 || item.pointee.path >= 0 || item.pointee.line >= 0 {
                batch.rowAttributes.append(ValueAttributes(value: ref, name: item.pointee.name, path: item.pointee.path, line: item.pointee.line))
            }
        }
        dropBuffers(of: item)
        add(ref, offset: item.pointee.offset)
    }

    /// A closed value's text, fmt and children are consumed: dropping them keeps the buffers as
    /// deep as the open elements (memory independent of file size), and keeps a child's text
    /// out of its parent's.
    private func dropBuffers(of item: UnsafeMutablePointer<OpenValue>) {
        if textBytes.count > item.pointee.textStart { textBytes.removeLast(textBytes.count - item.pointee.textStart) }
        if fmtBytes.count > item.pointee.fmtStart { fmtBytes.removeLast(fmtBytes.count - item.pointee.fmtStart) }
        if pendingChildren.count > item.pointee.childrenStart { pendingChildren.removeLast(pendingChildren.count - item.pointee.childrenStart) }
        if item.pointee.textID >= 0 { openTextIDs.removeLast(openTextIDs.count - Int(item.pointee.textID)) }
    }

    private func add(_ ref: ValueRef, offset: Int) {
        if openValues.count == 0 {
            batch.cells.append(ref)
            batch.cellOffsets.append(offset)
        } else if !openValues.base[openValues.count - 1].hasTarget {
            pendingChildren.append(ref)
        }
    }

    /// `padded`: the bytes are in the tokenizer's buffer, which may be read past them.
    private func internText(_ bytes: UnsafeBufferPointer<UInt8>, padded: Bool, childrenStart: Int, into value: inout StoredValue) {
        if let parsed = padded ? parseCanonicalInteger(padded: bytes) : parseCanonicalInteger(bytes) {
            value.number = parsed
            value.hasNumber = true
        } else if pendingChildren.count == childrenStart || !isWhitespace(bytes) {
            value.text = strings.intern(bytes)
        }
    }

    private func isWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
