/// One recorded trace, held in memory as columns (struct of arrays) with interned strings,
/// so that a million updates cost tens of bytes each. Build it with `TraceBuilder`.
///
/// Row indexes are the stable identifiers the API and share links use: updates are sorted
/// by (start, order in the source), so the same file gives the same ids on any server.
public struct Trace: Sendable {
    public var metadata: TraceMetadata
    public internal(set) var strings: [String]
    public internal(set) var processes: [TraceProcess]
    public internal(set) var threads: [TraceThread]
    public internal(set) var updateGroups: UpdateGroupTable
    public internal(set) var updates: UpdateTable
    public internal(set) var graph: CauseGraph
    public internal(set) var stateChanges: StateChangeTable
    public internal(set) var hitches: [TimelineInterval]
    public internal(set) var hangs: [TimelineInterval]
    public internal(set) var cpu: CPUProfile
    public internal(set) var tasks = SwiftTaskTable()
    public internal(set) var taskStates = SwiftTaskStateTable()
    public internal(set) var signposts = SignpostTable()
    public internal(set) var hangRisks = HangRiskTable()
    public internal(set) var indexes: TraceIndexes

    public func string(_ ref: StringRef) -> String { strings[Int(ref)] }

    /// The interned reference of `text`, nil when no row uses it: queries compare references
    /// in their loops, never texts.
    public func ref(of text: String) -> StringRef? { strings.firstIndex(of: text).map(StringRef.init) }
}

public struct TraceMetadata: Sendable, Codable, Equatable {
    /// Display name: the uploaded file name without extension, or the sample's name.
    public var name: String
    public var app: String
    public var device: String
    public var osVersion: String
    /// Display refresh rate in Hz (120 on ProMotion iPhones); nil when the source does not say.
    @NullWhenAbsent public var refreshRate: Double? = nil
    /// Wall-clock time the recording started, ISO 8601, if the source knows it.
    @NullWhenAbsent public var recordedAt: String? = nil
    /// Recording span; every event lies inside it.
    public var start: Nanoseconds
    public var end: Nanoseconds
    /// "tracesvc-json/1" or "xctrace-export".
    public var sourceFormat: String
    /// What the importer skipped or could not read (unknown tables, missing SwiftUI tables).
    public var importNotes: [String]
    /// What CPU sample weights count: CPU time (Time Profiler) or cycles (CPU Profiler).
    public var cpuWeightUnit: CPUWeightUnit = .nanoseconds
    /// The runs an xctrace export holds when it holds several (each a separate recording), and
    /// the one read; `[]` and nil for a source of one run. Lets the browser offer the others.
    public var runs: [Int] = []
    @NullWhenAbsent public var run: Int? = nil

    public init(
        name: String, app: String = "", device: String = "", osVersion: String = "",
        refreshRate: Double? = nil, recordedAt: String? = nil, start: Nanoseconds = 0, end: Nanoseconds = 0,
        sourceFormat: String, importNotes: [String] = []
    ) {
        self.name = name
        self.app = app
        self.device = device
        self.osVersion = osVersion
        self.refreshRate = refreshRate
        self.recordedAt = recordedAt
        self.start = start
        self.end = end
        self.sourceFormat = sourceFormat
        self.importNotes = importNotes
    }

    public var duration: Nanoseconds { end - start }

    /// One frame at the refresh rate, or at 60 Hz when the recording does not say.
    public var frameDuration: Nanoseconds { Nanoseconds(1e9 / max(refreshRate ?? 60, 1)) }
}

/// The unit of `SampleTable.weight`.
public enum CPUWeightUnit: String, Sendable, Codable {
    /// Time Profiler (`time-profile`): nanoseconds of CPU time.
    case nanoseconds = "ns"
    /// CPU Profiler (`cpu-profile`): processor cycles.
    case cycles
}

public struct TraceProcess: Sendable, Codable, Equatable {
    public var pid: Int32
    public var name: String
    public init(pid: Int32, name: String) {
        self.pid = pid
        self.name = name
    }
}

public struct TraceThread: Sendable, Codable, Equatable {
    public var tid: Int64
    public var name: String
    /// Index into `Trace.processes`.
    public var process: UInt32
    public var isMain: Bool
    public init(tid: Int64, name: String, process: UInt32, isMain: Bool) {
        self.tid = tid
        self.name = name
        self.process = process
        self.isMain = isMain
    }
}

