/// Collects rows in whatever order a reader meets them and produces a sorted, indexed `Trace`.
///
/// References between rows (an update's group, a node's update, an edge's group) use the
/// provisional index that the `add…` call returned; `build()` sorts and rewrites them.
public struct TraceBuilder: Sendable {
    public var metadata: TraceMetadata
    private var strings: [String] = [""]
    private var stringIndex: [String: StringRef] = ["": 0]
    private var processes: [TraceProcess] = []
    private var threads: [TraceThread] = []
    private var groups = UpdateGroupTable()
    private var updates = UpdateTable()
    private var graph = CauseGraph()
    private var stateChanges = StateChangeTable()
    private var hitches: [TimelineInterval] = []
    private var hangs: [TimelineInterval] = []
    private var cpu = CPUProfile()
    private var tasks = SwiftTaskTable()
    private var taskStates = SwiftTaskStateTable()
    private var signposts = SignpostTable()
    private var hangRisks = HangRiskTable()
    private var frameIndex: [FrameKey: UInt32] = [:]
    private var stackIndex: [StackKey: UInt32] = [:]

    private struct FrameKey: Hashable { var name: StringRef, binary: StringRef }
    private struct StackKey: Hashable { var parent: Int32, frame: UInt32 }

    public init(metadata: TraceMetadata) {
        self.metadata = metadata
    }

    public var updateCount: Int { updates.count }
    public var groupCount: Int { groups.count }
    public var nodeCount: Int { graph.nodes.count }
    public var threadCount: Int { threads.count }
    public var stackCount: Int { cpu.stacks.count }
    public var taskCount: Int { tasks.count }
    public var signpostCount: Int { signposts.count }
    public func taskID(_ row: UInt32) -> Int64 { tasks.taskID[Int(row)] }
    public func taskProcess(_ row: UInt32) -> Int32 { tasks.process[Int(row)] }

    // MARK: Strings, processes, threads

    /// Interns `text`; the empty string is always 0.
    public mutating func intern(_ text: String) -> StringRef {
        if let ref = stringIndex[text] { return ref }
        let ref = StringRef(strings.count)
        strings.append(text)
        stringIndex[text] = ref
        return ref
    }

    public mutating func addProcess(_ process: TraceProcess) -> UInt32 {
        processes.append(process)
        return UInt32(processes.count - 1)
    }

    public func stringOf(_ ref: StringRef) -> String { strings[Int(ref)] }

    /// Name, tid and pid of a thread added before, or nil for `noRow`.
    public func threadDescription(_ thread: Int32) -> (name: String, tid: Int64, pid: Int32)? {
        guard thread >= 0, Int(thread) < threads.count else { return nil }
        let described = threads[Int(thread)]
        return (described.name, described.tid, processes[Int(described.process)].pid)
    }

    public func threadProcess(_ thread: Int32) -> UInt32 { threads[Int(thread)].process }

    public mutating func addThread(_ thread: TraceThread) -> Int32 {
        threads.append(thread)
        return Int32(threads.count - 1)
    }

    // MARK: Updates

    @discardableResult
    public mutating func addUpdateGroup(start: Nanoseconds, duration: Nanoseconds, label: StringRef, thread: Int32 = noRow) -> Int32 {
        groups.start.append(start)
        groups.duration.append(duration)
        groups.label.append(label)
        groups.thread.append(thread)
        return Int32(groups.count - 1)
    }

    @discardableResult
    public mutating func addUpdate(
        start: Nanoseconds, duration: Nanoseconds, kind: UpdateKind, sourceSeverity: SourceSeverity = .none,
        module: StringRef, viewName: StringRef, description: StringRef = 0, category: StringRef = 0,
        allocations: UInt32 = 0, thread: Int32 = noRow, group: Int32 = noRow
    ) -> Int32 {
        updates.start.append(start)
        updates.duration.append(duration)
        updates.kind.append(kind)
        updates.sourceSeverity.append(sourceSeverity)
        updates.module.append(module)
        updates.viewName.append(viewName)
        updates.description.append(description)
        updates.category.append(category)
        updates.allocations.append(allocations)
        updates.thread.append(thread)
        updates.group.append(group)
        return Int32(updates.count - 1)
    }

