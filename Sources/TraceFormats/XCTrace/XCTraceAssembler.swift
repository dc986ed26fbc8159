import TraceModel

/// Builds the model from the rows of the SwiftUI template's tables, in whatever order the
/// tables come. Rows that refer to other tables (an update's group, a graph node's update,
/// a change's node) are held until `finish()`, when every table has been read.
final class XCTraceAssembler {
    @exclusivity(unchecked) private var builder: TraceBuilder
    @exclusivity(unchecked) private var notes: [String] = []
    @exclusivity(unchecked) private var tablesRead: [String: Int] = [:]
    @exclusivity(unchecked) private var tablesSkipped: [String: Int] = [:]
    private var repeatedTables: Set<String> = []
    /// Tables of contents by run (a several-run export has one per run).
    @exclusivity(unchecked) private var tocByRun: [Int: TableOfContents] = [:]
    /// The chosen run's table of contents.
    private var toc: TableOfContents? { tocByRun[wantedRun] }

    @exclusivity(unchecked) private var table: TableKind?
    /// Column index of each `Field` in the current table, or -1.
    @exclusivity(unchecked) private var columnOfField: [Int] = []
    @exclusivity(unchecked) private var tableName = ""
    /// The row being assembled and the values it refers to, loaded by the importer.
    let values = XCTraceValues()

    // Conversions remembered per value of the current <node> (ids restart in every node).
    // Arrays indexed by kept value (`ValueRef >= 0`), `notYet` where not converted yet.
    @exclusivity(unchecked) private var threadOfValue: [Int32] = []
    @exclusivity(unchecked) private var stackOfValue: [Int32] = []
    @exclusivity(unchecked) private var frameOfValue: [Int32] = []
    @exclusivity(unchecked) private var nodeOfValue: [GraphNodeText?] = []
    @exclusivity(unchecked) private var taskOfValue: [Int32] = []
    @exclusivity(unchecked) private var fmtOfValue: [Int32] = []
    /// Builder task row of each (process, runtime task id), for the whole import: the runtime
    /// numbers tasks per process, so two processes of one recording can both have a task 7.
    @exclusivity(unchecked) private var taskByKey: [TaskKey: UInt32] = [:]
    // ...and per text and thread for the whole import.
    @exclusivity(unchecked) private var stringOfText: [StringRef] = []
    // By text id (nil: not converted yet): an array index per row instead of a hashed lookup.
    @exclusivity(unchecked) private var updateKindOfText: [UpdateKind?] = []
    @exclusivity(unchecked) private var severityOfText: [SourceSeverity?] = []
    @exclusivity(unchecked) private var edgeLabelOfText: [EdgeLabel?] = []
    @exclusivity(unchecked) private var threadByKey: [ThreadKey: Int32] = [:]
    @exclusivity(unchecked) private var processByPID: [Int32: UInt32] = [:]
    @exclusivity(unchecked) private var processNames: [UInt32: String] = [:]
    @exclusivity(unchecked) private var processPIDs: [Int32] = []
    @exclusivity(unchecked) private var threadProcesses: [UInt32] = []
    @exclusivity(unchecked) private var latestEnd: Nanoseconds = 0
    @exclusivity(unchecked) private var updatesPerProcess: [UInt32: Int] = [:]
    /// CPU samples per thread row (to name the app of an export without updates or toc).
    @exclusivity(unchecked) private var samplesPerThread: [Int] = []

    @exclusivity(unchecked) private var groups: [(start: Nanoseconds, end: Nanoseconds, thread: Int32)] = []
    @exclusivity(unchecked) private var updates = AppendOnlyList<PendingUpdate>()
    /// SwiftUIFilteredUpdates' rows (used only without swiftui-updates) and the ids seen in them
    /// (its three filters partition the updates; a repeated instance adds none twice).
    @exclusivity(unchecked) private var filteredUpdates = AppendOnlyList<PendingUpdate>()
    @exclusivity(unchecked) private var filteredIDs = Set<Int64>()
    /// The layout table read (27 writes the same rows as swiftui-layout-updates and
    /// SwiftUILayoutUpdates2, which has `depth` too: that one is kept when both come).
    @exclusivity(unchecked) private var layoutUpdates = AppendOnlyList<PendingUpdate>()
    @exclusivity(unchecked) private var layoutTable: String?
    /// The graph node each layout update names as its cause (`full-cause-graph-node`), by index
    /// into `layoutUpdates`: joined to the cause graph once the graph is read.
    @exclusivity(unchecked) private var layoutCauses = AppendOnlyList<(layoutUpdate: Int, cause: GraphNodeText)>()
    @exclusivity(unchecked) private var hangRiskRows = 0
    @exclusivity(unchecked) private var graphs = [GraphBuffer(), GraphBuffer()]
    @exclusivity(unchecked) private var changes: [PendingChange] = []
    @exclusivity(unchecked) private var samplesWithoutStack = 0
    /// Task states by the text of those this model does not know, and how many rows had each.
    @exclusivity(unchecked) private var unknownTaskStates: [String: Int] = [:]
    /// Samples weighted in cycles (the CPU Profiler's `cpu-profile`): used only when no table
    /// weighted in time was read, so that the two units are never added together.
    @exclusivity(unchecked) private var cycleSamples: [(time: Nanoseconds, thread: Int32, weight: Int64, stack: UInt32)] = []
    /// The sample table read in each unit (one each: two tables of a unit sample the same CPU).
    @exclusivity(unchecked) private var timeSampleTable: String?
    @exclusivity(unchecked) private var cycleSampleTable: String?
    /// True while reading a sample table whose weight column counts cycles.
    @exclusivity(unchecked) private var weightIsCycles = false

    /// The run to read (`?run=N`, `--run N`); nil reads the run of the first table, run 1 in an
    /// export of several runs (a bundle of run 2 alone, as the export script makes it, reads run 2).
    private let requestedRun: Int?
    @exclusivity(unchecked) private var firstTableRun: Int?
    private var wantedRun: Int { requestedRun ?? firstTableRun ?? 1 }
    /// Runs the export holds tables of.
    @exclusivity(unchecked) private var runsSeen: Set<Int> = []

    enum TableKind {
        case updates, filteredUpdates, layoutUpdates, hangRisks, updateGroups, causes, fullCauses, changes, timeProfile, hangs, hitches, taskStates, taskInfo, taskLifetime
        case signpostEvents, signpostIntervals, pointsOfInterest
    }

    /// The tables read, by schema name (docs/xctrace-import.md lists them: a test checks it).
    static let tableKinds: [String: TableKind] = [
        "swiftui-updates": .updates, "swiftui-update-groups": .updateGroups,
        // Instruments 27: the updates of swiftui-updates filtered three ways (read when it is absent);
        // the layout pass (26 and 27; 27 writes it twice, SwiftUILayoutUpdates2 with `depth`);
        // what risked a hang, with its backtrace.
        "SwiftUIFilteredUpdates": .filteredUpdates,
        "swiftui-layout-updates": .layoutUpdates, "SwiftUILayoutUpdates2": .layoutUpdates,
        "hang-risks": .hangRisks, "swiftui-causes": .causes,
        "swiftui-full-causes": .fullCauses, "swiftui-changes": .changes, "time-profile": .timeProfile,
        // The CPU Profiler's table: the same columns as time-profile, its weight in cycles.
        "cpu-profile": .timeProfile,
        "potential-hangs": .hangs, "hitches": .hitches,
        "SwiftTaskStateTable": .taskStates, "SwiftTasksInfoTable": .taskInfo, "SwiftTaskLifetime": .taskLifetime,
        // os_signpost: the raw begin / end / event rows, the intervals Instruments paired, and Points of Interest events.
        "os-signpost": .signpostEvents, "os-signpost-interval": .signpostIntervals, "OSSignpostIntervals": .signpostIntervals,
        "PointsOfInterestEvents": .pointsOfInterest,
    ]