/// A hitch or a hang: a span on its own lane with a kind ("Hang", "Microhang", ...) and a description.
public struct TimelineInterval: Sendable, Codable, Equatable {
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var kind: String
    public var detail: String
    /// Index into `Trace.threads`, or `noRow`.
    public var thread: Int32
    public init(start: Nanoseconds, duration: Nanoseconds, kind: String, detail: String, thread: Int32 = noRow) {
        self.start = start
        self.duration = duration
        self.kind = kind
        self.detail = detail
        self.thread = thread
    }
    public var end: Nanoseconds { start + duration }
}

/// Instruments 27's `hang-risks`: instants the recording flagged as risking a hang ("Main
/// thread performed file I/O …"), with the backtrace that did it. Sorted by time.
public struct HangRiskTable: Sendable {
    public internal(set) var time: [Nanoseconds] = []
    public internal(set) var message: [StringRef] = []
    /// As the recording says it ("High", "Severe"...), or 0 ("").
    public internal(set) var severity: [StringRef] = []
    public internal(set) var eventType: [StringRef] = []
    /// Stack id in `Trace.cpu.stacks` (leaf frame), or `noRow`.
    public internal(set) var backtrace: [Int32] = []
    /// Index into `Trace.threads`, or `noRow`.
    public internal(set) var thread: [Int32] = []

    public var count: Int { time.count }

    func permuted(by order: [Int]) -> Self {
        Self(time: time.permuted(by: order), message: message.permuted(by: order), severity: severity.permuted(by: order),
             eventType: eventType.permuted(by: order), backtrace: backtrace.permuted(by: order), thread: thread.permuted(by: order))
    }
}

/// When SwiftUI was working at all: one row per transaction / frame update.
public struct UpdateGroupTable: Sendable {
    public internal(set) var start: [Nanoseconds] = []
    public internal(set) var duration: [Nanoseconds] = []
    public internal(set) var label: [StringRef] = []
    /// Index into `Trace.threads`, or `noRow`.
    public internal(set) var thread: [Int32] = []
    public var count: Int { start.count }
}

/// Every SwiftUI update, sorted by start.
public struct UpdateTable: Sendable {
    public internal(set) var start: [Nanoseconds] = []
    public internal(set) var duration: [Nanoseconds] = []
    public internal(set) var kind: [UpdateKind] = []
    public internal(set) var sourceSeverity: [SourceSeverity] = []
    public internal(set) var module: [StringRef] = []
    public internal(set) var viewName: [StringRef] = []
    public internal(set) var description: [StringRef] = []
    public internal(set) var category: [StringRef] = []
    public internal(set) var allocations: [UInt32] = []
    /// Index into `Trace.threads`, or `noRow`.
    public internal(set) var thread: [Int32] = []
    /// Index into `Trace.updateGroups`, or `noRow`.
    public internal(set) var group: [Int32] = []

    /// Instruments 27's measures, each column empty until a row has a value (a trace without
    /// them costs nothing; -1 in a row that has none): a layout update's own time without its
    /// children (`self-duration`), its depth in the layout pass and whether its answer came
    /// from the cache (0 / 1); and what an update made run after it (`downstream-cost`, the
    /// count of `downstream-events`).
    public internal(set) var selfDuration: [Nanoseconds] = []
    public internal(set) var layoutDepth: [Int32] = []
    public internal(set) var cached: [Int8] = []
    public internal(set) var downstreamCost: [Nanoseconds] = []
    public internal(set) var downstreamEvents: [Int32] = []

    public var count: Int { start.count }

    public func selfDuration(_ row: Int) -> Nanoseconds? { Self.value(selfDuration, row) }
    public func layoutDepth(_ row: Int) -> Int? { Self.value(layoutDepth, row).map(Int.init) }
    public func isCached(_ row: Int) -> Bool? { Self.value(cached, row).map { $0 != 0 } }
    public func downstreamCost(_ row: Int) -> Nanoseconds? { Self.value(downstreamCost, row) }
    public func downstreamEvents(_ row: Int) -> Int? { Self.value(downstreamEvents, row).map(Int.init) }
    /// Whether the recording measured what updates made run after them (Instruments 27).
    public var hasDownstream: Bool { !downstreamCost.isEmpty }

    private static func value<T: BinaryInteger>(_ column: [T], _ row: Int) -> T? {
        row < column.count && column[row] >= 0 ? column[row] : nil
    }

    public func severity(_ row: Int) -> LongUpdateSeverity { LongUpdateSeverity(duration: duration[row]) }
    public func end(_ row: Int) -> Nanoseconds { start[row] + duration[row] }
}