    /// A layout update's own measures (Instruments' layout tables): nil leaves one unrecorded.
    public mutating func setLayout(ofUpdate row: Int32, selfDuration: Nanoseconds?, depth: Int?, cached: Bool?) {
        if let selfDuration { Self.set(&updates.selfDuration, Int(row), selfDuration, count: updates.count) }
        if let depth { Self.set(&updates.layoutDepth, Int(row), Int32(clamping: depth), count: updates.count) }
        if let cached { Self.set(&updates.cached, Int(row), cached ? 1 : 0, count: updates.count) }
    }

    /// What an update made run after it (Instruments 27's `downstream-cost` and `downstream-events`).
    public mutating func setDownstream(ofUpdate row: Int32, cost: Nanoseconds, events: Int) {
        Self.set(&updates.downstreamCost, Int(row), cost, count: updates.count)
        Self.set(&updates.downstreamEvents, Int(row), Int32(clamping: events), count: updates.count)
    }

    /// An optional column is created on its first value, -1 in the rows before.
    private static func set<T: BinaryInteger>(_ column: inout [T], _ row: Int, _ value: T, count: Int) {
        if column.count < count { column.append(contentsOf: repeatElement(-1, count: count - column.count)) }
        column[row] = value
    }

    // MARK: Cause graph

    /// Room for this many more updates, graph nodes and edges, so that adding a large table's
    /// rows in one go does not copy the columns each time they grow.
    public mutating func reserveCapacity(updates: Int = 0, nodes: Int = 0, edges: Int = 0) {
        func reserve<T>(_ column: inout [T], _ more: Int) { if more > 0 { column.reserveCapacity(column.count + more) } }
        reserve(&self.updates.start, updates)
        reserve(&self.updates.duration, updates)
        reserve(&self.updates.kind, updates)
        reserve(&self.updates.sourceSeverity, updates)
        reserve(&self.updates.module, updates)
        reserve(&self.updates.viewName, updates)
        reserve(&self.updates.description, updates)
        reserve(&self.updates.category, updates)
        reserve(&self.updates.allocations, updates)
        reserve(&self.updates.thread, updates)
        reserve(&self.updates.group, updates)
        reserve(&graph.nodes.kind, nodes)
        reserve(&graph.nodes.name, nodes)
        reserve(&graph.nodes.owner, nodes)
        reserve(&graph.nodes.isAppCode, nodes)
        reserve(&graph.nodes.eventID, nodes)
        reserve(&graph.nodes.timestamp, nodes)
        reserve(&graph.nodes.update, nodes)
        reserve(&graph.edges.source, edges)
        reserve(&graph.edges.target, edges)
        reserve(&graph.edges.label, edges)
        reserve(&graph.edges.changedProperty, edges)
        reserve(&graph.edges.timestamp, edges)
        reserve(&graph.edges.group, edges)
    }

    @discardableResult
    public mutating func addNode(
        kind: NodeKind, name: StringRef, owner: StringRef = 0, isAppCode: Bool,
        eventID: Int64, timestamp: Nanoseconds, update: Int32 = noRow
    ) -> UInt32 {
        graph.nodes.kind.append(kind)
        graph.nodes.name.append(name)
        graph.nodes.owner.append(owner)
        graph.nodes.isAppCode.append(isAppCode)
        graph.nodes.eventID.append(eventID)
        graph.nodes.timestamp.append(timestamp)
        graph.nodes.update.append(update)
        return UInt32(graph.nodes.count - 1)
    }

    public mutating func addEdge(
        source: UInt32, target: UInt32, label: EdgeLabel, changedProperty: StringRef = 0,
        timestamp: Nanoseconds, group: Int32 = noRow
    ) {
        graph.edges.source.append(source)
        graph.edges.target.append(target)
        graph.edges.label.append(label)
        graph.edges.changedProperty.append(changedProperty)
        graph.edges.timestamp.append(timestamp)
        graph.edges.group.append(group)
    }

