import Foundation
import TraceModel

/// Reads the native JSON format (docs/trace-format.md) in one streaming pass: no document
/// tree, rows go straight into a `TraceBuilder`. Every reference is checked where it stands,
/// so an error names the exact token (`file:line:column: updates[12].group: ...`).
public enum NativeTraceReader {
    /// - Parameter growth: the file is still being written (an upload arriving): it is read as it grows.
    /// - Parameter observer: sees the file's bytes as they are read (`ReadObserver`).
    public static func read(
        at url: URL, displayName: String, maxBytes: Int64 = .max, growth: GrowingFile? = nil, observer: (any ReadObserver)? = nil
    ) throws(TraceFormatError) -> Trace {
        try read(at: url, displayName: displayName, chunkSize: 1 << 20, maxBytes: maxBytes, growth: growth, observer: observer)
    }

    /// `chunkSize` is small in tests, to split tokens across refills everywhere.
    static func read(
        at url: URL, displayName: String, chunkSize: Int, maxBytes: Int64 = .max, growth: GrowingFile? = nil, observer: (any ReadObserver)? = nil
    ) throws(TraceFormatError) -> Trace {
        let source = try ByteSource(url: url, displayName: displayName, chunkSize: chunkSize, maxBytes: maxBytes, growth: growth, observer: observer)
        var parser = NativeTraceParser(scanner: JSONScanner(source: source), traceName: traceName(fromFileName: displayName))
        do {
            return try parser.parse()
        } catch {
            throw TextLocation.formatError(error, url: url, displayName: displayName)
        }
    }

    /// "landmarks-scroll-slow.json.gz" -> "landmarks-scroll-slow".
    static func traceName(fromFileName fileName: String) -> String {
        var name = (fileName as NSString).lastPathComponent
        for suffix in [".gz", ".json"] where name.lowercased().hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
        }
        return name
    }
}

private typealias Table = NativeTraceFormat.Table

struct NativeTraceParser: ~Copyable {
    private var scanner: JSONScanner
    private var builder: TraceBuilder
    /// Rows read so far, per table.
    private var rowCounts = [Int](repeating: 0, count: Table.allCases.count)
    /// File row -> builder row for frames and stacks (the builder merges duplicates).
    private var frameRows: [UInt32] = []
    private var stackRows: [UInt32] = []
    /// Row of each task by (process row, task id): a key listed twice is an error.
    private var taskRowByKey: [TaskKey: Int] = [:]
    private struct TaskKey: Hashable { var process: Int32, taskID: Int64 }
    /// Where each table's key is, for errors found only when the whole trace is built.
    private var tableOffsets: [Table: Int] = [:]
    /// The table, row and column being read, for error messages.
    private var table = Table.processes
    /// The columns of `table` in this file's version.
    private var columns = Table.processes.columns
    private var row = 0
    private var column = 0
    private var version: Int64 = Int64(NativeTraceFormat.version)

    init(scanner: consuming JSONScanner, traceName: String) {
        self.scanner = scanner
        builder = TraceBuilder(metadata: TraceMetadata(name: traceName, sourceFormat: NativeTraceFormat.sourceFormat))
    }

