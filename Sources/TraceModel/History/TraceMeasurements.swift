// What the history keeps of one trace, written to the catalog at upload so that a history query
// never loads a trace. Every figure is read off the comparison's side of the whole trace and the
// findings: nothing is counted a second way (docs/api.md, "History", lists the metric names).

/// One trace's figures: per view body, for the whole trace, and its findings.
public struct TraceMeasurements: Sendable, Equatable {
    /// Bumped when what is measured changes: measurements stored by another version are made
    /// again in the background (so is every one after a parser-version bump).
    public static let version = 3

    /// View rows stored per trace at most: the views with the most body time, the rest summed as
    /// one `otherViews` row, so that a trace of a million distinct views costs the catalog (and
    /// every history read of it) a bounded number of rows.
    public static let maxViewRows = 1000
    /// Findings stored per trace at most, the costliest (the history follows at most 100).
    public static let maxFindingRows = 200
    /// The module and view name of the row that sums the views past `maxViewRows`.
    public static let otherViewsModule = ""
    public static let otherViewsName = "(other views)"

    public var totals: Totals
    /// One row per (module, view) with view-body updates, the most body time first.
    public var views: [View]
    public var findings: [FindingMark]

    public struct Totals: Sendable, Equatable {
        public var updates: Int64 = 0
        public var hitches: Int64 = 0
        public var hitchNs: Int64 = 0
        public var hangs: Int64 = 0
        public var hangNs: Int64 = 0
        /// Time Swift tasks ran on the Main Actor, and waited (were enqueued) for it.
        public var mainActorBusyNs: Int64 = 0
        public var mainActorWaitNs: Int64 = 0
        /// CPU samples and their weight (ns of CPU time, or cycles: the trace's `cpuWeightUnit`).
        public var cpuSamples: Int64 = 0
        public var cpuWeight: Int64 = 0

        public init() {}
    }

    /// A view's bodies, as the comparison's view rows count them (`ComparedViewStats`).
    public struct View: Sendable, Equatable {
        public var module: String
        public var view: String
        public var bodies: Int64
        public var totalNs: Int64
        public var p95Ns: Int64
        public var orange: Int64
        public var red: Int64
        /// Bodies of this view that one cause event made run, in its widest fan-out (0 without one).
        public var widestFanOut: Int64

        public init(module: String, view: String, bodies: Int64, totalNs: Int64, p95Ns: Int64, orange: Int64, red: Int64, widestFanOut: Int64) {
            self.module = module
            self.view = view
            self.bodies = bodies
            self.totalNs = totalNs
            self.p95Ns = p95Ns
            self.orange = orange
            self.red = red
            self.widestFanOut = widestFanOut
        }
    }

    /// A finding as the history follows it: its stable id across traces, and what it costs.
    public struct FindingMark: Sendable, Equatable {
        public var id: String
        public var kind: String
        /// The names of what it is about ("RecipeRowView"), joined by ", ".
        public var subject: String
        public var severity: String
        public var costNs: Int64

        public init(id: String, kind: String, subject: String, severity: String, costNs: Int64) {
            self.id = id
            self.kind = kind
            self.subject = subject
            self.severity = severity
            self.costNs = costNs
        }
    }

    /// The marks as the history follows them over builds: a hang or hitch finding's id is its
    /// time, which no other build shares, so each kind's are one mark (id: the kind alone, as
    /// compare counts them: `FindingComparison.countedKinds`) with their costs added, the highest
    /// severity and the costliest one's subject; the others are kept as they are, in order.
    public static func followed(_ marks: [FindingMark]) -> [FindingMark] {
        // Most traces: no hang or hitch mark and no id twice, so every mark stays as it is.
        if !marks.contains(where: { countedKindNames.contains($0.kind) }), idsAreDistinct(marks) { return marks }
        var merged: [String: FindingMark] = [:]
        var costliest: [String: Int64] = [:]
        var order: [String] = []
        for mark in marks {
            let counted = FindingKind(rawValue: mark.kind).map(FindingComparison.countedKinds.contains) ?? false
            let id = counted ? mark.kind : mark.id
            guard var known = merged[id] else {
                order.append(id)
                merged[id] = FindingMark(id: id, kind: mark.kind, subject: mark.subject, severity: mark.severity, costNs: mark.costNs)
                costliest[id] = mark.costNs
                continue
            }
            known.costNs = known.costNs.addingSaturating(mark.costNs)
            if (FindingSeverity(rawValue: mark.severity) ?? .low) > (FindingSeverity(rawValue: known.severity) ?? .low) { known.severity = mark.severity }
            if mark.costNs > costliest[id, default: 0] { known.subject = mark.subject; costliest[id] = mark.costNs }
            merged[id] = known
        }
        return order.compactMap { merged[$0] }
    }

