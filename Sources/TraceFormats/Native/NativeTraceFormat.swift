/// The native trace format, version 3 (docs/trace-format.md): one JSON object whose tables
/// are arrays of rows, each row an array of values in a fixed column order. Version 2 added the
/// Swift concurrency tables (`tasks`, `taskStates`); version 3 keys tasks by process (a `process`
/// column in `tasks`) and adds the optional `signposts`. Versions 1 and 2 still read.
public enum NativeTraceFormat {
    public static let formatName = "tracesvc-trace"
    /// The version written.
    public static let version = 3
    public static let readableVersions: ClosedRange<Int64> = 1...3
    /// `TraceMetadata.sourceFormat` of traces read from this format: "tracesvc-json/3".
    public static func sourceFormat(version: Int64) -> String { "tracesvc-json/\(version)" }
    public static let sourceFormat = sourceFormat(version: Int64(version))

    /// The tables in the order a file must list them: a row may refer only to rows of its own
    /// table that come before it or to tables listed earlier, so a streaming reader can check
    /// every reference where it stands.
    enum Table: String, CaseIterable {
        case processes, threads, updateGroups, updates, nodes, edges, frames, stacks, stateChanges, samples, hitches, hangs
        case tasks, taskStates, signposts, hangRisks

        /// The first format version that has this table.
        var sinceVersion: Int64 {
            switch self {
            case .tasks, .taskStates: 2
            case .signposts, .hangRisks: 3
            default: 1
            }
        }

        /// The columns of a row in a file of `version`: a version 2 task has no `process` (its
        /// tasks are read as of no known process, as version 2 readers keyed them).
        func columns(version: Int64) -> [String] {
            if self == .tasks, version < 3 { return columns.filter { $0 != "process" } }
            return columns
        }

        /// The columns written (the current version).
        var columns: [String] {
            switch self {
            case .processes: ["pid", "name"]
            case .threads: ["tid", "name", "process", "isMain"]
            case .updateGroups: ["start", "duration", "label", "thread"]
            // The last five only on an update that has one of them (Instruments 27), null for each it lacks.
            case .updates:
                ["start", "duration", "kind", "module", "view", "description", "category", "allocations", "thread", "group", "sourceSeverity",
                 "selfDuration", "layoutDepth", "cached", "downstreamCost", "downstreamEvents"]
            case .nodes: ["kind", "name", "owner", "isAppCode", "eventID", "timestamp", "update"]
            case .edges: ["source", "target", "label", "changedProperty", "timestamp", "group"]
            // The last two only on a frame whose file and line the recording has (Instruments 27).
            case .frames: ["name", "binary", "isAppCode", "sourcePath", "sourceLine"]
            case .stacks: ["parent", "frame"]
            case .stateChanges: ["timestamp", "node", "description", "backtrace", "thread"]
            case .samples: ["time", "thread", "weight", "stack"]
            case .hitches, .hangs: ["start", "duration", "kind", "detail", "thread"]
            case .tasks: ["taskID", "process", "name", "creationBacktrace", "start", "end"]
            case .taskStates:
                ["start", "duration", "task", "state", "actor", "isMainActor", "priority", "resumeFunction", "waitingFor",
                 "suspendBacktrace", "thread", "narrative"]
            case .signposts:
                ["start", "duration", "kind", "process", "thread", "subsystem", "category", "name", "beginMessage", "endMessage", "signpostID"]
            case .hangRisks: ["time", "message", "severity", "eventType", "backtrace", "thread"]
            }
        }
    }
}