    mutating func parse() throws(OffsetError) -> Trace {
        try scanner.expect(UInt8(ascii: "{"), "a JSON object (a tracesvc trace starts with '{')")
        try readHeader()
        var hasMetadata = false
        while try scanner.consume(UInt8(ascii: ",")) {
            let keyOffset = try tokenOffset()
            let key = try scanner.readString()
            try scanner.expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
            if key == "metadata" {
                if hasMetadata { throw OffsetError(offset: keyOffset, message: "\"metadata\" appears twice") }
                hasMetadata = true
                try readMetadata()
            } else if let table = Table(rawValue: key), table.sinceVersion <= version {
                if tableOffsets[table] != nil { throw OffsetError(offset: keyOffset, message: "table \"\(key)\" appears twice") }
                tableOffsets[table] = keyOffset
                try readTable(table)
            } else {
                let known = (["metadata"] + Table.allCases.filter { $0.sinceVersion <= version }.map(\.rawValue)).joined(separator: ", ")
                throw OffsetError(offset: keyOffset, message: "unknown key \"\(key)\"; a version \(version) trace has: \(known)")
            }
        }
        try scanner.expect(UInt8(ascii: "}"), "',' or '}'")
        if try scanner.peek() != nil {
            throw scanner.error("unexpected content after the end of the trace object")
        }
        do {
            return try builder.build()
        } catch {
            // Every reference was checked while reading; this is a safety net that still
            // points at the table the model rejected.
            let offset = Table(rawValue: error.table).flatMap { tableOffsets[$0] } ?? 0
            throw OffsetError(offset: offset, message: error.description)
        }
    }

    private mutating func tokenOffset() throws(OffsetError) -> Int {
        _ = try scanner.peek()
        return scanner.offset
    }

    /// `"format": "tracesvc-trace", "version": 1` must open the object, so any other JSON is
    /// rejected at once and a newer version is rejected before its tables are misread.
    private mutating func readHeader() throws(OffsetError) {
        let notATrace = "not a tracesvc trace: the object must begin with \"format\": \"\(NativeTraceFormat.formatName)\""
        guard try scanner.peek() == UInt8(ascii: "\"") else { throw scanner.error(notATrace) }
        let formatKeyOffset = scanner.offset
        guard try scanner.readString() == "format" else { throw OffsetError(offset: formatKeyOffset, message: notATrace) }
        try scanner.expect(UInt8(ascii: ":"), "':'")
        let formatOffset = try tokenOffset()
        let format = try scanner.readString(field: "format")
        guard format == NativeTraceFormat.formatName else {
            throw OffsetError(offset: formatOffset, message: "format is \"\(format)\"; expected \"\(NativeTraceFormat.formatName)\"", field: "format")
        }
        try scanner.expect(UInt8(ascii: ","), "',' and then \"version\"")
        let versionKeyOffset = try tokenOffset()
        guard try scanner.readString() == "version" else {
            throw OffsetError(offset: versionKeyOffset, message: "expected \"version\" right after \"format\"")
        }
        try scanner.expect(UInt8(ascii: ":"), "':'")
        let versionOffset = try tokenOffset()
        let version = try scanner.readInt64(field: "version")
        guard NativeTraceFormat.readableVersions.contains(version) else {
            let readable = NativeTraceFormat.readableVersions
            throw OffsetError(
                offset: versionOffset,
                message: "unsupported version \(version); this tracesvc reads versions \(readable.lowerBound) to \(readable.upperBound)", field: "version"
            )
        }
        self.version = version
        builder.metadata.sourceFormat = NativeTraceFormat.sourceFormat(version: version)
    }