    /// Columns without which a table's rows mean nothing.
    private static let requiredColumns: [TableKind: [Field]] = [
        .updates: [.start, .duration], .filteredUpdates: [.start, .duration], .layoutUpdates: [.start, .duration],
        .hangRisks: [.time], .updateGroups: [.start, .duration],
        .causes: [.sourceEvent, .destinationEvent], .fullCauses: [.sourceEvent, .destinationEvent],
        .changes: [.timestamp], .timeProfile: [.time, .stack], .hangs: [.start, .duration], .hitches: [.start, .duration],
        .taskStates: [.start, .duration, .task, .state], .taskInfo: [.swiftTask], .taskLifetime: [.start, .duration, .task],
        .signpostEvents: [.time, .eventType, .name], .signpostIntervals: [.start, .duration, .name], .pointsOfInterest: [.time, .name],
    ]

    /// The columns the importer reads; `rawValue` indexes `columnOfField`.
    private enum Field: Int, CaseIterable {
        case start, duration, id, allocations, description, category, module, thread, severity, label, timestamp
        case backtrace, time, weight, stack, updateType, viewName, hangType, isSystem
        case sourceEvent, sourceNode, destinationEvent, destinationNode, changedProperties, narrativeDescription
        case task, enqueuedActor, actor, state, priority, resumeFunction, waitingFor, suspendBacktrace, narrative, swiftTask
        case pid
        case selfDuration, depth, cached, downstreamCost, downstreamEvents, fullCauseGraphNode
        case eventType, identifier, name, subsystem, message, startMessage, endMessage, process, startThread

        var mnemonic: String {
            switch self {
            case .sourceEvent: "source-node-event-id"
            case .destinationEvent: "destination-node-event-id"
            // SwiftTasksInfoTable's `task` column is a `swift-task` with the name and creation backtrace.
            case .swiftTask: "task"
            default: XCTraceVocabulary.spelling(ofCase: "\(self)")
            }
        }
    }

    private struct ThreadKey: Hashable { var pid: Int32, tid: Int64 }
    private struct TaskKey: Hashable { var pid: Int32, taskID: Int64 }

    private struct GraphNodeText {
        var kind: NodeKind
        var name: StringRef
        var owner: StringRef
        var isAppCode: Bool
    }

    private struct PendingUpdate {
        var start: Nanoseconds, duration: Nanoseconds
        var eventID: Int64?
        var kind: UpdateKind, severity: SourceSeverity
        var module: StringRef, viewName: StringRef, description: StringRef, category: StringRef
        var allocations: UInt32, thread: Int32
        /// Instruments 27's optional measures (-1: not in the row).
        var selfDuration: Nanoseconds = -1, downstreamCost: Nanoseconds = -1
        var depth: Int32 = -1, downstreamEvents: Int32 = -1
        var cached: Int8 = -1
    }

    private struct LayoutPass {
        var row: Int32, eventID: Int64?, start: Nanoseconds, view: StringRef, thread: Int32
    }

    private struct PendingChange {
        var timestamp: Nanoseconds, eventID: Int64, description: StringRef, stack: Int32, thread: Int32
        var row: Int
    }

    private struct GraphBuffer {
        var nodeOfEvent = Int64Map()
        var nodes = AppendOnlyList<(text: GraphNodeText, eventID: Int64, timestamp: Nanoseconds)>()
        var edges = AppendOnlyList<(source: Int, target: Int, label: EdgeLabel, changedProperty: StringRef, timestamp: Nanoseconds)>()

        mutating func node(eventID: Int64, text: GraphNodeText, timestamp: Nanoseconds) -> Int {
            if let node = nodeOfEvent[eventID].map(Int.init) {
                nodes[node].timestamp = min(nodes[node].timestamp, timestamp)
                return node
            }
            nodes.append((text, eventID, timestamp))
            nodeOfEvent.set(Int32(nodes.count - 1), for: eventID)
            return nodes.count - 1
        }
    }

    init(metadata: TraceMetadata, run: Int? = nil) {
        builder = TraceBuilder(metadata: metadata)
        requestedRun = run
    }

    // MARK: Tables

    func tableOfContents(_ toc: TableOfContents) {
        tocByRun[toc.run ?? 1] = toc
    }

    /// Each file of a bundle has its own text pool.
    func beginDocument() {
        stringOfText.removeAll()
        updateKindOfText.removeAll()
        severityOfText.removeAll()
        edgeLabelOfText.removeAll()
    }

    /// Whether the table's rows are read.
    func beginTable(_ schema: TableSchema) -> Bool {
        threadOfValue.removeAll(keepingCapacity: true)
        stackOfValue.removeAll(keepingCapacity: true)
        frameOfValue.removeAll(keepingCapacity: true)
        nodeOfValue.removeAll(keepingCapacity: true)
        taskOfValue.removeAll(keepingCapacity: true)
        fmtOfValue.removeAll(keepingCapacity: true)
        // Runs are separate recordings: only the chosen one is read (a node without a run is run 1).
        let run = schema.run ?? 1
        runsSeen.insert(run)
        if firstTableRun == nil { firstTableRun = run }
        guard run == wantedRun else {
            table = nil
            return false
        }
        guard let kind = Self.tableKinds[schema.name] else {
            tablesSkipped[schema.name, default: 0] += 1
            table = nil
            return false
        }
        // A second copy of a table of the same run (a file joined with itself) would double
        // every count: the first is read, the note says so.
        guard tablesRead[schema.name] == nil || kind == .filteredUpdates else {
            if repeatedTables.insert(schema.name).inserted {
                notes.append("The export holds table \(schema.name) more than once in run \(run) (a file joined with itself?): only the first was read.")
            }
            table = nil
            return false
        }
        columnOfField = Field.allCases.map { field in schema.column(field.mnemonic) ?? -1 }
        let missing = (Self.requiredColumns[kind] ?? []).filter { columnOfField[$0.rawValue] < 0 }
        guard missing.isEmpty else {
            notes.append("Skipped table \(schema.name): it has no \(missing.map(\.mnemonic).joined(separator: ", ")) column.")
            table = nil
            return false
        }
        if kind == .layoutUpdates {
            if let first = layoutTable {
                guard first != "SwiftUILayoutUpdates2", schema.name == "SwiftUILayoutUpdates2" else {
                    notes.append("Skipped table \(schema.name): its layout updates are those of \(first), already read.")
                    table = nil
                    return false
                }
                notes.append("Skipped table \(first): its layout updates are those of SwiftUILayoutUpdates2, which has their depth too.")
                layoutUpdates = AppendOnlyList()
                layoutCauses = AppendOnlyList()
                tablesRead[first] = nil
            }
            layoutTable = schema.name
        }
        if kind == .timeProfile {
            // The column's engineering type says what a weight counts, whatever the table's name.
            let weightColumn = columnOfField[Field.weight.rawValue]
            weightIsCycles = weightColumn >= 0 && schema.columns[weightColumn].engineeringType == "cycle-weight"
            // Two sample tables of the same recording sample the same CPU: one of them is read.
            if let first = weightIsCycles ? cycleSampleTable : timeSampleTable {
                notes.append("Skipped table \(schema.name): its CPU samples are those of \(first), already read.")
                table = nil
                return false
            }
            if weightIsCycles { cycleSampleTable = schema.name } else { timeSampleTable = schema.name }
        }
        table = kind
        tableName = schema.name
        tablesRead[schema.name, default: 0] += 1
        return true
    }

