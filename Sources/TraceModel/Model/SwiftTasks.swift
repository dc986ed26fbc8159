/// Swift concurrency, as the Swift Tasks instrument records it: one row per task, and one row
/// per interval a task spent in a state (creating, enqueued on an actor, running, suspended...).

/// What a task was doing during one interval (`swift-task-state` in the export): every state
/// the Swift Tasks instrument writes. `waiting` is a suspension too (blocked on a continuation or
/// another task, not on an actor); only `enqueued` waits for an actor.
public enum SwiftTaskState: UInt8, Sendable, CaseIterable, Codable {
    case creating, enqueued, running, suspended, waiting, continuation, ending, unknown

    public var wireName: String {
        switch self {
        case .creating: "creating"
        case .enqueued: "enqueued"
        case .running: "running"
        case .suspended: "suspended"
        case .waiting: "waiting"
        case .continuation: "continuation"
        case .ending: "ending"
        case .unknown: "unknown"
        }
    }

    /// The text Instruments shows ("Creating", "Enqueued", ...).
    public var title: String {
        switch self {
        case .creating: "Creating"
        case .enqueued: "Enqueued"
        case .running: "Running"
        case .suspended: "Suspended"
        case .waiting: "Waiting"
        case .continuation: "Continuation"
        case .ending: "Ending"
        case .unknown: "Unknown"
        }
    }

    public init?(wireName: String) {
        guard let value = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = value
    }

    /// From Instruments' text, case-insensitively ("Created" and "Ended" too); nil for a text
    /// that names no state this model knows (the importer notes it and reads `.unknown`).
    public init?(title: String) {
        let lower = String(title.lowercased().drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        let aliases: [String: Self] = ["created": .creating, "ended": .ending, "completed": .ending]
        guard let value = Self.allCases.first(where: { $0.wireName == lower }) ?? aliases[lower] else { return nil }
        self = value
    }
}

/// How long a task waited on the main actor before it ran: orange above one 60 Hz frame
/// (16 ms: the wait alone can cost a frame), red above 100 ms (the user sees the delay).
public enum MainActorWait {
    public static let orangeThreshold: Nanoseconds = 16_000_000
    public static let redThreshold: Nanoseconds = 100_000_000

    public static func severity(_ duration: Nanoseconds) -> LongUpdateSeverity {
        duration > redThreshold ? .red : duration > orangeThreshold ? .orange : .normal
    }
}

/// One row per Swift task (`SwiftTasksInfoTable`, `SwiftTaskLifetime`). A task is its
/// (process, task id): the runtime numbers tasks per process, so two apps recorded together
/// both have a task 7.
public struct SwiftTaskTable: Sendable {
    /// The runtime's task id (`swift-task-id`), unique within `process` only.
    public internal(set) var taskID: [Int64] = []
    /// Index into `Trace.processes` of the task's process, or `noRow` when the export names none.
    public internal(set) var process: [Int32] = []
    /// "View.task @ Landmarks/DetailView.swift:41", or "" when the runtime gave no name.
    public internal(set) var name: [StringRef] = []
    /// Stack id in `Trace.cpu.stacks` (leaf frame) where the task was created, or `noRow`.
    public internal(set) var creationBacktrace: [Int32] = []
    /// Lifetime (creation to end); `start == end` when the export has no lifetime row.
    public internal(set) var start: [Nanoseconds] = []
    public internal(set) var end: [Nanoseconds] = []
    public var count: Int { taskID.count }
}

/// One row per state interval of a task (`SwiftTaskStateTable`), sorted by start.
public struct SwiftTaskStateTable: Sendable {
    public internal(set) var start: [Nanoseconds] = []
    public internal(set) var duration: [Nanoseconds] = []
    /// Row in `Trace.tasks`.
    public internal(set) var task: [UInt32] = []
    public internal(set) var state: [SwiftTaskState] = []
    /// The actor the task ran on (running) or was enqueued on (enqueued): "Main Actor (0x7555…)".
    public internal(set) var actor: [StringRef] = []
    public internal(set) var isMainActor: [Bool] = []
    /// "Medium (21)", "High/User Initiated (25)".
    public internal(set) var priority: [StringRef] = []
    /// Where the task resumed (running intervals): a symbol, or "0x233900c80 SwiftData" unsymbolicated.
    public internal(set) var resumeFunction: [StringRef] = []
    /// Row in `Trace.tasks` of the task this one awaits, or `noRow`.
    public internal(set) var waitingFor: [Int32] = []
    /// Stack id where the task suspended, or `noRow`.
    public internal(set) var suspendBacktrace: [Int32] = []
    /// Index into `Trace.threads` (running intervals), or `noRow`.
    public internal(set) var thread: [Int32] = []
    /// Instruments' sentence: "Was enqueued on actor Main Actor (0x…) for 120.00 ms".
    public internal(set) var narrative: [StringRef] = []

    public var count: Int { start.count }
    public func end(_ row: Int) -> Nanoseconds { start[row] + duration[row] }
}

extension SwiftTaskStateTable {
    func permuted(by order: [Int]) -> Self {
        var table = Self()
        table.start = start.permuted(by: order)
        table.duration = duration.permuted(by: order)
        table.task = task.permuted(by: order)
        table.state = state.permuted(by: order)
        table.actor = actor.permuted(by: order)
        table.isMainActor = isMainActor.permuted(by: order)
        table.priority = priority.permuted(by: order)
        table.resumeFunction = resumeFunction.permuted(by: order)
        table.waitingFor = waitingFor.permuted(by: order)
        table.suspendBacktrace = suspendBacktrace.permuted(by: order)
        table.thread = thread.permuted(by: order)
        table.narrative = narrative.permuted(by: order)
        return table
    }
}

/// What one `addTaskState` call describes (many columns: a value keeps the call readable).
public struct SwiftTaskStateRow: Sendable {
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var task: UInt32
    public var state: SwiftTaskState
    public var actor: StringRef = 0
    public var isMainActor = false
    public var priority: StringRef = 0
    public var resumeFunction: StringRef = 0
    public var waitingFor: Int32 = noRow
    public var suspendBacktrace: Int32 = noRow
    public var thread: Int32 = noRow
    public var narrative: StringRef = 0

    public init(start: Nanoseconds, duration: Nanoseconds, task: UInt32, state: SwiftTaskState) {
        self.start = start
        self.duration = duration
        self.task = task
        self.state = state
    }
}

extension TraceBuilder {
    /// Whether an actor's text names the main actor ("Main Actor (0x…)", "MainActor").
    public static func isMainActorName(_ actor: String) -> Bool {
        actor.hasPrefix("Main Actor") || actor.hasPrefix("MainActor")
    }
}