    public mutating func addStateChange(
        timestamp: Nanoseconds, node: UInt32, description: StringRef, backtrace: Int32 = noRow, thread: Int32 = noRow
    ) {
        stateChanges.timestamp.append(timestamp)
        stateChanges.node.append(node)
        stateChanges.description.append(description)
        stateChanges.backtrace.append(backtrace)
        stateChanges.thread.append(thread)
    }

    // MARK: Hitches, hangs

    public mutating func addHitch(_ hitch: TimelineInterval) { hitches.append(hitch) }
    public mutating func addHang(_ hang: TimelineInterval) { hangs.append(hang) }

    public mutating func addHangRisk(time: Nanoseconds, message: StringRef, severity: StringRef = 0, eventType: StringRef = 0, backtrace: Int32 = noRow, thread: Int32 = noRow) {
        hangRisks.time.append(time)
        hangRisks.message.append(message)
        hangRisks.severity.append(severity)
        hangRisks.eventType.append(eventType)
        hangRisks.backtrace.append(backtrace)
        hangRisks.thread.append(thread)
    }

    // MARK: CPU

    /// Frames are shared: the same (name, binary) gives the same frame.
    /// The frame of a function (one per name and binary, so the call tree joins its calls). Its
    /// source is the first one given: a function's frames at other addresses are other lines of
    /// it, and a frame keeps one file and line (its path interned, 0 for none).
    public mutating func addFrame(name: StringRef, binary: StringRef, isAppCode: Bool, sourcePath: StringRef = 0, sourceLine: UInt32 = 0) -> UInt32 {
        let key = FrameKey(name: name, binary: binary)
        if let frame = frameIndex[key] {
            if sourcePath != 0, cpu.frames.source(of: Int(frame)) == nil { setSource(of: Int(frame), path: sourcePath, line: sourceLine) }
            return frame
        }
        cpu.frames.name.append(name)
        cpu.frames.binary.append(binary)
        cpu.frames.isAppCode.append(isAppCode)
        let frame = UInt32(cpu.frames.count - 1)
        frameIndex[key] = frame
        if sourcePath != 0 { setSource(of: Int(frame), path: sourcePath, line: sourceLine) }
        return frame
    }

    /// Frames come in row order, so a new frame's source is appended; a frame seen first
    /// without one and later with one (rare) is inserted in order.
    private mutating func setSource(of frame: Int, path: StringRef, line: UInt32) {
        let entry = cpu.frames.sourceEntry(frame)
        if entry < cpu.frames.sourceFrames.count, cpu.frames.sourceFrames[entry] == frame {
            cpu.frames.sourcePath[entry] = path
            cpu.frames.sourceLine[entry] = line
            return
        }
        cpu.frames.sourceFrames.insert(UInt32(frame), at: entry)
        cpu.frames.sourcePath.insert(path, at: entry)
        cpu.frames.sourceLine.insert(line, at: entry)
    }

    /// The stack whose leaf is `frame` called from `parent` (`noRow` for a root frame). Shared.
    public mutating func addStack(parent: Int32, frame: UInt32) -> UInt32 {
        let key = StackKey(parent: parent, frame: frame)
        if let stack = stackIndex[key] { return stack }
        cpu.stacks.parent.append(parent)
        cpu.stacks.frame.append(frame)
        let stack = UInt32(cpu.stacks.count - 1)
        stackIndex[key] = stack
        return stack
    }

    /// The stack for frames listed root first.
    public mutating func addStack(rootToLeaf frames: some Sequence<UInt32>) -> Int32 {
        var stack = noRow
        for frame in frames {
            stack = Int32(addStack(parent: stack, frame: frame))
        }
        return stack
    }

    public mutating func addSample(time: Nanoseconds, thread: Int32, weight: Nanoseconds, stack: UInt32) {
        cpu.samples.time.append(time)
        cpu.samples.thread.append(thread)
        cpu.samples.weight.append(weight)
        cpu.samples.stack.append(stack)
    }

