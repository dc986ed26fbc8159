/// The native trace format, version 1 (docs/trace-format.md): one JSON object whose tables
/// are arrays of rows, each row an array of values in a fixed column order.
public enum NativeTraceFormat {
    public static let formatName = "tracesvc-trace"
    public static let version = 1
    /// `TraceMetadata.sourceFormat` of traces read from this format.
    public static let sourceFormat = "tracesvc-json/1"

    /// The tables in the order a file must list them: a row may refer only to rows of its own
    /// table that come before it or to tables listed earlier, so a streaming reader can check
    /// every reference where it stands.
    enum Table: String, CaseIterable {
        case processes, threads, updateGroups, updates, nodes, edges, frames, stacks, stateChanges, samples, hitches, hangs

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
            }
        }
    }
}