    func endTable() {
        table = nil
    }

    /// The row in `values`.
    func row() throws {
        guard let table else { return }
        switch table {
        case .updates: try readUpdate(into: &updates)
        case .filteredUpdates:
            if let id = try optionalNumber(.id), !filteredIDs.insert(id).inserted { return }
            try readUpdate(into: &filteredUpdates)
        case .layoutUpdates:
            try readUpdate(into: &layoutUpdates, kind: .layout)
            // A layout row's graph node is the node whose change caused the pass ("TripListView, blue, square").
            if columnOfField[Field.fullCauseGraphNode.rawValue] >= 0 {
                let cell = cell(.fullCauseGraphNode)
                if values.value(cell) != nil {
                    let cause = nodeText(cell)
                    if cause.name != 0 { layoutCauses.append((layoutUpdates.count - 1, cause)) }
                }
            }
        case .hangRisks: try readHangRisk()
        case .updateGroups: try readUpdateGroup()
        case .causes: try readCause(into: 0)
        case .fullCauses: try readCause(into: 1)
        case .changes: try readChange()
        case .timeProfile: try readSample()
        case .hangs: try readHang()
        case .hitches: try readHitch()
        case .taskStates: try readTaskState()
        case .taskInfo: readTaskInfo()
        case .taskLifetime: try readTaskLifetime()
        case .signpostEvents: try readSignpostEvent()
        case .signpostIntervals: try readSignpostInterval()
        case .pointsOfInterest: try readPointOfInterest()
        }
    }

    // MARK: Signposts

    private enum SignpostEventType { case begin, end, event }

    /// A row of `os-signpost`: paired into intervals in `finish()`, once every row is known.
    private struct PendingSignpost {
        var time: Nanoseconds
        var type: SignpostEventType
        var process: Int32, thread: Int32
        var subsystem: StringRef, category: StringRef, name: StringRef, message: StringRef
        var id: UInt64
    }

    @exclusivity(unchecked) private var pendingSignposts: [PendingSignpost] = []
    @exclusivity(unchecked) private var pairedSignpostIntervals = 0
    @exclusivity(unchecked) private var pointsOfInterest: [SignpostRow] = []

    private func readSignpostEvent() throws {
        let time = try time(.time)
        latestEnd = max(latestEnd, time)
        let typeText = (values.fmt(cell(.eventType)) ?? values.string(cell(.eventType)) ?? "").lowercased()
        let type: SignpostEventType
        if typeText.hasPrefix("begin") || typeText.hasPrefix("interval begin") || typeText.hasPrefix("start") {
            type = .begin
        } else if typeText.hasPrefix("end") || typeText.hasPrefix("interval end") {
            type = .end
        } else if typeText.hasPrefix("event") || typeText.isEmpty {
            type = .event
        } else {
            throw fail(.eventType, "event-type should be Begin, End or Event, found \"\(typeText)\"")
        }
        let thread = thread(cell(.thread))
        pendingSignposts.append(PendingSignpost(
            time: time, type: type, process: signpostProcess(cell(.process), thread: thread), thread: thread,
            subsystem: formatted(cell(.subsystem)), category: formatted(cell(.category)), name: formatted(cell(.name)),
            message: formatted(cell(.message)), id: signpostID(cell(.identifier))
        ))
    }

    private func readSignpostInterval() throws {
        let start = try time(.start)
        let duration = try duration(.duration)
        latestEnd = max(latestEnd, start + duration)
        let startThread = cell(.startThread)
        let thread = thread(values.value(startThread) == nil ? cell(.thread) : startThread)
        var row = SignpostRow(start: start, duration: duration, kind: .interval, name: formatted(cell(.name)))
        row.process = signpostProcess(cell(.process), thread: thread)
        row.thread = thread
        row.subsystem = formatted(cell(.subsystem))
        row.category = formatted(cell(.category))
        row.beginMessage = formatted(cell(.startMessage))
        row.endMessage = formatted(cell(.endMessage))
        row.signpostID = signpostID(cell(.identifier))
        builder.addSignpost(row)
        pairedSignpostIntervals += 1
    }

    /// `PointsOfInterestEvents`: instants of the Points of Interest category (the table has no category column).
    private func readPointOfInterest() throws {
        let time = try time(.time)
        latestEnd = max(latestEnd, time)
        let thread = thread(cell(.thread))
        var row = SignpostRow(start: time, duration: 0, kind: .event, name: formatted(cell(.name)))
        row.process = signpostProcess(cell(.process), thread: thread)
        row.thread = thread
        row.subsystem = formatted(cell(.subsystem))
        row.category = builder.intern(SignpostLane.pointsOfInterestCategory)
        row.beginMessage = formatted(cell(.message))
        row.signpostID = signpostID(cell(.identifier))
        pointsOfInterest.append(row)
    }

    /// The process of a signpost: its own column, else its thread's.
    private func signpostProcess(_ value: ValueRef, thread: Int32) -> Int32 {
        if values.tag(value) == XMLName.process.rawValue { return Int32(process(value)) }
        return thread == noRow ? noRow : Int32(threadProcesses[Int(thread)])
    }