    // MARK: Swift tasks

    /// A task of `process` (row of `processes`, or `noRow`); its lifetime is `start...end`
    /// (equal when unknown). Returns its row.
    @discardableResult
    public mutating func addTask(
        taskID: Int64, process: Int32 = noRow, name: StringRef = 0, creationBacktrace: Int32 = noRow,
        start: Nanoseconds = 0, end: Nanoseconds = 0
    ) -> UInt32 {
        tasks.taskID.append(taskID)
        tasks.process.append(process)
        tasks.name.append(name)
        tasks.creationBacktrace.append(creationBacktrace)
        tasks.start.append(start)
        tasks.end.append(max(start, end))
        return UInt32(tasks.count - 1)
    }

    /// Fills in what a later table knows about task `row` (name, creation backtrace, lifetime).
    public mutating func describeTask(_ row: UInt32, name: StringRef? = nil, creationBacktrace: Int32? = nil, lifetime: (Nanoseconds, Nanoseconds)? = nil) {
        let row = Int(row)
        if let name, name != 0 { tasks.name[row] = name }
        if let creationBacktrace, creationBacktrace != noRow { tasks.creationBacktrace[row] = creationBacktrace }
        if let lifetime { (tasks.start[row], tasks.end[row]) = (lifetime.0, max(lifetime.0, lifetime.1)) }
    }

    public mutating func addTaskState(_ row: SwiftTaskStateRow) {
        taskStates.start.append(row.start)
        taskStates.duration.append(row.duration)
        taskStates.task.append(row.task)
        taskStates.state.append(row.state)
        taskStates.actor.append(row.actor)
        taskStates.isMainActor.append(row.isMainActor)
        taskStates.priority.append(row.priority)
        taskStates.resumeFunction.append(row.resumeFunction)
        taskStates.waitingFor.append(row.waitingFor)
        taskStates.suspendBacktrace.append(row.suspendBacktrace)
        taskStates.thread.append(row.thread)
        taskStates.narrative.append(row.narrative)
    }

    public mutating func addSignpost(_ row: SignpostRow) {
        signposts.start.append(row.start)
        signposts.duration.append(row.duration)
        signposts.kind.append(row.kind)
        signposts.process.append(row.process)
        signposts.thread.append(row.thread)
        signposts.subsystem.append(row.subsystem)
        signposts.category.append(row.category)
        signposts.name.append(row.name)
        signposts.beginMessage.append(row.beginMessage)
        signposts.endMessage.append(row.endMessage)
        signposts.signpostID.append(row.signpostID)
    }

    // MARK: Build

