import Foundation

/// One export document of the input (the file, or a file of a tar bundle): what its errors name.
struct XCTraceDocument {
    /// "Run.tar/swiftui-updates.xml", or the file's name.
    var location: String
    /// Where its bytes begin in the (decompressed) input: 0, or a tar member's data.
    var start: Int
}

/// Rows on their way from the reader (tokens and values, on a thread of its own) to the
/// assembler, with everything they refer to: the texts and names the reader interned since the
/// previous batch travel with it. The values a `<node>` keeps are not copied into batches: they
/// stay in the node's `XCTraceKeptValues`, which the `.node` event hands over once.
struct XCTraceRowBatch: @unchecked Sendable {
    enum Event {
        /// A new document: its own text pool, element names and value ids (kept in the store given).
        case document(XCTraceDocument, XCTraceKeptValues)
        /// A `<node>` began or ended: the values kept for the node are dropped; the next ones go in the store given.
        case node(XCTraceKeptValues)
        case tableOfContents(TableOfContents)
        /// The reader waits for the assembler's answer: read the table's rows or skip them.
        case beginTable(TableSchema)
        /// Indexes into `rows`.
        case rows(Range<Int>)
        case endTable
    }

    struct Row {
        /// Absolute offset of `<row>` in its document.
        var offset: Int
        /// Rows read in the `<node>` so far, this one included.
        var rowCount: Int
        /// Into `cells` and `cellOffsets`.
        var cells: Range<Int>
        /// Where the row's own values and their children start in `rowValues` / `rowChildren`.
        var valueStart: Int
        var childStart: Int
        var attributes: Range<Int>
        /// How much of each of the batch's kept/interned lists the row may refer to.
        var keptChildrenEnd: Int
        var keptAttributesEnd: Int
        var stringsEnd: Int
        var namesEnd: Int
    }

    var events: [Event] = []
    var rows: [Row] = []
    var cells: [ValueRef] = []
    var cellOffsets: [Int] = []
    var rowValues: [StoredValue] = []
    var rowChildren: [ValueRef] = []
    var rowAttributes: [ValueAttributes] = []
    var keptChildren: [ValueRef] = []
    var keptAttributes: [ValueAttributes] = []
    var strings: [String] = []
    var names: [String] = []

    mutating func removeAll() {
        events.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        cells.removeAll(keepingCapacity: true)
        cellOffsets.removeAll(keepingCapacity: true)
        rowValues.removeAll(keepingCapacity: true)
        rowChildren.removeAll(keepingCapacity: true)
        rowAttributes.removeAll(keepingCapacity: true)
        keptChildren.removeAll(keepingCapacity: true)
        keptAttributes.removeAll(keepingCapacity: true)
        strings.removeAll(keepingCapacity: true)
        names.removeAll(keepingCapacity: true)
    }
}

/// The assembler's side: the values of the row being assembled (in the batch it came in) and
/// those kept for its `<node>`, mirrored from the batches in order.
final class XCTraceValues {
    /// The document's texts, by pool id.
    @exclusivity(unchecked) private(set) var strings: [String] = []
    @exclusivity(unchecked) private var names: [String] = []
    /// The node's kept values (held for their lifetime) and their pages, read directly.
    @exclusivity(unchecked) private var kept = XCTraceKeptValues()
    @exclusivity(unchecked) private var keptPages: XCTraceKeptValues.Pages

    init() {
        keptPages = kept.pages
    }
    @exclusivity(unchecked) private var keptChildren: [ValueRef] = []
    @exclusivity(unchecked) private var keptAttributes: [ValueRef: ValueAttributes] = [:]
    /// The batch being assembled: its events are replayed from here.
    @exclusivity(unchecked) private(set) var batch = XCTraceRowBatch()
    @exclusivity(unchecked) private var row = XCTraceRowBatch.Row(
        offset: 0, rowCount: 0, cells: 0..<0, valueStart: 0, childStart: 0, attributes: 0..<0,
        keptChildrenEnd: 0, keptAttributesEnd: 0, stringsEnd: 0, namesEnd: 0
    )
    // How much of the batch's kept/interned lists is mirrored already.
    @exclusivity(unchecked) private var keptChildrenRead = 0
    @exclusivity(unchecked) private var keptAttributesRead = 0
    @exclusivity(unchecked) private var stringsRead = 0
    @exclusivity(unchecked) private var namesRead = 0

    /// The row's cells and where each starts in the document, read in the batch (not copied per row).
    var cellCount: Int { row.cells.count }
    func cell(_ index: Int) -> ValueRef { batch.cells[row.cells.lowerBound + index] }
    func cellOffset(_ index: Int) -> Int { batch.cellOffsets[row.cells.lowerBound + index] }
    var rowOffset: Int { row.offset }
    var rowCount: Int { row.rowCount }

