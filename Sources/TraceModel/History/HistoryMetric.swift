/// What a history chart follows across builds (`GET /api/history?metric=`): a figure of
/// `TraceMeasurements`, named as the budget metrics are where they mean the same.
public enum HistoryMetric: String, Sendable, CaseIterable, Codable {
    // One view's bodies (`view=` names it).
    case bodyCount = "body-count"
    case bodyTimeTotal = "body-time-total"
    case bodyTimeP95 = "body-time-p95"
    case orangeBodies = "orange-bodies"
    case redBodies = "red-bodies"
    case fanOut = "fan-out"
    // The whole trace.
    case updateCount = "update-count"
    case hitchCount = "hitch-count"
    case hitchTotal = "hitch-total"
    case hangCount = "hang-count"
    case hangTotal = "hang-total"
    case mainActorRunTotal = "main-actor-run-total"
    case mainActorWaitTotal = "main-actor-wait-total"
    case cpuTotal = "cpu-total"
    // One finding (`finding=` names it by id): its cost, 0 in a trace without it.
    case findingCost = "finding-cost"

    public enum Scope: String, Sendable, Codable { case view, trace, finding }

    public var scope: Scope {
        switch self {
        case .bodyCount, .bodyTimeTotal, .bodyTimeP95, .orangeBodies, .redBodies, .fanOut: .view
        case .findingCost: .finding
        default: .trace
        }
    }

    /// "ns" (durations) or "count"; `cpu-total` is in the trace's CPU weight unit (ns or cycles).
    public var unit: String {
        switch self {
        case .bodyTimeTotal, .bodyTimeP95, .hitchTotal, .hangTotal, .mainActorRunTotal, .mainActorWaitTotal, .findingCost: "ns"
        case .cpuTotal: "cpu-weight"
        default: "count"
        }
    }

    public var title: String {
        switch self {
        case .bodyCount: "bodies"
        case .bodyTimeTotal: "total body time"
        case .bodyTimeP95: "95th percentile body duration"
        case .orangeBodies: "bodies over 500 µs, up to 1 ms"
        case .redBodies: "bodies over 1 ms"
        case .fanOut: "bodies one cause event made run (widest fan-out)"
        case .updateCount: "updates"
        case .hitchCount: "hitches"
        case .hitchTotal: "total hitch time"
        case .hangCount: "hangs"
        case .hangTotal: "total hang time"
        case .mainActorRunTotal: "time tasks ran on the Main Actor"
        case .mainActorWaitTotal: "time tasks waited for the Main Actor"
        case .cpuTotal: "CPU (sampled weight)"
        case .findingCost: "cost of the finding"
        }
    }

    /// This metric of one trace's measurements; `view` (module, view name; module nil = every
    /// module) for view metrics, `finding` (an id) for `finding-cost`. What a trace lacks is 0.
    public func value(in measurements: TraceMeasurements, module: String?, view: String?, finding: String?) -> Int64 {
        let totals = measurements.totals
        switch self {
        case .updateCount: return totals.updates
        case .hitchCount: return totals.hitches
        case .hitchTotal: return totals.hitchNs
        case .hangCount: return totals.hangs
        case .hangTotal: return totals.hangNs
        case .mainActorRunTotal: return totals.mainActorBusyNs
        case .mainActorWaitTotal: return totals.mainActorWaitNs
        case .cpuTotal: return totals.cpuWeight
        case .findingCost: return TraceMeasurements.followed(measurements.findings).first { $0.id == finding }?.costNs ?? 0
        default:
            // The view's rows (one per module when `module` is nil), summed in place: a history asks 2,000 traces.
            var sum: Int64 = 0, largest: Int64 = 0
            for row in measurements.views where row.view == view && (module == nil || row.module == module) {
                switch self {
                case .bodyCount: sum += row.bodies
                case .bodyTimeTotal: sum = sum.addingSaturating(row.totalNs)
                case .orangeBodies: sum += row.orange
                case .redBodies: sum += row.red
                case .bodyTimeP95: largest = max(largest, row.p95Ns)
                default: largest = max(largest, row.widestFanOut)
                }
            }
            return self == .bodyTimeP95 || self == .fanOut ? largest : sum
        }
    }
}