    /// Checks the references between rows; the message names the table, row and field.
    public func validate() throws(TraceModelError) {
        func check(_ value: Int32, _ count: Int, allowNone: Bool = true, _ table: String, _ row: Int, _ field: String) throws(TraceModelError) {
            if value == noRow && allowNone { return }
            if value < 0 || Int(value) >= count {
                throw TraceModelError(table: table, row: row, field: field, message: "refers to \(value), but there are \(count) rows")
            }
        }
        func bound(_ value: Nanoseconds, _ range: ClosedRange<Nanoseconds>, _ table: String, _ row: Int, _ field: String) throws(TraceModelError) {
            guard !range.contains(value) else { return }
            let what = value < 0 && range.lowerBound == 0 ? "is negative" : "is out of range"
            throw TraceModelError(table: table, row: row, field: field,
                                  message: "\(what) (\(value) ns; allowed \(range.lowerBound)...\(range.upperBound))")
        }
        try bound(metadata.start, TraceLimits.times, "metadata", 0, "start")
        try bound(metadata.end, TraceLimits.times, "metadata", 0, "end")
        for row in 0..<groups.count {
            try bound(groups.start[row], TraceLimits.times, "updateGroups", row, "start")
            try bound(groups.duration[row], TraceLimits.durations, "updateGroups", row, "duration")
        }
        for row in 0..<updates.count {
            try check(updates.group[row], groups.count, "updates", row, "group")
            try check(updates.thread[row], threads.count, "updates", row, "thread")
            try bound(updates.start[row], TraceLimits.times, "updates", row, "start")
            try bound(updates.duration[row], TraceLimits.durations, "updates", row, "duration")
        }
        for (table, intervals) in [("hitches", hitches), ("hangs", hangs)] {
            for (row, interval) in intervals.enumerated() {
                try bound(interval.start, TraceLimits.times, table, row, "start")
                try bound(interval.duration, TraceLimits.durations, table, row, "duration")
            }
        }
        for row in 0..<cpu.stacks.count where cpu.stacks.parent[row] != noRow && Int(cpu.stacks.parent[row]) >= row {
            // Queries walk stacks in row order, each parent known before its children (a prefix tree, no cycles).
            throw TraceModelError(table: "stacks", row: row, field: "parent", message: "refers to \(cpu.stacks.parent[row]), not an earlier stack")
        }
        for row in 0..<graph.nodes.count {
            try check(graph.nodes.update[row], updates.count, "nodes", row, "update")
        }
        for row in 0..<graph.edges.count {
            try bound(graph.edges.timestamp[row], TraceLimits.times, "edges", row, "timestamp")
            try check(Int32(truncatingIfNeeded: graph.edges.source[row]), graph.nodes.count, allowNone: false, "edges", row, "source")
            try check(Int32(truncatingIfNeeded: graph.edges.target[row]), graph.nodes.count, allowNone: false, "edges", row, "target")
            try check(graph.edges.group[row], groups.count, "edges", row, "group")
        }
        for row in 0..<stateChanges.count {
            try bound(stateChanges.timestamp[row], TraceLimits.times, "stateChanges", row, "timestamp")
            try check(Int32(truncatingIfNeeded: stateChanges.node[row]), graph.nodes.count, allowNone: false, "stateChanges", row, "node")
            try check(stateChanges.backtrace[row], cpu.stacks.count, "stateChanges", row, "backtrace")
        }
        for row in 0..<hangRisks.count {
            try bound(hangRisks.time[row], TraceLimits.times, "hangRisks", row, "time")
            try check(hangRisks.backtrace[row], cpu.stacks.count, "hangRisks", row, "backtrace")
            try check(hangRisks.thread[row], threads.count, "hangRisks", row, "thread")
        }
        for row in 0..<tasks.count {
            try check(tasks.process[row], processes.count, "tasks", row, "process")
            try check(tasks.creationBacktrace[row], cpu.stacks.count, "tasks", row, "creationBacktrace")
            try bound(tasks.start[row], TraceLimits.times, "tasks", row, "start")
            try bound(tasks.end[row], TraceLimits.times, "tasks", row, "end")
        }
        for row in 0..<taskStates.count {
            try bound(taskStates.start[row], TraceLimits.times, "taskStates", row, "start")
            try bound(taskStates.duration[row], TraceLimits.durations, "taskStates", row, "duration")
            try check(Int32(truncatingIfNeeded: taskStates.task[row]), tasks.count, allowNone: false, "taskStates", row, "task")
            try check(taskStates.waitingFor[row], tasks.count, "taskStates", row, "waitingFor")
            try check(taskStates.suspendBacktrace[row], cpu.stacks.count, "taskStates", row, "suspendBacktrace")
            try check(taskStates.thread[row], threads.count, "taskStates", row, "thread")
        }
        for row in 0..<signposts.count {
            try bound(signposts.start[row], TraceLimits.times, "signposts", row, "start")
            try bound(signposts.duration[row], TraceLimits.durations, "signposts", row, "duration")
            try check(signposts.process[row], processes.count, "signposts", row, "process")
            try check(signposts.thread[row], threads.count, "signposts", row, "thread")
            for (field, ref) in [("subsystem", signposts.subsystem[row]), ("category", signposts.category[row]), ("name", signposts.name[row]),
                                 ("beginMessage", signposts.beginMessage[row]), ("endMessage", signposts.endMessage[row])] {
                try check(Int32(truncatingIfNeeded: ref), strings.count, allowNone: false, "signposts", row, field)
            }
        }
        for row in 0..<cpu.samples.count {
            try bound(cpu.samples.time[row], TraceLimits.times, "samples", row, "time")
            try bound(cpu.samples.weight[row], TraceLimits.durations, "samples", row, "weight")
            try check(Int32(truncatingIfNeeded: cpu.samples.stack[row]), cpu.stacks.count, allowNone: false, "samples", row, "stack")
        }
    }