    private mutating func readMetadata() throws(OffsetError) {
        try scanner.expect(UInt8(ascii: "{"), "an object for \"metadata\"")
        if try scanner.consume(UInt8(ascii: "}")) { return }
        repeat {
            let keyOffset = try tokenOffset()
            let key = try scanner.readString()
            try scanner.expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
            let field = "metadata.\(key)"
            do throws(OffsetError) {
                switch key {
                case "app": builder.metadata.app = try scanner.readString(field: field)
                case "device": builder.metadata.device = try scanner.readString(field: field)
                case "osVersion": builder.metadata.osVersion = try scanner.readString(field: field)
                case "refreshRate":
                    let offset = try tokenOffset()
                    let rate = try scanner.readNull() ? nil : try scanner.readDouble(field: field)
                    if let rate, rate <= 0 {
                        throw OffsetError(offset: offset, message: "must be a positive number of Hz, or null", field: field)
                    }
                    builder.metadata.refreshRate = rate
                case "cpuWeightUnit":
                    let offset = try tokenOffset()
                    let text = try scanner.readString(field: field)
                    guard let unit = CPUWeightUnit(rawValue: text) else {
                        throw OffsetError(offset: offset, message: "is \"\(text)\"; expected \"ns\" or \"cycles\"", field: field)
                    }
                    builder.metadata.cpuWeightUnit = unit
                case "recordedAt": builder.metadata.recordedAt = try scanner.readNull() ? nil : try scanner.readString(field: field)
                case "start": builder.metadata.start = try time(field: field)
                case "end": builder.metadata.end = try time(field: field)
                case "importNotes":
                    try scanner.expect(UInt8(ascii: "["), "an array of strings", field: field)
                    if try !scanner.consume(UInt8(ascii: "]")) {
                        repeat {
                            builder.metadata.importNotes.append(try scanner.readString(field: field))
                        } while try scanner.nextElement()
                    }
                default:
                    throw OffsetError(
                        offset: keyOffset,
                        message: "unknown key \"\(key)\"; metadata has: app, device, osVersion, refreshRate, recordedAt, start, end, importNotes, cpuWeightUnit"
                    )
                }
            } catch {
                throw error.prefixed(error.field == field ? "\(field): " : "")
            }
        } while try scanner.nextElement(closing: UInt8(ascii: "}"))
        if builder.metadata.end < builder.metadata.start {
            throw scanner.error("metadata.end is before metadata.start")
        }
    }

    // MARK: Tables

    private mutating func readTable(_ table: Table) throws(OffsetError) {
        self.table = table
        columns = table.columns(version: version)
        try scanner.expect(UInt8(ascii: "["), "an array of rows for \"\(table.rawValue)\"")
        if try scanner.consume(UInt8(ascii: "]")) { return }
        row = 0
        do throws(OffsetError) {
            repeat {
                column = -1
                try scanner.expect(UInt8(ascii: "["), "a row: an array of \(columns.count) values (\(columns.joined(separator: ", ")))")
                column = 0
                switch table {
                case .processes: try readProcess()
                case .threads: try readThread()
                case .updateGroups: try readUpdateGroup()
                case .updates: try readUpdate()
                case .nodes: try readNode()
                case .edges: try readEdge()
                case .frames: try readFrame()
                case .stacks: try readStack()
                case .stateChanges: try readStateChange()
                case .samples: try readSample()
                case .hitches, .hangs: try readInterval()
                case .tasks: try readTask()
                case .taskStates: try readTaskState()
                case .signposts: try readSignpost()
                case .hangRisks: try readHangRisk()
                }
                column = -1
                try endRow()
                row += 1
                rowCounts[table.index] = row
            } while try scanner.nextElement()
        } catch {
            throw error.prefixed("\(table.rawValue)[\(row)]\(column >= 0 ? ".\(columns[column])" : ""): ")
        }
    }

    /// Moves to column `index`: consumes the ',' before it, or explains a short row.
    @inline(__always)
    private mutating func next(_ index: Int) throws(OffsetError) {
        column = index
        if try scanner.consume(UInt8(ascii: ",")) { return }
        if try scanner.peek() == UInt8(ascii: "]") {
            column = -1
            throw scanner.error("the row ends after \(index) value\(index == 1 ? "" : "s"); a row of \(table.rawValue) has \(columns.count): \(columns.joined(separator: ", "))")
        }
        let found = scanner.describeNext()
        throw scanner.error("expected ',', found \(found)")
    }

    @inline(__always)
    private mutating func endRow() throws(OffsetError) {
        if try scanner.consume(UInt8(ascii: "]")) { return }
        if try scanner.peek() == UInt8(ascii: ",") {
            throw scanner.error("the row has more than \(columns.count) values (\(columns.joined(separator: ", ")))")
        }
        let found = scanner.describeNext()
        throw scanner.error("expected ']' to end the row, found \(found)")
    }

