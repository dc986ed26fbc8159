/// The native trace format, version 2 (docs/trace-format.md): one JSON object whose tables
/// are arrays of rows, each row an array of values in a fixed column order. Version 2 adds the
/// Swift concurrency tables (`tasks`, `taskStates`) and the optional `signposts`; version 1
/// files (without them) still read.
public enum NativeTraceFormat {
    public static let formatName = "tracesvc-trace"
    /// The version written.
    public static let version = 2
    public static let readableVersions: ClosedRange<Int64> = 1...2
    /// `TraceMetadata.sourceFormat` of traces read from this format: "tracesvc-json/2".
    public static func sourceFormat(version: Int64) -> String { "tracesvc-json/\(version)" }
    public static let sourceFormat = sourceFormat(version: Int64(version))

    /// The tables in the order a file must list them: a row may refer only to rows of its own
    /// table that come before it or to tables listed earlier, so a streaming reader can check
    /// every reference where it stands.
    enum Table: String, CaseIterable {
        case processes, threads, updateGroups, updates, nodes, edges, frames, stacks, stateChanges, samples, hitches, hangs
        case tasks, taskStates, signposts

        /// The first format version that has this table.
        var sinceVersion: Int64 {
            switch self {
            case .tasks, .taskStates, .signposts: 2
            default: 1
            }
        }

        var columns: [String] {
            switch self {
            case .processes: ["pid", "name"]
            case .threads: ["tid", "name", "process", "isMain"]
            case .updateGroups: ["start", "duration", "label", "thread"]
            case .updates: ["start", "duration", "kind", "module", "view", "description", "category", "allocations", "thread", "group", "sourceSeverity"]
            case .nodes: ["kind", "name", "owner", "isAppCode", "eventID", "timestamp", "update"]
            case .edges: ["source", "target", "label", "changedProperty", "timestamp", "group"]
            case .frames: ["name", "binary", "isAppCode"]
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
            }
        }
    }
}