    /// Sorts rows by time, rewrites references to the new row numbers and builds the indexes.
    public consuming func build() throws(TraceModelError) -> Trace {
        try validate()

        let groupOrder = Self.order(groups.start)
        let groupRank = Self.rank(groupOrder)
        groups = groups.permuted(by: groupOrder)

        let updateOrder = Self.order(updates.start)
        let updateRank = Self.rank(updateOrder)
        updates = updates.permuted(by: updateOrder)
        updates.group = updates.group.map { $0 == noRow ? noRow : groupRank[Int($0)] }

        graph.nodes.update = graph.nodes.update.map { $0 == noRow ? noRow : updateRank[Int($0)] }
        graph.edges.group = graph.edges.group.map { $0 == noRow ? noRow : groupRank[Int($0)] }
        graph.buildAdjacency()

        let sampleOrder = Self.order(cpu.samples.time)
        cpu.samples = cpu.samples.permuted(by: sampleOrder)
        hitches.sort { ($0.start, $0.duration) < ($1.start, $1.duration) }
        hangs.sort { ($0.start, $0.duration) < ($1.start, $1.duration) }
        taskStates = taskStates.permuted(by: Self.order(taskStates.start))
        deriveTaskLifetimes()
        signposts = signposts.permuted(by: Self.order(signposts.start))
        hangRisks = hangRisks.permuted(by: Self.order(hangRisks.time))

        // A source that does not state its span gets the span of its events.
        if metadata.end <= metadata.start {
            (metadata.start, metadata.end) = spanOfEvents()
        }

        var trace = Trace(
            metadata: metadata, strings: strings, processes: processes, threads: threads,
            updateGroups: groups, updates: updates, graph: graph, stateChanges: stateChanges,
            hitches: hitches, hangs: hangs, cpu: cpu, tasks: tasks, taskStates: taskStates, signposts: signposts,
            hangRisks: hangRisks, indexes: TraceIndexes()
        )
        trace.indexes = TraceIndexes(trace)
        return trace
    }

    /// A task without a lifetime (start == end: no SwiftTaskLifetime row) lives from its first
    /// state's start to its last state's end.
    private mutating func deriveTaskLifetimes() {
        var first = [Nanoseconds](repeating: .max, count: tasks.count)
        var last = [Nanoseconds](repeating: .min, count: tasks.count)
        for row in 0..<taskStates.count {
            let task = Int(taskStates.task[row])
            first[task] = min(first[task], taskStates.start[row])
            last[task] = max(last[task], taskStates.end(row))
        }
        for task in 0..<tasks.count where tasks.start[task] == tasks.end[task] && first[task] <= last[task] {
            (tasks.start[task], tasks.end[task]) = (first[task], last[task])
        }
    }

    private func spanOfEvents() -> (Nanoseconds, Nanoseconds) {
        var first = Nanoseconds.max
        var last = Nanoseconds.min
        func include(_ start: Nanoseconds, _ end: Nanoseconds) {
            first = min(first, start)
            last = max(last, end)
        }
        for row in 0..<groups.count { include(groups.start[row], groups.start[row] + groups.duration[row]) }
        for row in 0..<updates.count { include(updates.start[row], updates.start[row] + updates.duration[row]) }
        for interval in hitches + hangs { include(interval.start, interval.end) }
        // A sample covers its weight after its time: the trace ends where the last one does
        // (a weight in cycles is no time, so a cycle sample covers its instant).
        let weightIsTime = metadata.cpuWeightUnit == .nanoseconds
        for row in 0..<cpu.samples.count {
            include(cpu.samples.time[row], cpu.samples.time[row] + (weightIsTime ? cpu.samples.weight[row] : 0))
        }
        // Cause edges and state changes are events too (an export of causes alone has a span).
        for time in graph.edges.timestamp { include(time, time) }
        for time in stateChanges.timestamp { include(time, time) }
        for time in hangRisks.time { include(time, time) }
        for row in 0..<taskStates.count { include(taskStates.start[row], taskStates.end(row)) }
        for row in 0..<signposts.count { include(signposts.start[row], signposts.end(row)) }
        return first <= last ? (first, last) : (0, 0)
    }

