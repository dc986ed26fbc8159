// Which findings (docs/findings.md) a change resolved, which it introduced, which are still
// there. Findings match by id (kind and subject: "collection-fan-out:@Observable X>Row"), which
// is stable across recordings; hangs and hitches have no subject to match by (their id is a
// time), so they compare as a count per kind.

public enum FindingChange: String, Sendable, Equatable, Encodable {
    /// In A, in no run of B.
    case resolved
    /// In B, in no run of A.
    case new
    /// In both.
    case stillPresent = "still-present"
}

/// One finding (or, for hangs and hitches, one kind) on both sides.
public struct FindingComparison: Sendable, Equatable, Encodable {
    public var kind: FindingKind
    /// The finding's id without its kind; "" for hangs and hitches, counted per kind.
    public var key: String
    /// What it is about, in a few words: "LandmarkListItemView (@Observable ModelData.favoritesCollection)".
    public var subject: String
    /// B's title when B has it, else A's.
    public var title: String
    public var change: FindingChange
    @NullWhenAbsent public var a: FindingPresence? = nil
    @NullWhenAbsent public var b: FindingPresence? = nil

    /// Kinds whose findings are intervals of the recording (one per hang or hitch).
    static let countedKinds: Set<FindingKind> = [.hangExplained, .hitchExplained]
}

/// A finding on one side.
public struct FindingPresence: Sendable, Equatable, Encodable {
    /// The finding's id in `run` (the first run of the side that has it): the evidence to open.
    public var id: String
    /// The run (0 = the first trace of the side) that `id` is of.
    public var run: Int
    /// Runs of the side that have it.
    public var runs: Int
    /// Per run (the mean over the runs that have it): occurrences (of hangs and hitches: how many).
    public var occurrences: Int
    public var costNs: Nanoseconds
    public var severity: FindingSeverity
}

extension FindingComparison {
    /// Resolved first, then new, then still present; each by the larger cost, then by kind and key.
    static func compare(_ a: [[Finding]], _ b: [[Finding]]) -> [FindingComparison] {
        let before = presences(a), after = presences(b)
        let rows = Set(before.keys).union(after.keys).map { key -> FindingComparison in
            let x = before[key], y = after[key]
            let sample = (y ?? x)!.finding
            return FindingComparison(
                kind: sample.kind, key: key.key, subject: subject(of: sample, counted: key.key.isEmpty), title: sample.title,
                change: x == nil ? .new : y == nil ? .resolved : .stillPresent, a: x?.presence, b: y?.presence
            )
        }
        let order: [FindingChange] = [.resolved, .new, .stillPresent]
        return rows.sorted { p, q in
            let costP = max(p.a?.costNs ?? 0, p.b?.costNs ?? 0), costQ = max(q.a?.costNs ?? 0, q.b?.costNs ?? 0)
            return (order.firstIndex(of: p.change)!, -costP, p.kind.rawValue, p.key) < (order.firstIndex(of: q.change)!, -costQ, q.kind.rawValue, q.key)
        }
    }

    private struct Key: Hashable { var kind: FindingKind, key: String }

    /// Per key, a representative finding (of the first run with it) and its presence on the side.
    private static func presences(_ runs: [[Finding]]) -> [Key: (finding: Finding, presence: FindingPresence)] {
        var found: [Key: (finding: Finding, presence: FindingPresence, occurrences: Int, cost: Nanoseconds)] = [:]
        for (run, findings) in runs.enumerated() {
            var inRun: [Key: (occurrences: Int, cost: Nanoseconds, severity: FindingSeverity, finding: Finding)] = [:]
            for finding in findings {
                let counted = countedKinds.contains(finding.kind)
                let prefix = finding.kind.rawValue + ":"
                let key = Key(kind: finding.kind, key: counted ? "" : finding.id.hasPrefix(prefix) ? String(finding.id.dropFirst(prefix.count)) : finding.id)
                var entry = inRun[key] ?? (0, 0, finding.severity, finding)
                // A hitch or hang finding groups the intervals of one cause: its occurrences are the hitches.
                entry.occurrences += finding.occurrences
                entry.cost.addSaturating(finding.costNs)
                entry.severity = max(entry.severity, finding.severity)
                inRun[key] = entry
            }
            for (key, entry) in inRun {
                if var known = found[key] {
                    known.presence.runs += 1
                    known.presence.severity = max(known.presence.severity, entry.severity)
                    known.occurrences += entry.occurrences
                    known.cost.addSaturating(entry.cost)
                    found[key] = known
                } else {
                    let presence = FindingPresence(
                        id: entry.finding.id, run: run, runs: 1, occurrences: 0, costNs: 0, severity: entry.severity
                    )
                    found[key] = (entry.finding, presence, entry.occurrences, entry.cost)
                }
            }
        }
        return found.mapValues { entry in
            var presence = entry.presence
            presence.occurrences = Int((Double(entry.occurrences) / Double(presence.runs)).rounded())
            presence.costNs = entry.cost / Nanoseconds(presence.runs)
            return (finding: entry.finding, presence: presence)
        }
    }

    /// The finding's subjects in a few words: the views, then the first other subject, what drove
    /// them ("ItemRowView (@Observable Pantry.items)", "AisleHeader (EnvironmentWriter: CartCount)").
    private static func subject(of finding: Finding, counted: Bool) -> String {
        if counted { return finding.kind == .hangExplained ? "hangs" : "hitches" }
        let views = finding.subjects.filter { $0.role == .view }.map(\.name)
        let cause = finding.subjects.first { $0.role != .view }?.name
        let head = views.prefix(3).joined(separator: ", ") + (views.count > 3 ? " and \(views.count - 3) more" : "")
        if head.isEmpty { return cause ?? "" }
        return cause.map { "\(head) (\($0))" } ?? head
    }
}