    @inline(__always)
    private mutating func duration() throws(OffsetError) -> Nanoseconds {
        let offset = try tokenOffset()
        let value = try scanner.readInt64()
        if value < 0 { throw OffsetError(offset: offset, message: "must not be negative (\(value))") }
        if value > TraceLimits.time { throw OffsetError(offset: offset, message: "is too long (\(value) ns; at most \(TraceLimits.time))") }
        return value
    }

    /// A time in nanoseconds, within `TraceLimits.times` so that no later sum can overflow.
    @inline(__always)
    private mutating func time(field: String? = nil) throws(OffsetError) -> Nanoseconds {
        let offset = try tokenOffset()
        let value = try scanner.readInt64(field: field)
        if !TraceLimits.times.contains(value) {
            throw OffsetError(offset: offset, message: "is out of range (\(value) ns; times lie within ±\(TraceLimits.time))", field: field)
        }
        return value
    }

    @inline(__always)
    private mutating func string() throws(OffsetError) -> StringRef {
        try scanner.readInterned(into: &builder)
    }

    /// A row number of `target` (or null when `nullable`) that has been read already.
    @inline(__always)
    private mutating func reference(_ target: Table, nullable: Bool = true) throws(OffsetError) -> Int32 {
        if nullable, try scanner.readNull() { return noRow }
        let offset = try tokenOffset()
        let value = try scanner.readInt64()
        let count = rowCounts[target.index]
        if value >= 0 && value < count { return Int32(value) }
        let noun = target.rowNoun
        let available = count == 0 ? "no \(noun)s come before it" : "only \(count) \(noun)\(count == 1 ? "" : "s") (0...\(count - 1)) come before it"
        let null = nullable ? "; use null for none" : ""
        throw OffsetError(offset: offset, message: "refers to \(noun) \(value), but \(available)\(null)")
    }