    /// Row order that sorts by time, ties kept in source order (so ids are deterministic).
    static func order(_ times: [Nanoseconds]) -> [Int] {
        var isSorted = true
        for i in times.indices.dropFirst() where times[i] < times[i - 1] {
            isSorted = false
            break
        }
        if isSorted { return Array(times.indices) }
        return times.indices.sorted { (times[$0], $0) < (times[$1], $1) }
    }

    static func rank(_ order: [Int]) -> [Int32] {
        var rank = [Int32](repeating: 0, count: order.count)
        for (newRow, oldRow) in order.enumerated() { rank[oldRow] = Int32(newRow) }
        return rank
    }
}

/// A reference between rows that points nowhere, or a value out of range.
public struct TraceModelError: Error, Sendable, CustomStringConvertible {
    public var table: String
    public var row: Int
    public var field: String
    public var message: String
    public var description: String { "\(table)[\(row)].\(field) \(message)" }
}

extension Array {
    func permuted(by order: [Int]) -> [Element] { order.map { self[$0] } }
}

extension UpdateGroupTable {
    func permuted(by order: [Int]) -> Self {
        var table = Self()
        table.start = start.permuted(by: order)
        table.duration = duration.permuted(by: order)
        table.label = label.permuted(by: order)
        table.thread = thread.permuted(by: order)
        return table
    }
}

extension UpdateTable {
    func permuted(by order: [Int]) -> Self {
        var table = Self()
        table.start = start.permuted(by: order)
        table.duration = duration.permuted(by: order)
        table.kind = kind.permuted(by: order)
        table.sourceSeverity = sourceSeverity.permuted(by: order)
        table.module = module.permuted(by: order)
        table.viewName = viewName.permuted(by: order)
        table.description = description.permuted(by: order)
        table.category = category.permuted(by: order)
        table.allocations = allocations.permuted(by: order)
        table.thread = thread.permuted(by: order)
        table.group = group.permuted(by: order)
        // Optional columns: padded to every row (a row added after the last value has none).
        func optional<T: BinaryInteger>(_ column: [T]) -> [T] {
            column.isEmpty ? [] : (column + repeatElement(-1, count: count - column.count)).permuted(by: order)
        }
        table.selfDuration = optional(selfDuration)
        table.layoutDepth = optional(layoutDepth)
        table.cached = optional(cached)
        table.downstreamCost = optional(downstreamCost)
        table.downstreamEvents = optional(downstreamEvents)
        return table
    }
}

extension SampleTable {
    func permuted(by order: [Int]) -> Self {
        var table = Self()
        table.time = time.permuted(by: order)
        table.thread = thread.permuted(by: order)
        table.weight = weight.permuted(by: order)
        table.stack = stack.permuted(by: order)
        return table
    }
}

extension CauseGraph {
    mutating func buildAdjacency() {
        (outgoingOffsets, outgoingEdges) = Self.compressedRows(keys: edges.source, keyCount: nodes.count)
        (incomingOffsets, incomingEdges) = Self.compressedRows(keys: edges.target, keyCount: nodes.count)
    }

    /// Groups row numbers by key: rows of key k are `rows[offsets[k]..<offsets[k+1]]`, in row order.
    static func compressedRows(keys: [UInt32], keyCount: Int) -> ([UInt32], [UInt32]) {
        var offsets = [UInt32](repeating: 0, count: keyCount + 1)
        for key in keys { offsets[Int(key) + 1] += 1 }
        for k in 0..<keyCount { offsets[k + 1] += offsets[k] }
        var cursor = offsets
        var rows = [UInt32](repeating: 0, count: keys.count)
        for (row, key) in keys.enumerated() {
            rows[Int(cursor[Int(key)])] = UInt32(row)
            cursor[Int(key)] += 1
        }
        return (offsets, rows)
    }
}