    /// Takes the next batch; returns the one before, to be reused by the reader.
    func swapBatch(_ next: XCTraceRowBatch) -> XCTraceRowBatch {
        var used = next
        swap(&used, &batch)
        keptChildrenRead = 0
        keptAttributesRead = 0
        stringsRead = 0
        namesRead = 0
        return used
    }

    func beginDocument(kept: XCTraceKeptValues) {
        strings.removeAll()
        names.removeAll()
        beginNode(kept: kept)
    }

    /// The node's values go with their memory: the next node may be a much smaller table.
    func beginNode(kept: XCTraceKeptValues) {
        self.kept = kept
        keptPages = kept.pages
        keptChildren = []
        keptAttributes = [:]
    }

    func load(row index: Int) {
        let row = batch.rows[index]
        Self.catchUp(&keptChildren, from: batch.keptChildren, read: &keptChildrenRead, to: row.keptChildrenEnd)
        while keptAttributesRead < row.keptAttributesEnd {
            let attributes = batch.keptAttributes[keptAttributesRead]
            keptAttributes[attributes.value] = attributes
            keptAttributesRead += 1
        }
        Self.catchUp(&strings, from: batch.strings, read: &stringsRead, to: row.stringsEnd)
        Self.catchUp(&names, from: batch.names, read: &namesRead, to: row.namesEnd)
        self.row = row
    }

    /// Appends what the batch added to `source` since the last row, up to `end`.
    @inline(__always) private static func catchUp<T>(_ mirror: inout [T], from source: [T], read: inout Int, to end: Int) {
        guard end > read else { return }
        mirror.append(contentsOf: source[read..<end])
        read = end
    }

    // MARK: Reading values

    func value(_ ref: ValueRef) -> StoredValue? {
        if ref == sentinelValue || ref == missingValue { return nil }
        return ref >= 0 ? XCTraceKeptValues.load(ref, from: keptPages) : batch.rowValues[row.valueStart + Int(-1 - ref)]
    }

    func tag(_ ref: ValueRef) -> UInt16? { value(ref)?.tag }

    func number(_ ref: ValueRef) -> Int64? {
        guard let value = value(ref), value.hasNumber else { return nil }
        return value.number
    }

    /// The raw text (or `fmt` when the value has no text); nil for an empty cell.
    func string(_ ref: ValueRef) -> String? {
        guard let value = value(ref) else { return nil }
        if value.hasNumber { return String(value.number) }
        return value.text >= 0 ? strings[Int(value.text)] : nil
    }

    /// The pool id of the value's text, to memoise conversions; nil for numbers and empty cells.
    func textID(_ ref: ValueRef) -> Int32? {
        guard let value = value(ref), !value.hasNumber, value.text >= 0 else { return nil }
        return value.text
    }

    func fmt(_ ref: ValueRef) -> String? {
        guard let value = value(ref) else { return nil }
        if value.fmt >= 0 { return strings[Int(value.fmt)] }
        return string(ref)
    }

    func children(_ ref: ValueRef) -> ArraySlice<ValueRef> {
        guard let value = value(ref), value.childCount > 0 else { return [] }
        let start = Int(value.childStart)
        let end = start + Int(value.childCount)
        return ref >= 0 ? keptChildren[start..<end] : batch.rowChildren[(row.childStart + start)..<(row.childStart + end)]
    }

    func child(_ ref: ValueRef, tag: XMLName) -> ValueRef? {
        children(ref).first { self.tag($0) == tag.rawValue }
    }

    func attributes(_ ref: ValueRef) -> (name: String?, path: String?) {
        let found = ref >= 0
            ? keptAttributes[ref]
            : batch.rowAttributes[row.attributes].first { $0.value == ref }
        guard let found else { return (nil, nil) }
        return (found.name >= 0 ? strings[Int(found.name)] : nil, found.path >= 0 ? strings[Int(found.path)] : nil)
    }

    /// A `<source line="88">`'s line, nil without one.
    func line(_ ref: ValueRef) -> Int? {
        let found = ref >= 0
            ? keptAttributes[ref]
            : batch.rowAttributes[row.attributes].first { $0.value == ref }
        guard let found, found.line >= 0 else { return nil }
        return Int(found.line)
    }

    func tagName(_ ref: ValueRef) -> String {
        if ref == sentinelValue { return "sentinel" }
        guard let tag = tag(ref) else { return "nothing" }
        return names[Int(tag)]
    }
}