/// The cause & effect graph. A node is one event (one appearance of a State, a body, a gesture...);
/// an edge says the source caused the target to update or be created.
public struct CauseGraph: Sendable {
    public internal(set) var nodes = GraphNodeTable()
    public internal(set) var edges = GraphEdgeTable()
    /// Edges by source node and by target node (compressed sparse rows: `outgoing(n)` is cheap).
    public internal(set) var outgoingOffsets: [UInt32] = [0]
    public internal(set) var outgoingEdges: [UInt32] = []
    public internal(set) var incomingOffsets: [UInt32] = [0]
    public internal(set) var incomingEdges: [UInt32] = []

    public func outgoing(_ node: Int) -> ArraySlice<UInt32> {
        outgoingEdges[Int(outgoingOffsets[node])..<Int(outgoingOffsets[node + 1])]
    }

    public func incoming(_ node: Int) -> ArraySlice<UInt32> {
        incomingEdges[Int(incomingOffsets[node])..<Int(incomingOffsets[node + 1])]
    }
}

public struct GraphNodeTable: Sendable {
    public internal(set) var kind: [NodeKind] = []
    /// What Instruments prints as the node's title: a view type, "@State isFavorite", "External Environment"...
    public internal(set) var name: [StringRef] = []
    /// The view or class that owns a State / @Observable property / environment key, or 0 ("").
    public internal(set) var owner: [StringRef] = []
    /// Blue in Instruments: the app's own code; gray: the system's.
    public internal(set) var isAppCode: [Bool] = []
    /// The source's event id; nodes with the same event id are the same event.
    public internal(set) var eventID: [Int64] = []
    public internal(set) var timestamp: [Nanoseconds] = []
    /// The update this node stands for (a body that ran), or `noRow`. A view-body node with no
    /// update was notified but did not run: the graph draws it dimmed.
    public internal(set) var update: [Int32] = []

    public var count: Int { kind.count }

    public func didRun(_ node: Int) -> Bool { kind[node] != .viewBody || update[node] != noRow }
}

public struct GraphEdgeTable: Sendable {
    public internal(set) var source: [UInt32] = []
    public internal(set) var target: [UInt32] = []
    public internal(set) var label: [EdgeLabel] = []
    /// The property whose change travelled along this edge, or 0 ("").
    public internal(set) var changedProperty: [StringRef] = []
    public internal(set) var timestamp: [Nanoseconds] = []
    /// The update group (transaction) this edge belongs to, or `noRow`.
    public internal(set) var group: [Int32] = []

    public var count: Int { source.count }
}

/// Writes to State / @Observable values, with where in the app they were written.
public struct StateChangeTable: Sendable {
    public internal(set) var timestamp: [Nanoseconds] = []
    /// The graph node of the changed value.
    public internal(set) var node: [UInt32] = []
    public internal(set) var description: [StringRef] = []
    /// Stack id in `Trace.cpu.stacks` (leaf frame), or `noRow`.
    public internal(set) var backtrace: [Int32] = []
    public internal(set) var thread: [Int32] = []

    public var count: Int { timestamp.count }
}

/// Time Profiler samples with shared frame and stack tables (stacks form a prefix tree).
public struct CPUProfile: Sendable {
    public internal(set) var frames = FrameTable()
    public internal(set) var stacks = StackTable()
    public internal(set) var samples = SampleTable()
}

public struct FrameTable: Sendable {
    /// Symbol name, e.g. "LandmarkListItemView.body.getter".
    public internal(set) var name: [StringRef] = []
    /// Binary (image) name, e.g. "Landmarks", "Foundation".
    public internal(set) var binary: [StringRef] = []
    public internal(set) var isAppCode: [Bool] = []
    /// Where the function is in the app's source (Instruments 27 writes `<source line><path>`
    /// for the app's frames), in a side table of only the frames that have one: their rows,
    /// ascending, and each one's file (interned) and line. A frame row stays 9 bytes; a frame
    /// with a source adds 12 (most frames of a recording are the system's, with none).
    public internal(set) var sourceFrames: [UInt32] = []
    public internal(set) var sourcePath: [StringRef] = []
    public internal(set) var sourceLine: [UInt32] = []
    public var count: Int { name.count }

    /// The frame's file and line, nil when the recording did not say.
    public func source(of frame: Int) -> (path: StringRef, line: UInt32)? {
        let entry = sourceEntry(frame)
        guard entry < sourceFrames.count, sourceFrames[entry] == frame else { return nil }
        return (sourcePath[entry], sourceLine[entry])
    }

