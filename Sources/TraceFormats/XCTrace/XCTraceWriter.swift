import TraceModel

/// Writes export XML the way `xctrace export` does: one `<node>` per table, a schema, one row
/// per line, each distinct value written once with `id` and referred to by `ref` afterwards
/// (ids restart in every node). Output goes to `emit` in chunks of about 1 MiB.
package struct XCTraceWriter {
    package typealias Column = (mnemonic: String, name: String, type: String)

    private var out: [UInt8] = []
    private let emit: ([UInt8]) throws -> Void
    private var nextID = 1
    private var ids: [String: Int] = [:]
    package private(set) var bytesWritten = 0

    package init(emit: @escaping ([UInt8]) throws -> Void) {
        self.emit = emit
        out.reserveCapacity(1 << 21)
    }

    // MARK: Structure

    package mutating func beginDocument() {
        write("<?xml version=\"1.0\"?>\n<trace-query-result>\n")
    }

    package mutating func endDocument() throws {
        write("</trace-query-result>\n")
        try flush()
    }

    package mutating func beginNode(schema: String, tableIndex: Int, columns: [Column]) {
        nextID = 1
        ids.removeAll(keepingCapacity: true)
        write("<node xpath='//trace-toc[1]/run[1]/data[1]/table[\(tableIndex)]'><schema name=\"\(schema)\">")
        for column in columns {
            write("<col><mnemonic>\(column.mnemonic)</mnemonic><name>")
            escaped(column.name)
            write("</name><engineering-type>\(column.type)</engineering-type></col>")
        }
        write("</schema>\n")
    }

    package mutating func endNode() throws {
        write("</node>")
        try flushIfFull()
    }

    package mutating func beginRow() { write("<row>") }

    package mutating func endRow() throws {
        write("</row>\n")
        try flushIfFull()
    }

    /// One table's whole document: its schema, then a row per element of `rows`, its cells written by `row`.
    package mutating func table<Rows: Sequence>(
        schema: String, tableIndex: Int, columns: [Column], rows: Rows,
        row: (Rows.Element, inout XCTraceWriter) throws -> Void
    ) throws {
        beginDocument()
        beginNode(schema: schema, tableIndex: tableIndex, columns: columns)
        for element in rows {
            beginRow()
            try row(element, &self)
            try endRow()
        }
        try endNode()
        try endDocument()
    }

    // MARK: Values

    package mutating func sentinel() { write("<sentinel/>") }

    /// A value with raw text; `shared` values are deduplicated by tag and text.
    package mutating func leaf(_ tag: String, _ raw: String, fmt: String? = nil, shared: Bool = true) {
        if shared, let id = ids[tag + "\u{1}" + raw] {
            reference(tag, id)
            return
        }
        let id = newID(shared ? tag + "\u{1}" + raw : nil)
        write("<\(tag) id=\"\(id)\" fmt=\"")
        escaped(fmt ?? raw)
        write("\">")
        escaped(raw)
        write("</\(tag)>")
    }

    package mutating func time(_ tag: String, _ nanoseconds: Int64) {
        leaf(tag, String(nanoseconds), fmt: Self.clock(nanoseconds), shared: false)
    }

    package mutating func duration(_ nanoseconds: Int64, tag: String = "duration") {
        leaf(tag, String(nanoseconds), fmt: Self.duration(nanoseconds))
    }

    package mutating func string(_ text: String) { leaf("string", text) }

    package mutating func number(_ tag: String, _ value: Int64) { leaf(tag, String(value)) }

    package mutating func process(pid: Int32, name: String) {
        interned("process", key: "process\u{1}\(pid)") { writer, id in
            writer.write("<process id=\"\(id)\" fmt=\"")
            writer.escaped("\(name) (\(pid))")
            writer.write("\">")
            writer.number("pid", Int64(pid))
            writer.leaf("device-session", "TODO")
            writer.write("</process>")
        }
    }

    package mutating func thread(tid: Int64, name: String, pid: Int32, processName: String) {
        interned("thread", key: "thread\u{1}\(pid)\u{1}\(tid)") { writer, id in
            let hex = "0x" + String(tid, radix: 16)
            writer.write("<thread id=\"\(id)\" fmt=\"")
            writer.escaped(name.isEmpty ? "\(hex) (\(processName), pid: \(pid))" : "\(name) (\(hex)) (\(processName), pid: \(pid))")
            writer.write("\">")
            writer.leaf("tid", String(tid), fmt: hex)
            writer.process(pid: pid, name: processName)
            writer.write("</thread>")
        }
    }

    /// A cause-graph node cell: "NAME, COLOR, SYMBOL, n/a, n/a".
    package mutating func graphNode(name: String, isAppCode: Bool, symbol: String) {
        let color = isAppCode ? "blue" : "gray"
        interned("typed-array", key: "typed-array\u{1}\(name)\u{1}\(color)\u{1}\(symbol)") { writer, id in
            writer.write("<typed-array id=\"\(id)\" fmt=\"")
            writer.escaped("\(name), \(color), \(symbol), n/a, n/a")
            writer.write("\">")
            writer.string(name)
            writer.string(color)
            writer.string(symbol)
            writer.write("<sentinel/><sentinel/></typed-array>")
        }
    }

    /// A value with children and a display text, written once per `key` and referred to after.
    package mutating func composite(_ tag: String, key: String, fmt: String, children: (inout XCTraceWriter) -> Void) {
        interned(tag, key: tag + "\u{1}" + key) { writer, id in
            writer.write("<\(tag) id=\"\(id)\" fmt=\"")
            writer.escaped(fmt)
            writer.write("\">")
            children(&writer)
            writer.write("</\(tag)>")
        }
    }

    /// A backtrace, frames leaf first; `key` identifies the whole stack for reuse. `tag` is
    /// `backtrace` (Time Profiler, SwiftUI) or `text-backtrace` (Swift Tasks).
    package mutating func backtrace(key: String, leafFirst frames: [(name: String, binary: String, path: String)], tag: String = "backtrace") {
        backtrace(key: key, leafFirst: frames.map { ($0.name, $0.binary, $0.path, nil) }, tag: tag)
    }

    /// The same, with each frame's file and line where known (Instruments 27's
    /// `<source line="88"><path>…</path></source>`, each path written once and referred to after).
    package mutating func backtrace(
        key: String, leafFirst frames: [(name: String, binary: String, path: String, source: CodeLocation?)], tag: String = "backtrace"
    ) {
        interned(tag, key: tag + "\u{1}" + key) { writer, id in
            writer.write("<\(tag) id=\"\(id)\">")
            for frame in frames { writer.frame(frame) }
            writer.write("</\(tag)>")
        }
    }

    private mutating func frame(_ frame: (name: String, binary: String, path: String, source: CodeLocation?)) {
        interned("frame", key: "frame\u{1}\(frame.name)\u{1}\(frame.binary)") { writer, id in
            writer.write("<frame id=\"\(id)\" name=\"")
            writer.escaped(frame.name)
            writer.write("\" addr=\"0x\(String(0x1_0000_0000 + id * 4, radix: 16))\">")
            writer.interned("binary", key: "binary\u{1}\(frame.binary)") { writer, id in
                writer.write("<binary id=\"\(id)\" name=\"")
                writer.escaped(frame.binary)
                writer.write("\" path=\"")
                writer.escaped(frame.path)
                writer.write("\"/>")
            }
            if let source = frame.source {
                writer.write("<source line=\"\(source.line)\">")
                writer.interned("path", key: "path\u{1}\(source.path)") { writer, id in
                    writer.write("<path id=\"\(id)\">")
                    writer.escaped(source.path)
                    writer.write("</path>")
                }
                writer.write("</source>")
            }
            writer.write("</frame>")
        }
    }

    // MARK: Bytes

    /// An element written once per `key`: a reference to it when it was written before, else
    /// `define` writes it whole under its new id.
    private mutating func interned(_ tag: String, key: String, define: (inout XCTraceWriter, Int) -> Void) {
        if let id = ids[key] { return reference(tag, id) }
        let id = newID(key)
        define(&self, id)
    }

    private mutating func newID(_ key: String?) -> Int {
        let id = nextID
        nextID += 1
        if let key { ids[key] = id }
        return id
    }

    private mutating func reference(_ tag: String, _ id: Int) {
        write("<\(tag) ref=\"\(id)\"/>")
    }

    private mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    private mutating func escaped(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var plain = true
            for byte in bytes where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                plain = false
                break
            }
            if plain {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): out.append(contentsOf: "&apos;".utf8)
                default: out.append(byte)
                }
            }
        }
    }

    private mutating func flushIfFull() throws {
        if out.count >= 1 << 20 { try flush() }
    }

    package mutating func flush() throws {
        guard !out.isEmpty else { return }
        bytesWritten += out.count
        try emit(out)
        out.removeAll(keepingCapacity: true)
    }

    // MARK: Display texts (fmt)

    /// "00:01.234.567" (minutes:seconds.milliseconds.microseconds), as Instruments shows times.
    package static func clock(_ nanoseconds: Int64) -> String {
        let micros = nanoseconds / 1_000
        let minutes = micros / 60_000_000
        let seconds = micros / 1_000_000 % 60
        let millis = micros / 1_000 % 1_000
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3)).\(pad(micros % 1_000, 3))"
    }

    /// "1.25 ms", "620.00 µs", "16.67 ms", "2.10 s".
    package static func duration(_ nanoseconds: Int64) -> String {
        let value = Double(nanoseconds)
        func fixed(_ number: Double) -> String {
            let hundredths = Int64((number * 100).rounded())
            let fraction = String(hundredths % 100)
            return "\(hundredths / 100).\(fraction.count == 1 ? "0" + fraction : fraction)"
        }
        if nanoseconds >= 1_000_000_000 { return fixed(value / 1e9) + " s" }
        if nanoseconds >= 1_000_000 { return fixed(value / 1e6) + " ms" }
        if nanoseconds >= 1_000 { return fixed(value / 1e3) + " µs" }
        return "\(nanoseconds) ns"
    }
}