    /// `FindingComparison.countedKinds` by name: the kinds `followed` merges.
    static let countedKindNames = FindingComparison.countedKinds.map(\.rawValue)

    static func idsAreDistinct(_ marks: [FindingMark]) -> Bool {
        // A trace has a few marks (at most `maxFindingRows`): pairs up to 16, a set past that.
        guard marks.count > 16 else {
            for (index, mark) in marks.enumerated() where marks[(index + 1)...].contains(where: { $0.id == mark.id }) { return false }
            return true
        }
        return Set(marks.lazy.map(\.id)).count == marks.count
    }

    public init(totals: Totals, views: [View], findings: [FindingMark]) {
        self.totals = totals
        self.views = views
        self.findings = findings
    }

    /// The figures of `side` (the whole trace's comparison side) and `findings` (the default thresholds').
    public init(side: ComparisonSide, findings: [Finding]) {
        var totals = Totals()
        totals.updates = Int64(side.totals["updates"]?.count ?? 0)
        totals.hitches = Int64(side.totals["hitches"]?.count ?? 0)
        totals.hitchNs = side.totals["hitches"]?.totalNs ?? 0
        totals.hangs = Int64(side.totals["hangs"]?.count ?? 0)
        totals.hangNs = side.totals["hangs"]?.totalNs ?? 0
        totals.mainActorBusyNs = side.mainActorRuns.totalNs
        totals.mainActorWaitNs = side.mainActorWaits.totalNs
        totals.cpuSamples = Int64(side.totals["cpu"]?.count ?? 0)
        totals.cpuWeight = side.totals["cpu"]?.totalNs ?? 0

        // The widest fan-out into each view's body, by view name (a fan-out's key has no module).
        var widest: [String: Int] = [:]
        for (index, key) in side.fanOutKeys.enumerated() where key.targetKind == .viewBody {
            let name = side.strings[Int(key.targetName)]
            widest[name] = max(widest[name] ?? 0, side.fanOuts[index].maxPerEvent)
        }
        // A view's body rows of several categories are one view: their durations merged.
        struct Key: Hashable { var module: String, view: String }
        var durations: [Key: [Nanoseconds]] = [:]
        for (key, sample) in side.views where sample.kind == UpdateKind.viewBody.wireName {
            durations[Key(module: key.module, view: key.view), default: []] += sample.sortedDurations
        }
        views = Self.bounded(durations.map { key, merged in
            let stats = ComparedViewStats(sortedDurations: merged.sorted())
            return View(
                module: key.module, view: key.view, bodies: Int64(stats.count), totalNs: stats.totalNs, p95Ns: stats.p95Ns,
                orange: Int64(stats.orange), red: Int64(stats.red), widestFanOut: Int64(widest[key.view] ?? 0)
            )
        }.sorted { ($0.totalNs, $1.view, $1.module) > ($1.totalNs, $0.view, $0.module) })
        self.totals = totals
        self.findings = findings.prefix(Self.maxFindingRows).map { finding in
            FindingMark(
                id: finding.id, kind: finding.kind.rawValue, subject: finding.subjects.map(\.name).joined(separator: ", "),
                severity: finding.severity.rawValue, costNs: finding.costNs
            )
        }
    }
}

extension TraceMeasurements {
    /// `sorted` (most body time first) cut to `maxViewRows`: the last row sums the views past it
    /// (bodies, time and colours added, the 95th percentile and fan-out their largest).
    static func bounded(_ sorted: [View]) -> [View] {
        guard sorted.count > maxViewRows else { return sorted }
        let rest = sorted[(maxViewRows - 1)...]
        var other = View(module: otherViewsModule, view: otherViewsName, bodies: 0, totalNs: 0, p95Ns: 0, orange: 0, red: 0, widestFanOut: 0)
        for row in rest {
            other.bodies += row.bodies
            other.totalNs = other.totalNs.addingSaturating(row.totalNs)
            other.p95Ns = max(other.p95Ns, row.p95Ns)
            other.orange += row.orange
            other.red += row.red
            other.widestFanOut = max(other.widestFanOut, row.widestFanOut)
        }
        return Array(sorted.prefix(maxViewRows - 1)) + [other]
    }
}

extension Trace {
    /// The history's figures of this trace (the comparison side and findings are computed here;
    /// a server that holds them already passes them to `TraceMeasurements(side:findings:)`).
    public func measurements() -> TraceMeasurements {
        TraceMeasurements(side: comparisonSide(), findings: findings())
    }
}