    /// The position of `frame` in `sourceFrames`, or where it would go.
    func sourceEntry(_ frame: Int) -> Int {
        var low = 0, high = sourceFrames.count
        while low < high {
            let mid = (low + high) / 2
            if Int(sourceFrames[mid]) < frame { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// A stack is its leaf frame plus its parent stack (`noRow` at the root): a prefix tree, so
/// a million samples of the same twenty call paths store twenty stacks. A parent is always an
/// earlier row (`TraceBuilder.validate`), so one pass in row order meets every parent first.
public struct StackTable: Sendable {
    public internal(set) var parent: [Int32] = []
    public internal(set) var frame: [UInt32] = []
    public var count: Int { parent.count }

    /// Frames from root to leaf.
    public func frames(of stack: Int) -> [UInt32] {
        var result: [UInt32] = []
        var current = Int32(stack)
        while current != noRow {
            result.append(frame[Int(current)])
            current = parent[Int(current)]
        }
        return result.reversed()
    }
}

public struct SampleTable: Sendable {
    public internal(set) var time: [Nanoseconds] = []
    public internal(set) var thread: [Int32] = []
    /// Sample weight: nanoseconds of CPU time, or cycles (`TraceMetadata.cpuWeightUnit`).
    public internal(set) var weight: [Nanoseconds] = []
    public internal(set) var stack: [UInt32] = []
    public var count: Int { time.count }
}

/// Lookups computed once when the trace is built.
public struct TraceIndexes: Sendable {
    /// Update rows of each update lane, sorted by start.
    public internal(set) var updatesByLane: [Lane: [UInt32]] = [:]
    /// Longest event of each lane, so a window query can start its binary search early enough
    /// to catch events that began before the window and still overlap it.
    public internal(set) var maxDurationByLane: [Lane: Nanoseconds] = [:]
    /// Graph nodes that stand for each update, as compressed sparse rows over update rows.
    public internal(set) var updateNodeOffsets: [UInt32] = [0]
    public internal(set) var updateNodes: [UInt32] = []
    /// Summary rows and per-view update lists, built on first use.
    public let lists = UpdateListIndex()
    /// The samples' (thread, stack) pairs, numbered at load, and the CPU path tries of the
    /// transforms asked for lately (CallTree/CPUPaths.swift), built on first use.
    public internal(set) var cpuPaths = CPUPathCache()
    /// Task-state rows (sorted by start) when a task ran on the main actor or main thread.
    public internal(set) var mainActorRuns: [UInt32] = []
    /// Task-state rows (sorted by start) when a task was enqueued on the main actor.
    public internal(set) var mainActorWaits: [UInt32] = []
    /// Task-state rows of each task, as compressed sparse rows over task rows, in start order.
    public internal(set) var taskStateOffsets: [UInt32] = [0]
    public internal(set) var taskStateRows: [UInt32] = []
    /// Task-state rows that wait for each task (`waitingFor`), as compressed sparse rows over task rows.
    public internal(set) var awaitingOffsets: [UInt32] = [0]
    public internal(set) var awaitingRows: [UInt32] = []
    /// The trace's signpost lanes (none without signposts), at most `SignpostLane.maxLanes`: one
    /// per group and row of its stack, a group's rows in order.
    public internal(set) var signpostLanes: [SignpostLane] = []

    /// Graph nodes with a recorded write that has a backtrace, ascending, and each one's first
    /// such write (a row of `Trace.stateChanges`): a node's write is found without reading every write.
    public internal(set) var writtenNodes: [UInt32] = []
    public internal(set) var firstWriteOfNode: [UInt32] = []

    /// The first recorded write to `node` that has a backtrace, or nil.
    public func firstBacktracedWrite(ofNode node: UInt32) -> Int? {
        var low = 0, high = writtenNodes.count
        while low < high {
            let mid = (low + high) / 2
            if writtenNodes[mid] < node { low = mid + 1 } else { high = mid }
        }
        return low < writtenNodes.count && writtenNodes[low] == node ? Int(firstWriteOfNode[low]) : nil
    }

    public func states(ofTask task: Int) -> ArraySlice<UInt32> {
        taskStateRows[Int(taskStateOffsets[task])..<Int(taskStateOffsets[task + 1])]
    }

    /// Task-state rows (of other tasks) that wait for `task`.
    public func states(awaiting task: Int) -> ArraySlice<UInt32> {
        awaitingRows[Int(awaitingOffsets[task])..<Int(awaitingOffsets[task + 1])]
    }

    public func nodes(ofUpdate update: Int) -> ArraySlice<UInt32> {
        updateNodes[Int(updateNodeOffsets[update])..<Int(updateNodeOffsets[update + 1])]
    }
}