    @inline(__always)
    private mutating func enumValue<Value>(_ values: [(bytes: [UInt8], value: Value)], _ what: String) throws(OffsetError) -> Value {
        let offset = try tokenOffset()
        let bytes = try scanner.readStringBytes()
        for candidate in values where candidate.bytes.count == bytes.count {
            if candidate.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) {
                return candidate.value
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let names = values.map { String(decoding: $0.bytes, as: UTF8.self) }.joined(separator: ", ")
        throw OffsetError(offset: offset, message: "unknown \(what) \"\(text)\"; expected one of: \(names)")
    }

    private mutating func int32(_ what: String) throws(OffsetError) -> Int32 {
        let offset = try tokenOffset()
        let value = try scanner.readInt64()
        guard let result = Int32(exactly: value) else { throw OffsetError(offset: offset, message: "\(what) \(value) is out of range") }
        return result
    }

    // MARK: Rows

    private mutating func readProcess() throws(OffsetError) {
        let pid = try int32("pid")
        try next(1)
        let name = try scanner.readString()
        _ = builder.addProcess(TraceProcess(pid: pid, name: name))
    }

    private mutating func readThread() throws(OffsetError) {
        let tid = try scanner.readInt64()
        try next(1)
        let name = try scanner.readString()
        try next(2)
        let process = try reference(.processes, nullable: false)
        try next(3)
        let isMain = try scanner.readBool()
        _ = builder.addThread(TraceThread(tid: tid, name: name, process: UInt32(process), isMain: isMain))
    }

    private mutating func readUpdateGroup() throws(OffsetError) {
        let start = try time()
        try next(1)
        let duration = try duration()
        try next(2)
        let label = try string()
        try next(3)
        let thread = try reference(.threads)
        builder.addUpdateGroup(start: start, duration: duration, label: label, thread: thread)
    }

    private mutating func readUpdate() throws(OffsetError) {
        let start = try time()
        try next(1)
        let duration = try duration()
        try next(2)
        let kind = try enumValue(Self.updateKinds, "update kind")
        try next(3)
        let module = try string()
        try next(4)
        let view = try string()
        try next(5)
        let description = try string()
        try next(6)
        let category = try string()
        try next(7)
        let allocationsOffset = try tokenOffset()
        let allocationCount = try scanner.readInt64()
        guard let allocations = UInt32(exactly: allocationCount) else {
            throw OffsetError(offset: allocationsOffset, message: "allocations \(allocationCount) is out of range (0...\(UInt32.max))")
        }
        try next(8)
        let thread = try reference(.threads)
        try next(9)
        let group = try reference(.updateGroups)
        try next(10)
        let severity = try enumValue(Self.sourceSeverities, "severity")
        let row = builder.addUpdate(
            start: start, duration: duration, kind: kind, sourceSeverity: severity, module: module, viewName: view,
            description: description, category: category, allocations: allocations, thread: thread, group: group
        )
        guard try scanner.peek() == UInt8(ascii: ",") else { return }
        try next(11)
        let selfDuration = try optionalDuration()
        try next(12)
        let depth = try optionalCount()
        try next(13)
        let cached: Bool? = try scanner.readNull() ? nil : try scanner.readBool()
        try next(14)
        let downstreamCost = try optionalDuration()
        try next(15)
        let downstreamEvents = try optionalCount()
        if selfDuration != nil || depth != nil || cached != nil {
            builder.setLayout(ofUpdate: row, selfDuration: selfDuration, depth: depth, cached: cached)
        }
        if let downstreamCost { builder.setDownstream(ofUpdate: row, cost: downstreamCost, events: downstreamEvents ?? 0) }
    }

    private mutating func optionalDuration() throws(OffsetError) -> Nanoseconds? {
        try scanner.readNull() ? nil : try duration()
    }

    /// A count or depth: null, or a whole number from 0 to Int32.max.
    private mutating func optionalCount() throws(OffsetError) -> Int? {
        if try scanner.readNull() { return nil }
        let offset = try tokenOffset()
        let value = try scanner.readInt64()
        guard value >= 0, value <= Int64(Int32.max) else {
            throw OffsetError(offset: offset, message: "should be null or a whole number from 0 to \(Int32.max), found \(value)")
        }
        return Int(value)
    }

    private mutating func readHangRisk() throws(OffsetError) {
        let time = try time()
        try next(1)
        let message = try string()
        try next(2)
        let severity = try string()
        try next(3)
        let eventType = try string()
        try next(4)
        let backtrace = try reference(.stacks)
        try next(5)
        let thread = try reference(.threads)
        builder.addHangRisk(
            time: time, message: message, severity: severity, eventType: eventType,
            backtrace: backtrace == noRow ? noRow : Int32(stackRows[Int(backtrace)]), thread: thread
        )
    }

    private mutating func readNode() throws(OffsetError) {
        let kind = try enumValue(Self.nodeKinds, "node kind")
        try next(1)
        let name = try string()
        try next(2)
        let owner = try string()
        try next(3)
        let isAppCode = try scanner.readBool()
        try next(4)
        let eventID = try scanner.readInt64()
        try next(5)
        let timestamp = try time()
        try next(6)
        let update = try reference(.updates)
        builder.addNode(kind: kind, name: name, owner: owner, isAppCode: isAppCode, eventID: eventID, timestamp: timestamp, update: update)
    }

    private mutating func readEdge() throws(OffsetError) {
        let source = try reference(.nodes, nullable: false)
        try next(1)
        let target = try reference(.nodes, nullable: false)
        try next(2)
        let label = try enumValue(Self.edgeLabels, "edge label")
        try next(3)
        let property = try string()
        try next(4)
        let timestamp = try time()
        try next(5)
        let group = try reference(.updateGroups)
        builder.addEdge(
            source: UInt32(source), target: UInt32(target), label: label, changedProperty: property, timestamp: timestamp, group: group
        )
    }

    private mutating func readFrame() throws(OffsetError) {
        let name = try string()
        try next(1)
        let binary = try string()
        try next(2)
        let isAppCode = try scanner.readBool()
        var (sourcePath, sourceLine): (StringRef, UInt32) = (0, 0)
        if try scanner.peek() == UInt8(ascii: ",") {
            try next(3)
            sourcePath = try string()
            try next(4)
            let lineOffset = try tokenOffset()
            let line = try scanner.readInt64(field: "sourceLine")
            guard line >= 0, line <= Int64(UInt32.max) else {
                throw OffsetError(offset: lineOffset, message: "a line number should be 0 or more, found \(line)", field: "sourceLine")
            }
            sourceLine = UInt32(line)
        }
        frameRows.append(builder.addFrame(name: name, binary: binary, isAppCode: isAppCode, sourcePath: sourcePath, sourceLine: sourceLine))
    }

    private mutating func readStack() throws(OffsetError) {
        let parent = try reference(.stacks)
        try next(1)
        let frame = try reference(.frames, nullable: false)
        let stack = builder.addStack(parent: parent == noRow ? noRow : Int32(stackRows[Int(parent)]), frame: frameRows[Int(frame)])
        stackRows.append(stack)
    }

    private mutating func readStateChange() throws(OffsetError) {
        let timestamp = try time()
        try next(1)
        let node = try reference(.nodes, nullable: false)
        try next(2)
        let description = try string()
        try next(3)
        let backtrace = try reference(.stacks)
        try next(4)
        let thread = try reference(.threads)
        builder.addStateChange(
            timestamp: timestamp, node: UInt32(node), description: description,
            backtrace: backtrace == noRow ? noRow : Int32(stackRows[Int(backtrace)]), thread: thread
        )
    }

    private mutating func readSample() throws(OffsetError) {
        let time = try self.time()
        try next(1)
        let thread = try reference(.threads)
        try next(2)
        let weight = try duration()
        try next(3)
        let stack = try reference(.stacks, nullable: false)
        builder.addSample(time: time, thread: thread, weight: weight, stack: stackRows[Int(stack)])
    }

    private mutating func readInterval() throws(OffsetError) {
        let start = try time()
        try next(1)
        let duration = try duration()
        try next(2)
        let kind = try scanner.readString()
        try next(3)
        let detail = try scanner.readString()
        try next(4)
        let thread = try reference(.threads)
        let interval = TimelineInterval(start: start, duration: duration, kind: kind, detail: detail, thread: thread)
        if table == .hitches { builder.addHitch(interval) } else { builder.addHang(interval) }
    }

    private mutating func readTask() throws(OffsetError) {
        let idOffset = try tokenOffset()
        let taskID = try scanner.readInt64()
        // Version 2 rows have no process column: the columns after it move one to the left.
        let shift = version < 3 ? 1 : 0
        var process = noRow
        if shift == 0 {
            try next(1)
            process = try reference(.processes)
        }
        // Task ids are per process: (process, taskID) names one task.
        if let earlier = taskRowByKey.updateValue(row, forKey: TaskKey(process: process, taskID: taskID)) {
            let whose = process == noRow ? "no process" : "process \(process)"
            column = 0
            throw OffsetError(offset: idOffset, message: "task \(taskID) of \(whose) is listed twice (tasks[\(earlier)] and tasks[\(row)])")
        }
        try next(2 - shift)
        let name = try string()
        try next(3 - shift)
        let backtrace = try reference(.stacks)
        try next(4 - shift)
        let start = try time()
        try next(5 - shift)
        let endOffset = try tokenOffset()
        let end = try time()
        if end < start { throw OffsetError(offset: endOffset, message: "is before start (\(end) < \(start))") }
        builder.addTask(
            taskID: taskID, process: process, name: name, creationBacktrace: backtrace == noRow ? noRow : Int32(stackRows[Int(backtrace)]),
            start: start, end: end
        )
    }

    private mutating func readTaskState() throws(OffsetError) {
        let start = try time()
        try next(1)
        let duration = try duration()
        try next(2)
        let task = try reference(.tasks, nullable: false)
        try next(3)
        var row = SwiftTaskStateRow(start: start, duration: duration, task: UInt32(task), state: try enumValue(Self.taskStates, "task state"))
        try next(4)
        row.actor = try string()
        try next(5)
        row.isMainActor = try scanner.readBool()
        try next(6)
        row.priority = try string()
        try next(7)
        row.resumeFunction = try string()
        try next(8)
        row.waitingFor = try reference(.tasks)
        try next(9)
        let suspend = try reference(.stacks)
        row.suspendBacktrace = suspend == noRow ? noRow : Int32(stackRows[Int(suspend)])
        try next(10)
        row.thread = try reference(.threads)
        try next(11)
        row.narrative = try string()
        builder.addTaskState(row)
    }

    private mutating func readSignpost() throws(OffsetError) {
        let start = try time()
        try next(1)
        let duration = try duration()
        try next(2)
        let kind = try enumValue(Self.signpostKinds, "signpost kind")
        try next(3)
        let process = try reference(.processes)
        try next(4)
        let thread = try reference(.threads)
        try next(5)
        let subsystem = try string()
        try next(6)
        let category = try string()
        try next(7)
        var row = SignpostRow(start: start, duration: duration, kind: kind, name: try string())
        (row.process, row.thread, row.subsystem, row.category) = (process, thread, subsystem, category)
        if kind == .event && duration != 0 { throw scanner.error("an event signpost has duration 0, this one \(duration)") }
        try next(8)
        row.beginMessage = try string()
        try next(9)
        row.endMessage = try string()
        try next(10)
        // A hex string: os_signpost_id_t is 64 bits unsigned, more than a JSON integer safely holds.
        let idOffset = try tokenOffset()
        let idText = String(decoding: try scanner.readStringBytes(), as: UTF8.self)
        guard idText.hasPrefix("0x"), let id = UInt64(idText.dropFirst(2), radix: 16) else {
            throw OffsetError(offset: idOffset, message: "signpostID should be a hex string like \"0x1f\", found \"\(idText)\"")
        }
        row.signpostID = id
        builder.addSignpost(row)
    }

    private static func wireNames<Value>(_ values: [Value], _ name: (Value) -> String) -> [(bytes: [UInt8], value: Value)] {
        values.map { (Array(name($0).utf8), $0) }
    }

    private static let updateKinds = wireNames(UpdateKind.allCases, \.wireName)
    private static let sourceSeverities = wireNames(SourceSeverity.allCases, \.wireName)
    private static let nodeKinds = wireNames(NodeKind.allCases, \.wireName)
    private static let edgeLabels = wireNames(EdgeLabel.allCases, \.wireName)
    private static let taskStates = wireNames(SwiftTaskState.allCases, \.wireName)
    private static let signpostKinds = wireNames(SignpostKind.allCases, \.wireName)
}

extension NativeTraceFormat.Table {
    var index: Int {
        switch self {
        case .processes: 0
        case .threads: 1
        case .updateGroups: 2
        case .updates: 3
        case .nodes: 4
        case .edges: 5
        case .frames: 6
        case .stacks: 7
        case .stateChanges: 8
        case .samples: 9
        case .hitches: 10
        case .hangs: 11
        case .tasks: 12
        case .taskStates: 13
        case .signposts: 14
        case .hangRisks: 15
        }
    }

    /// What one row is called in messages.
    var rowNoun: String {
        switch self {
        case .processes: "process"
        case .threads: "thread"
        case .updateGroups: "update group"
        case .updates: "update"
        case .nodes: "node"
        case .edges: "edge"
        case .frames: "frame"
        case .stacks: "stack"
        case .stateChanges: "state change"
        case .samples: "sample"
        case .hitches: "hitch"
        case .hangs: "hang"
        case .tasks: "task"
        case .taskStates: "task state"
        case .signposts: "signpost"
        case .hangRisks: "hang risk"
        }
    }
}

extension OffsetError {
    func prefixed(_ prefix: String) -> OffsetError {
        OffsetError(offset: offset, message: prefix + message, field: field)
    }
}