    /// An `os-signpost-identifier`: a number, a hex text ("0xeeeeb0b5b2b00000"), or any other text (hashed, stable).
    private func signpostID(_ value: ValueRef) -> UInt64 {
        if let number = values.number(value) { return UInt64(bitPattern: number) }
        guard let text = values.string(value) ?? values.fmt(value), !text.isEmpty else { return 0 }
        if text.hasPrefix("0x"), let hex = UInt64(text.dropFirst(2), radix: 16) { return hex }
        if let decimal = UInt64(text) { return decimal }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// Pairs `os-signpost` begins with ends by (process, signpost id, name), in time order; a
    /// begin without an end runs to `traceEnd`. Intervals already paired by Instruments
    /// (`os-signpost-interval`) win over pairing here; `os-signpost` events win over Points of Interest.
    private func addPendingSignposts() {
        struct Key: Hashable { var process: Int32, id: UInt64, name: StringRef }
        let pairHere = pairedSignpostIntervals == 0
        if !pairHere, pendingSignposts.contains(where: { $0.type != .event }) {
            notes.append("os-signpost: intervals were read from the paired interval table; its begin and end rows were not paired again.")
        }
        if !pendingSignposts.isEmpty, !pointsOfInterest.isEmpty {
            notes.append("PointsOfInterestEvents: not read, its events are os-signpost events already read.")
            pointsOfInterest = []
        }
        for row in pointsOfInterest { builder.addSignpost(row) }
        pointsOfInterest = []
        let order = pendingSignposts.indices.sorted { (pendingSignposts[$0].time, $0) < (pendingSignposts[$1].time, $1) }
        var open: [Key: [Int]] = [:]
        var endsWithoutBegin = 0
        var traceEnd = latestEnd
        if builder.metadata.end > builder.metadata.start { traceEnd = max(traceEnd, builder.metadata.end) }
        func row(_ pending: PendingSignpost, duration: Nanoseconds, kind: SignpostKind) -> SignpostRow {
            var row = SignpostRow(start: pending.time, duration: duration, kind: kind, name: pending.name)
            row.process = pending.process
            row.thread = pending.thread
            row.subsystem = pending.subsystem
            row.category = pending.category
            row.beginMessage = pending.message
            row.signpostID = pending.id
            return row
        }
        for index in order {
            let pending = pendingSignposts[index]
            let key = Key(process: pending.process, id: pending.id, name: pending.name)
            switch pending.type {
            case .event:
                builder.addSignpost(row(pending, duration: 0, kind: .event))
            case .begin where pairHere:
                open[key, default: []].append(index)
            case .end where pairHere:
                guard let begin = open[key]?.popLast() else {
                    endsWithoutBegin += 1
                    continue
                }
                let beginRow = pendingSignposts[begin]
                var interval = row(beginRow, duration: pending.time - beginRow.time, kind: .interval)
                interval.endMessage = pending.message
                builder.addSignpost(interval)
            default:
                break
            }
        }
        var unended: [String] = []
        for begin in open.values.flatMap({ $0 }).sorted() {
            let beginRow = pendingSignposts[begin]
            builder.addSignpost(row(beginRow, duration: max(0, traceEnd - beginRow.time), kind: .unended))
            unended.append(builder.stringOf(beginRow.name))
        }
        if !unended.isEmpty {
            let names = Array(Set(unended)).sorted()
            notes.append("os-signpost: \(unended.count) interval\(unended.count == 1 ? "" : "s") began but never ended (\(names.prefix(5).joined(separator: ", "))\(names.count > 5 ? ", …" : "")): drawn to the end of the recording.")
        }
        if endsWithoutBegin > 0 {
            notes.append("os-signpost: \(endsWithoutBegin) interval end\(endsWithoutBegin == 1 ? "" : "s") without a begin (begun before the recording started) left out.")
        }
        pendingSignposts = []
    }

    // MARK: Swift tasks

    private func readTaskState() throws {
        let start = try time(.start)
        let duration = try duration(.duration)
        guard let task = task(cell(.task)) else { return }
        latestEnd = max(latestEnd, start + duration)
        let stateText = values.string(cell(.state)) ?? values.fmt(cell(.state)) ?? ""
        let state = SwiftTaskState(title: stateText)
        if state == nil { unknownTaskStates[stateText, default: 0] += 1 }
        var row = SwiftTaskStateRow(start: start, duration: duration, task: task, state: state ?? .unknown)
        // The acquired actor for running intervals, the one enqueued on for waits.
        let acquired = cell(.actor)
        let actorValue = values.value(acquired) == nil ? cell(.enqueuedActor) : acquired
        row.actor = formatted(actorValue)
        row.isMainActor = values.fmt(actorValue).map(TraceBuilder.isMainActorName) ?? false
        row.priority = formatted(cell(.priority))
        row.resumeFunction = formatted(cell(.resumeFunction))
        row.waitingFor = self.task(cell(.waitingFor)).map { Int32($0) } ?? noRow
        row.suspendBacktrace = stack(cell(.suspendBacktrace))
        row.thread = thread(cell(.thread))
        row.narrative = formatted(cell(.narrative))
        builder.describeTask(task, creationBacktrace: stack(cell(.backtrace)))
        builder.addTaskState(row)
    }

    /// SwiftTasksInfoTable: a task's name (a `.task` modifier's "View.task @ File.swift:41") and creation backtrace.
    private func readTaskInfo() {
        let value = cell(.swiftTask)
        guard let task = task(value) else { return }
        let children = values.children(value)
        let name = children.first { values.tagName($0) == "string" }.map(stringRef) ?? 0
        let backtrace = children.first { values.tagName($0) == "text-backtrace" }.map(stack) ?? noRow
        builder.describeTask(task, name: name, creationBacktrace: backtrace)
    }

    private func readTaskLifetime() throws {
        let start = try time(.start)
        let duration = try duration(.duration)
        guard let task = task(cell(.task)) else { return }
        latestEnd = max(latestEnd, start + duration)
        builder.describeTask(task, lifetime: (start, start + duration))
    }

    /// The builder row of an `analysis-core-swift-task` / `swift-task` value (added when new), or nil for an empty cell.
    /// The task's process is the value's own `process` (SwiftTaskStateTable, SwiftTaskLifetime),
    /// else the row's `process` or `pid` column (SwiftTasksInfoTable's `swift-task` has none).
    private func task(_ value: ValueRef) -> UInt32? {
        if let known = recalled(taskOfValue, value) { return known == noRow ? nil : UInt32(known) }
        guard values.value(value) != nil else { return nil }
        let ownProcess = values.child(value, tag: .process)
        let owner = ownProcess.map { process($0) } ?? rowProcess()
        let formattedText = values.fmt(value) ?? ""
        let idValue = values.children(value).first { values.tagName($0) == "swift-task-id" }
        // "View.task @ Landmarks/DetailView.swift:41 (412)": the id in parentheses, the name before it.
        var name = Substring(formattedText)
        var parsedID: Int64?
        if name.hasSuffix(")"), let open = name.range(of: " (", options: .backwards) {
            parsedID = Int64(name[open.upperBound...].dropLast())
            name = name[..<open.lowerBound]
        }
        guard let taskID = idValue.flatMap(values.number) ?? parsedID ?? values.number(value) else {
            remember(&taskOfValue, value, noRow)
            return nil
        }
        let key = TaskKey(pid: owner == noProcess ? -1 : processPIDs[Int(owner)], taskID: taskID)
        let row: UInt32
        if let known = taskByKey[key] {
            row = known
        } else {
            // An address ("0x233900c80") is no name.
            let title = name.hasPrefix("0x") ? "" : String(name)
            row = builder.addTask(taskID: taskID, process: owner == noProcess ? noRow : Int32(owner), name: builder.intern(title))
            taskByKey[key] = row
        }
        // A value without its own process may recur in a row of another process: not remembered.
        if ownProcess != nil { remember(&taskOfValue, value, Int32(row)) }
        return row
    }

    /// The process of the current row (its `process` column, else its `pid`), or `noProcess`.
    private func rowProcess() -> UInt32 {
        for field in [Field.process, .pid] {
            let value = cell(field)
            if values.value(value) != nil { return process(value) }
        }
        return noProcess
    }

    /// The builder string of a value's `fmt` (what Instruments displays), or 0 for an empty cell.
    private func formatted(_ value: ValueRef) -> StringRef {
        if let known = recalled(fmtOfValue, value) { return StringRef(known) }
        guard let text = values.fmt(value) else { return 0 }
        let ref = builder.intern(text)
        remember(&fmtOfValue, value, Int32(clamping: ref))
        return ref
    }

    /// A row of swiftui-updates, SwiftUIFilteredUpdates or a layout table (`kind`: the layout
    /// tables have no update-type column; all their rows are layout).
    private func readUpdate(into list: inout AppendOnlyList<PendingUpdate>, kind: UpdateKind? = nil) throws {
        let thread = thread(cell(.thread))
        if thread != noRow { updatesPerProcess[threadProcesses[Int(thread)], default: 0] += 1 }
        let start = try time(.start)
        let duration = try duration(.duration)
        latestEnd = max(latestEnd, start + duration)
        var update = PendingUpdate(
            start: start, duration: duration, eventID: try optionalNumber(.id),
            kind: kind ?? memoized(&updateKindOfText, cell(.updateType), XCTraceVocabulary.updateKind),
            severity: memoized(&severityOfText, cell(.severity), XCTraceVocabulary.severity),
            module: string(.module), viewName: string(.viewName), description: string(.description),
            category: string(.category), allocations: UInt32(clamping: try optionalNumber(.allocations) ?? 0),
            thread: thread
        )
        // Instruments 27's columns, absent from 26's tables (a missing column costs a compare).
        if columnOfField[Field.selfDuration.rawValue] >= 0, let own = try optionalNumber(.selfDuration) {
            update.selfDuration = try checkedDuration(.selfDuration, own)
        }
        if columnOfField[Field.depth.rawValue] >= 0, let depth = try optionalNumber(.depth) {
            update.depth = Int32(clamping: max(0, depth))
        }
        if columnOfField[Field.cached.rawValue] >= 0, let cached = try optionalNumber(.cached) { update.cached = cached != 0 ? 1 : 0 }
        if columnOfField[Field.downstreamCost.rawValue] >= 0, let cost = try optionalNumber(.downstreamCost) {
            update.downstreamCost = try checkedDuration(.downstreamCost, cost)
            update.downstreamEvents = Int32(clamping: downstreamEventCount(cell(.downstreamEvents)))
        }
        list.append(update)
    }

    /// `downstream-events` is a cause-set of the event ids an update made run ("8 events"):
    /// their number; 0 for an empty cell beside a cost.
    private func downstreamEventCount(_ value: ValueRef) -> Int {
        guard values.value(value) != nil else { return 0 }
        let children = values.children(value)
        if !children.isEmpty { return children.count }
        let text = values.fmt(value) ?? values.string(value) ?? ""
        return Int(text.prefix { $0.isNumber }) ?? 0
    }

    /// A row of hang-risks: an instant the recording flagged ("Main thread performed file I/O …").
    private func readHangRisk() throws {
        let time = try time(.time)
        latestEnd = max(latestEnd, time)
        builder.addHangRisk(
            time: time, message: formattedOrText(cell(.message)), severity: formattedOrText(cell(.severity)),
            eventType: formattedOrText(cell(.eventType)), backtrace: stack(cell(.backtrace)), thread: thread(cell(.thread))
        )
        hangRiskRows += 1
    }

    /// A cell's raw text, else its `fmt`; "" for an empty cell.
    private func formattedOrText(_ value: ValueRef) -> StringRef {
        values.textID(value) != nil ? stringRef(value) : formatted(value)
    }

    /// A layout pass's cause joins the cause graph: the pass becomes a node (of the layout's view,
    /// "Layout" below its title) with an edge from the node that caused it. The export names that
    /// node by its title only, so the cause is the latest node of that title at or before the pass
    /// (SwiftUI lays out after the change that asked for it), else a node of its own made once.
    private func joinLayoutCauses(
        _ passes: [LayoutPass], graph: GraphBuffer, builderNode: [UInt32], nodeTimes: [Nanoseconds],
        group: (Nanoseconds, Int32) -> Int32
    ) {
        guard !layoutCauses.isEmpty else { return }
        struct Title: Hashable { var kind: NodeKind, name: StringRef, isAppCode: Bool }
        var nodesOfTitle: [Title: [(time: Nanoseconds, node: UInt32)]] = [:]
        for (index, node) in graph.nodes.enumerated() {
            nodesOfTitle[Title(kind: node.text.kind, name: node.text.name, isAppCode: node.text.isAppCode), default: []]
                .append((nodeTimes[index], builderNode[index]))
        }
        for key in nodesOfTitle.keys { nodesOfTitle[key]!.sort { ($0.time, $0.node) < ($1.time, $1.node) } }
        let layoutTitle = builder.intern("Layout")
        // Ids no export gives (they are negative) for the nodes made here.
        var madeEventID: Int64 = -1
        for (layoutUpdate, cause) in layoutCauses {
            guard layoutUpdate < passes.count else { continue }
            let pending = passes[layoutUpdate]
            // A pass the graph already has (its id is a node's event) is joined by that id.
            if let eventID = pending.eventID, graph.nodeOfEvent[eventID] != nil { continue }
            let title = Title(kind: cause.kind, name: cause.name, isAppCode: cause.isAppCode)
            var candidates = nodesOfTitle[title] ?? []
            var low = 0, high = candidates.count
            while low < high {
                let mid = (low + high) / 2
                if candidates[mid].time <= pending.start { low = mid + 1 } else { high = mid }
            }
            let causeNode: UInt32
            if low > 0 {
                causeNode = candidates[low - 1].node
            } else {
                causeNode = builder.addNode(
                    kind: cause.kind, name: cause.name, owner: cause.owner, isAppCode: cause.isAppCode,
                    eventID: madeEventID, timestamp: pending.start
                )
                madeEventID -= 1
                candidates.insert((pending.start, causeNode), at: 0)
                nodesOfTitle[title] = candidates
            }
            let passNode = builder.addNode(
                kind: .other, name: pending.view, owner: layoutTitle, isAppCode: false,
                eventID: pending.eventID ?? madeEventID, timestamp: pending.start, update: pending.row
            )
            if pending.eventID == nil { madeEventID -= 1 }
            builder.addEdge(
                source: causeNode, target: passNode, label: .update, timestamp: pending.start,
                group: group(pending.start, pending.thread)
            )
        }
        layoutCauses = AppendOnlyList()
    }

    private func readUpdateGroup() throws {
        let start = try time(.start)
        let duration = try duration(.duration)
        let thread = thread(cell(.thread))
        latestEnd = max(latestEnd, start + duration)
        builder.addUpdateGroup(start: start, duration: duration, label: string(.label), thread: thread)
        groups.append((start, start + duration, thread))
    }

    private func readCause(into graph: Int) throws {
        let timestamp = try optionalNumber(.timestamp) ?? 0
        let source = try graphNode(event: .sourceEvent, node: .sourceNode, graph: graph, timestamp: timestamp)
        let target = try graphNode(event: .destinationEvent, node: .destinationNode, graph: graph, timestamp: timestamp)
        graphs[graph].edges.append((
            source, target, memoized(&edgeLabelOfText, cell(.label), XCTraceVocabulary.edgeLabel),
            string(.changedProperties), timestamp
        ))
    }

    private func graphNode(event: Field, node: Field, graph: Int, timestamp: Nanoseconds) throws -> Int {
        let eventID = try requiredNumber(event)
        let text = nodeText(cell(node))
        return graphs[graph].node(eventID: eventID, text: text, timestamp: timestamp)
    }

    private func readChange() throws {
        guard let eventID = try optionalNumber(.id) else { return }
        changes.append(PendingChange(
            timestamp: try time(.timestamp), eventID: eventID, description: string(.description),
            stack: stack(cell(.backtrace)), thread: thread(cell(.thread)), row: values.rowCount
        ))
    }

    private func readSample() throws {
        let stack = stack(cell(.stack))
        guard stack != noRow else {
            samplesWithoutStack += 1
            return
        }
        let time = try time(.time)
        latestEnd = max(latestEnd, time)
        let thread = thread(cell(.thread))
        if thread != noRow {
            if Int(thread) >= samplesPerThread.count { samplesPerThread += repeatElement(0, count: Int(thread) + 1 - samplesPerThread.count) }
            samplesPerThread[Int(thread)] += 1
        }
        if weightIsCycles {
            guard let cycles = try optionalNumber(.weight) else { throw fail(.weight, "weight is empty; every cycle sample needs one") }
            cycleSamples.append((time, thread, try checkedDuration(.weight, cycles), UInt32(stack)))
            return
        }
        builder.addSample(
            time: time, thread: thread,
            weight: try checkedDuration(.weight, optionalNumber(.weight) ?? 1_000_000), stack: UInt32(stack)
        )
    }

    private func readHang() throws {
        let start = try time(.start)
        let duration = try duration(.duration)
        latestEnd = max(latestEnd, start + duration)
        builder.addHang(TimelineInterval(
            start: start, duration: duration,
            kind: values.string(cell(.hangType)) ?? "Hang", detail: "", thread: thread(cell(.thread))
        ))
    }

    private func readHitch() throws {
        let isSystem = (try optionalNumber(.isSystem) ?? 0) != 0
        let start = try time(.start)
        let duration = try duration(.duration)
        latestEnd = max(latestEnd, start + duration)
        builder.addHitch(TimelineInterval(
            start: start, duration: duration,
            kind: XCTraceVocabulary.hitchKind(isSystem: isSystem),
            detail: values.string(cell(.narrativeDescription)) ?? ""
        ))
    }

    // MARK: Cells

    private func cell(_ field: Field) -> ValueRef {
        let index = columnOfField[field.rawValue]
        guard index >= 0, index < values.cellCount else { return missingValue }
        return values.cell(index)
    }

    private func fail(_ field: Field, _ message: String) -> XCTraceValueError {
        let index = max(0, columnOfField[field.rawValue])
        let offset = index < values.cellCount ? values.cellOffset(index) : values.rowOffset
        return XCTraceValueError(offset: offset, table: tableName, field: field.mnemonic, message: message)
    }

    private func requiredNumber(_ field: Field) throws -> Int64 {
        let value = cell(field)
        if let number = values.number(value) { return number }
        if value == sentinelValue || value == missingValue {
            throw fail(field, "\(field.mnemonic) is empty; every row needs one")
        }
        throw fail(field, "\(field.mnemonic) should be a whole number, found <\(values.tagName(value))> \"\(values.string(value) ?? "")\"")
    }

    private func optionalNumber(_ field: Field) throws -> Int64? {
        let value = cell(field)
        if value == sentinelValue || value == missingValue { return nil }
        if let number = values.number(value) { return number }
        throw fail(field, "\(field.mnemonic) should be a whole number, found <\(values.tagName(value))> \"\(values.string(value) ?? "")\"")
    }

    private func time(_ field: Field) throws -> Nanoseconds {
        let value = try requiredNumber(field)
        if !TraceLimits.times.contains(value) { throw fail(field, "\(field.mnemonic) is out of range (\(value) ns)") }
        return value
    }

    private func duration(_ field: Field) throws -> Nanoseconds {
        try checkedDuration(field, requiredNumber(field))
    }

    private func checkedDuration(_ field: Field, _ value: Nanoseconds) throws -> Nanoseconds {
        if value < 0 { throw fail(field, "\(field.mnemonic) is negative (\(value) ns)") }
        if value > TraceLimits.time { throw fail(field, "\(field.mnemonic) is out of range (\(value) ns)") }
        return value
    }

    /// The builder's string for a cell's text ("" for an empty cell).
    private func string(_ field: Field) -> StringRef { stringRef(cell(field)) }

    private func stringRef(_ value: ValueRef) -> StringRef {
        guard let textID = values.textID(value) else {
            return values.number(value).map { builder.intern(String($0)) } ?? 0
        }
        let index = Int(textID)
        if index >= stringOfText.count {
            stringOfText.append(contentsOf: repeatElement(.max, count: index - stringOfText.count + 1))
        }
        if stringOfText[index] == .max { stringOfText[index] = builder.intern(values.strings[Int(textID)]) }
        return stringOfText[index]
    }

    /// A vocabulary conversion of a cell's text, once per distinct text: the same few repeat on every row.
    private func memoized<T>(_ memo: inout [T?], _ value: ValueRef, _ convert: (String) -> T) -> T {
        guard let textID = values.textID(value) else { return convert(values.string(value) ?? "") }
        let index = Int(textID)
        if index < memo.count, let known = memo[index] { return known }
        let converted = convert(values.strings[index])
        if index >= memo.count { memo.append(contentsOf: repeatElement(nil, count: max(index + 1, 2 * memo.count) - memo.count)) }
        memo[index] = converted
        return converted
    }

    // MARK: Composite values

    private func thread(_ value: ValueRef) -> Int32 {
        if let known = recalled(threadOfValue, value) { return known }
        guard values.tag(value) == XMLName.thread.rawValue else { return noRow }
        let tid = values.child(value, tag: .tid).flatMap(values.number) ?? 0
        let process = values.child(value, tag: .process).map(process) ?? noProcess
        let pid = process == noProcess ? -1 : processPIDs[Int(process)]
        let key = ThreadKey(pid: pid, tid: tid)
        let thread: Int32
        if let known = threadByKey[key] {
            thread = known
        } else {
            let name = XCTraceVocabulary.threadName(fromFormatted: values.fmt(value) ?? "")
            let owner = process == noProcess ? unknownProcess() : process
            thread = builder.addThread(TraceThread(tid: tid, name: name, process: owner, isMain: XCTraceVocabulary.isMainThread(name)))
            threadProcesses.append(owner)
            threadByKey[key] = thread
        }
        remember(&threadOfValue, value, thread)
        return thread
    }

    private let noProcess = UInt32.max

    private func process(_ value: ValueRef) -> UInt32 {
        let formatted = values.fmt(value) ?? ""
        let pidValue = values.child(value, tag: .pid).flatMap(values.number) ?? values.number(value)
            ?? Int64(formatted.split(separator: "(").last?.dropLast() ?? "")
        let pid = Int32(clamping: pidValue ?? -1)
        if let known = processByPID[pid] { return known }
        let name = XCTraceVocabulary.processName(fromFormatted: formatted)
        let process = builder.addProcess(TraceProcess(pid: pid, name: name))
        processByPID[pid] = process
        processPIDs.append(pid)
        processNames[process] = name
        return process
    }

    private func unknownProcess() -> UInt32 {
        if let known = processByPID[-1] { return known }
        let process = builder.addProcess(TraceProcess(pid: -1, name: ""))
        processByPID[-1] = process
        processPIDs.append(-1)
        return process
    }

    private func nodeText(_ value: ValueRef) -> GraphNodeText {
        if value >= 0, Int(value) < nodeOfValue.count, let known = nodeOfValue[Int(value)] { return known }
        var parts = values.children(value).map { values.string($0) ?? "" }
        if parts.count < 3 {
            parts = (values.fmt(value) ?? "").components(separatedBy: ", ")
        }
        while parts.count < 3 { parts.append("") }
        let name = parts[0], color = parts[1], symbol = parts[2]
        // The full shape (name, color, symbol, …, event id, value time, update start, update
        // duration) tells a value that changed (a value time, no update) from an update; the
        // short one does not. A body that was notified but did not run has neither.
        func given(_ index: Int) -> Bool { index < parts.count && !parts[index].isEmpty && parts[index] != "n/a" }
        let isValue = parts.count >= 9 && given(6) && !given(7) && !given(8)
        let (kind, owner) = XCTraceVocabulary.nodeKind(name: name, symbol: symbol, isValue: isValue)
        let text = GraphNodeText(kind: kind, name: builder.intern(name), owner: builder.intern(owner), isAppCode: color == "blue")
        if value >= 0 {
            if Int(value) >= nodeOfValue.count { nodeOfValue += repeatElement(nil, count: max(Int(value) + 1, 2 * nodeOfValue.count) - nodeOfValue.count) }
            nodeOfValue[Int(value)] = text
        }
        return text
    }

    /// A `backtrace` or `tagged-backtrace` (frames leaf first) as a stack id, or `noRow`.
    private func stack(_ value: ValueRef) -> Int32 {
        if let known = recalled(stackOfValue, value) { return known }
        guard let tag = values.tag(value) else { return noRow }
        var frames: ArraySlice<ValueRef> = []
        if tag == XMLName.backtrace.rawValue || values.tagName(value) == "text-backtrace" {
            frames = values.children(value)
        } else if tag == XMLName.taggedBacktrace.rawValue {
            frames = values.child(value, tag: .backtrace).map(values.children) ?? values.children(value)
        } else {
            return noRow
        }
        var stack = noRow
        for frameValue in frames.reversed() where values.tag(frameValue) == XMLName.frame.rawValue {
            stack = Int32(builder.addStack(parent: stack, frame: frame(frameValue)))
        }
        remember(&stackOfValue, value, stack)
        return stack
    }

    private func frame(_ value: ValueRef) -> UInt32 {
        if let known = recalled(frameOfValue, value) { return UInt32(known) }
        let name = values.attributes(value).name ?? "???"
        let binary: (name: String?, path: String?) = values.child(value, tag: .binary).map(values.attributes) ?? (nil, nil)
        let binaryName = binary.name ?? ""
        let appName = toc?.processName ?? processNames[0] ?? ""
        let isApp = XCTraceVocabulary.isAppBinary(path: binary.path, name: binaryName, appName: appName)
        let (sourcePath, sourceLine) = source(ofFrame: value)
        let frame = builder.addFrame(
            name: builder.intern(name), binary: builder.intern(binaryName), isAppCode: isApp,
            sourcePath: sourcePath.map { builder.intern($0) } ?? 0, sourceLine: UInt32(clamping: sourceLine)
        )
        remember(&frameOfValue, value, Int32(frame))
        return frame
    }

    /// Instruments 27's `<source line="88"><path>/Users/…/TripCard.swift</path></source>` inside
    /// a frame. `<compiler-generated>` is no file: no source.
    private func source(ofFrame value: ValueRef) -> (path: String?, line: Int) {
        guard let source = values.child(value, tag: .source),
              let path = values.child(source, tag: .path).flatMap(values.string),
              !path.isEmpty, !path.hasPrefix("<") else { return (nil, 0) }
        return (path, values.line(source) ?? 0)
    }

    private static let notYet = Int32.min

    private func recalled(_ memo: [Int32], _ value: ValueRef) -> Int32? {
        guard value >= 0, Int(value) < memo.count else { return nil }
        let known = memo[Int(value)]
        return known == Self.notYet ? nil : known
    }

    private func remember(_ memo: inout [Int32], _ value: ValueRef, _ result: Int32) {
        guard value >= 0 else { return }
        if Int(value) >= memo.count {
            memo += repeatElement(Self.notYet, count: max(Int(value) + 1, 2 * memo.count) - memo.count)
        }
        memo[Int(value)] = result
    }

    // MARK: Finish

    /// Links what refers across tables, writes the import notes and builds the trace.
    /// Prefer the full graph when the export has it; it includes the system's nodes.
    private var useFullGraph: Bool { !graphs[1].edges.isEmpty || graphs[0].edges.isEmpty && !graphs[1].nodes.isEmpty }

    func finish() throws -> Trace {
        try checkRuns()
        guard !tablesRead.isEmpty else {
            let seen = tablesSkipped.keys.sorted()
            throw XCTraceValueError(
                offset: 0, table: nil, field: nil,
                message: "holds no table tracesvc reads"
                    + (seen.isEmpty ? "" : " (it has \(seen.joined(separator: ", ")))")
                    + "; export the SwiftUI tables with scripts/export-instruments-trace.sh"
            )
        }
        let groupOrder = groups.indices.sorted { groups[$0].start < groups[$1].start }
        let groupStarts = groupOrder.map { groups[$0].start }
        func group(at time: Nanoseconds, thread: Int32) -> Int32 {
            // The last groups starting at or before `time`; groups rarely overlap, so a few suffice.
            var low = 0
            var high = groupStarts.count
            while low < high {
                let middle = (low + high) / 2
                if groupStarts[middle] <= time { low = middle + 1 } else { high = middle }
            }
            var looked = 0
            while high > 0, looked < 16 {
                high -= 1
                looked += 1
                let candidate = groups[groupOrder[high]]
                let contains = time < candidate.end || time == candidate.start
                let sameThread = thread == noRow || candidate.thread == noRow || candidate.thread == thread
                if contains, sameThread { return Int32(groupOrder[high]) }
            }
            return noRow
        }

        if !filteredUpdates.isEmpty {
            if tablesRead["swiftui-updates"] != nil {
                notes.append("SwiftUIFilteredUpdates: not read, its rows are those of swiftui-updates.")
            } else {
                notes.append("No swiftui-updates table in the export: the updates were read from SwiftUIFilteredUpdates (the same rows, filtered by kind).")
                updates = filteredUpdates
            }
            filteredUpdates = AppendOnlyList()
        }
        let firstLayoutUpdate = updates.count
        for update in layoutUpdates { updates.append(update) }
        layoutUpdates = AppendOnlyList()
        let graph = graphs[useFullGraph ? 1 : 0]
        builder.reserveCapacity(updates: updates.count, nodes: graph.nodes.count, edges: graph.edges.count)
        // The last update of each event id (index into the two arrays below).
        var updateOfEvent = Int64Map(capacity: updates.count)
        var updateRows: [Int32] = []
        var updateStarts: [Nanoseconds] = []
        var layoutPasses: [LayoutPass] = []  // the layout updates, in `layoutUpdates`' order
        var position = 0
        for update in updates {
            let row = builder.addUpdate(
                start: update.start, duration: update.duration, kind: update.kind, sourceSeverity: update.severity,
                module: update.module, viewName: update.viewName, description: update.description,
                category: update.category, allocations: update.allocations, thread: update.thread,
                group: group(at: update.start, thread: update.thread)
            )
            if update.selfDuration >= 0 || update.depth >= 0 || update.cached >= 0 {
                builder.setLayout(
                    ofUpdate: row, selfDuration: update.selfDuration >= 0 ? update.selfDuration : nil,
                    depth: update.depth >= 0 ? Int(update.depth) : nil, cached: update.cached >= 0 ? update.cached != 0 : nil
                )
            }
            if update.downstreamCost >= 0 {
                builder.setDownstream(ofUpdate: row, cost: update.downstreamCost, events: Int(update.downstreamEvents))
            }
            if position >= firstLayoutUpdate {
                layoutPasses.append(LayoutPass(row: row, eventID: update.eventID, start: update.start, view: update.viewName, thread: update.thread))
            }
            position += 1
            if let eventID = update.eventID {
                updateOfEvent.set(Int32(updateRows.count), for: eventID)
                updateRows.append(row)
                updateStarts.append(update.start)
            }
        }
        updates = AppendOnlyList()

        if useFullGraph, !graphs[0].edges.isEmpty {
            notes.append("Cause graph read from swiftui-full-causes; swiftui-causes (\(graphs[0].edges.count) edges, a subset) not used.")
        }
        var builderNode: [UInt32] = []
        builderNode.reserveCapacity(graph.nodes.count)
        var nodeTimes: [Nanoseconds] = []
        if !layoutCauses.isEmpty { nodeTimes.reserveCapacity(graph.nodes.count) }
        for node in graph.nodes {
            // A node that ran happened when its update started; others when their first edge did.
            let update = updateOfEvent[node.eventID].map(Int.init)
            let timestamp = update.map { updateStarts[$0] } ?? node.timestamp
            builderNode.append(builder.addNode(
                kind: node.text.kind, name: node.text.name, owner: node.text.owner, isAppCode: node.text.isAppCode,
                eventID: node.eventID, timestamp: timestamp, update: update.map { updateRows[$0] } ?? noRow
            ))
            if !layoutCauses.isEmpty { nodeTimes.append(timestamp) }
        }
        for edge in graph.edges {
            builder.addEdge(
                source: builderNode[edge.source], target: builderNode[edge.target], label: edge.label,
                changedProperty: edge.changedProperty, timestamp: edge.timestamp, group: group(at: edge.timestamp, thread: noRow)
            )
        }
        joinLayoutCauses(layoutPasses, graph: graph, builderNode: builderNode, nodeTimes: nodeTimes, group: group)
        var unmatchedChanges = 0
        for change in changes {
            guard let node = graph.nodeOfEvent[change.eventID].map(Int.init) else {
                unmatchedChanges += 1
                continue
            }
            builder.addStateChange(
                timestamp: change.timestamp, node: builderNode[node], description: change.description,
                backtrace: change.stack, thread: change.thread
            )
        }
        if unmatchedChanges > 0 {
            notes.append("swiftui-changes: \(unmatchedChanges) changes whose id is no cause-graph node were left out.")
        }
        if samplesWithoutStack > 0 {
            notes.append("CPU samples: \(samplesWithoutStack) samples without a backtrace were left out.")
        }
        for (text, rows) in unknownTaskStates.sorted(by: { $0.key < $1.key }) {
            notes.append("SwiftTaskStateTable: task state \"\(text)\" is not one tracesvc knows (\(rows) row\(rows == 1 ? "" : "s")): read as unknown.")
        }
        if tablesRead["SwiftTaskStateTable"] != nil, tablesRead["SwiftTaskLifetime"] == nil, builder.taskCount > 0 {
            notes.append("No SwiftTaskLifetime table in the export: each task's lifetime is taken from its first and last state.")
        }
        addCycleSamples()
        writeTableNotes()
        fillMetadata()
        addPendingSignposts()
        builder.metadata.importNotes += notes
        do {
            return try builder.build()
        } catch {
            throw XCTraceValueError(offset: 0, table: nil, field: error.field, message: "inconsistent export: \(error.description)")
        }
    }

    /// A run that is not in the export is an error; other runs are named, never added in.
    private func checkRuns() throws {
        guard !runsSeen.isEmpty else { return }
        let others = runsSeen.subtracting([wantedRun]).sorted()
        guard runsSeen.contains(wantedRun) else {
            let runs = runsSeen.sorted().map(String.init).joined(separator: ", ")
            throw XCTraceValueError(
                offset: 0, table: nil, field: "run",
                message: "the export has no tables of run \(wantedRun); it holds run\(runsSeen.count == 1 ? "" : "s") \(runs): choose one with ?run=N (upload) or --run N (inspect)"
            )
        }
        if !others.isEmpty {
            builder.metadata.runs = runsSeen.sorted()
            builder.metadata.run = wantedRun
            notes.append(
                "This export holds \(runsSeen.count) runs (\(runsSeen.sorted().map(String.init).joined(separator: ", "))): run \(wantedRun) was read; "
                    + "run\(others.count == 1 ? "" : "s") \(others.map(String.init).joined(separator: ", ")) \(others.count == 1 ? "is a separate recording" : "are separate recordings"), never added in. "
                    + "Read another with ?run=N on upload or --run N on inspect."
            )
        }
    }

    /// Cycle samples become the CPU lane only when no table weighted in time was read.
    private func addCycleSamples() {
        guard !cycleSamples.isEmpty else { return }
        if let timeTable = timeSampleTable {
            notes.append("\(cycleSampleTable ?? "cpu-profile"): \(cycleSamples.count) samples weighted in cycles were not used; the CPU lane and call tree show \(timeTable)'s CPU time (cycles and time are never added together).")
        } else {
            builder.metadata.cpuWeightUnit = .cycles
            for sample in cycleSamples {
                builder.addSample(time: sample.time, thread: sample.thread, weight: sample.weight, stack: sample.stack)
            }
            notes.append("CPU weights are cycles (CPU Profiler, cpu-profile), not time: the CPU lane shows load at the clock rate the samples show.")
        }
        cycleSamples = []
    }

    private func writeTableNotes() {
        for (name, count) in tablesSkipped.sorted(by: { $0.key < $1.key }) {
            notes.append("Skipped table \(name)\(count > 1 ? " (\(count)×)" : ""): tracesvc does not read it.")
        }
        for (name, without) in XCTraceVocabulary.tables {
            let read = tablesRead[name] != nil || name == "swiftui-causes" && tablesRead["swiftui-full-causes"] != nil
                || name == "swiftui-updates" && tablesRead["SwiftUIFilteredUpdates"] != nil
                || name == "time-profile" && tablesRead["cpu-profile"] != nil
            if !read { notes.append("No \(name) table in the export: \(without).") }
        }
    }

    private func fillMetadata() {
        var metadata = builder.metadata
        metadata.sourceFormat = "xctrace-export"
        if let toc {
            metadata.device = [toc.deviceModel, toc.deviceName].first { !$0.isEmpty } ?? ""
            metadata.osVersion = toc.osVersion
            metadata.recordedAt = toc.startDate
            metadata.app = toc.processName
            if let seconds = toc.durationSeconds, seconds > 0, seconds * 1e9 < Double(TraceLimits.time) {
                metadata.start = 0
                metadata.end = max(Nanoseconds(seconds * 1e9), latestEnd)
            }
        }
        // Without a table of contents the app is the process that ran the updates, else the one sampled most.
        var samplesPerProcess: [UInt32: Int] = [:]
        for (thread, count) in samplesPerThread.enumerated() { samplesPerProcess[threadProcesses[thread], default: 0] += count }
        for counts in [updatesPerProcess, samplesPerProcess] where metadata.app.isEmpty {
            if let busiest = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) { metadata.app = processNames[busiest.key] ?? "" }
        }
        builder.metadata = metadata
    }
}