extension TraceIndexes {
    init(_ trace: Trace) {
        self.init()
        let updates = trace.updates
        var byLane: [Lane: [UInt32]] = [:]
        var maxDuration: [Lane: Nanoseconds] = [:]
        for lane in Lane.allCases where lane.isUpdateLane { byLane[lane] = [] }
        for row in 0..<updates.count {
            let kind = updates.kind[row]
            let duration = updates.duration[row]
            byLane[kind.allUpdatesLane, default: []].append(UInt32(row))
            maxDuration[kind.allUpdatesLane] = Swift.max(maxDuration[kind.allUpdatesLane] ?? 0, duration)
            if LongUpdateSeverity(duration: duration).isLong {
                byLane[kind.longLane, default: []].append(UInt32(row))
                maxDuration[kind.longLane] = Swift.max(maxDuration[kind.longLane] ?? 0, duration)
            }
        }
        maxDuration[.updateGroups] = trace.updateGroups.duration.max() ?? 0
        maxDuration[.hitches] = trace.hitches.map(\.duration).max() ?? 0
        maxDuration[.hangs] = trace.hangs.map(\.duration).max() ?? 0
        let states = trace.taskStates
        let mainThreads = trace.threads.map(\.isMain)
        for row in 0..<states.count {
            let thread = Int(states.thread[row])
            let onMainThread = thread >= 0 && thread < mainThreads.count && mainThreads[thread]
            if states.state[row] == .running, states.isMainActor[row] || onMainThread {
                mainActorRuns.append(UInt32(row))
                maxDuration[.mainActor] = Swift.max(maxDuration[.mainActor] ?? 0, states.duration[row])
            } else if states.state[row] == .enqueued, states.isMainActor[row] {
                mainActorWaits.append(UInt32(row))
                maxDuration[.mainActorWaits] = Swift.max(maxDuration[.mainActorWaits] ?? 0, states.duration[row])
            }
        }
        signpostLanes = SignpostLane.lanes(of: trace.signposts, strings: trace.strings)
        (taskStateOffsets, taskStateRows) = CauseGraph.compressedRows(keys: states.task, keyCount: trace.tasks.count)
        let waiting = states.waitingFor.indices.filter { states.waitingFor[$0] != noRow }
        let (awaitOffsets, awaitRows) = CauseGraph.compressedRows(keys: waiting.map { UInt32(states.waitingFor[$0]) }, keyCount: trace.tasks.count)
        awaitingOffsets = awaitOffsets
        awaitingRows = awaitRows.map { UInt32(waiting[Int($0)]) }
        updatesByLane = byLane
        maxDurationByLane = maxDuration

        var firstWrite: [UInt32: UInt32] = [:]
        let changes = trace.stateChanges
        for row in 0..<changes.count where changes.backtrace[row] != noRow && firstWrite[changes.node[row]] == nil {
            firstWrite[changes.node[row]] = UInt32(row)
        }
        writtenNodes = firstWrite.keys.sorted()
        firstWriteOfNode = writtenNodes.map { firstWrite[$0]! }

        let nodeUpdates = trace.graph.nodes.update
        let linked = nodeUpdates.indices.filter { nodeUpdates[$0] != noRow }
        let keys = linked.map { UInt32(nodeUpdates[$0]) }
        let (offsets, rows) = CauseGraph.compressedRows(keys: keys, keyCount: updates.count)
        updateNodeOffsets = offsets
        updateNodes = rows.map { UInt32(linked[Int($0)]) }
        cpuPaths = CPUPathCache(sampleKeys: CPUSampleKeys(samples: trace.cpu.samples, stackCount: trace.cpu.stacks.count, threadCount: trace.threads.count))
    }
}
