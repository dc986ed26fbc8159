// One metric over builds: the traces grouped by build, in order, with the steps
// `StepDetection` finds over the whole series (docs/statistics.md, docs/api.md "History").

/// One trace of a history, as the catalog gave it (newest-first order does not matter).
public struct HistoryTrace: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Where it sits on the chart's axis: its upload time, or its commit time (`order=commit`), in µs.
    public var orderKey: Int64
    /// ISO 8601, as the list shows upload times.
    public var uploadedAt: String
    /// `key:value` texts and labels: those the grouping reads (`build`, `commit`) at least.
    public var tags: [String]
    public var value: Int64
    public var check: HistoryCheck?

    public init(id: String, name: String, orderKey: Int64, uploadedAt: String, tags: [String], value: Int64, check: HistoryCheck?) {
        self.id = id
        self.name = name
        self.orderKey = orderKey
        self.uploadedAt = uploadedAt
        self.tags = tags
        self.value = value
        self.check = check
    }

    /// The value of tag `key` ("build" of "build:412"); nil when the trace has none.
    public func tag(_ key: String) -> String? { Self.tag(key, in: tags) }

    static func tag(_ key: String, in tags: [String]) -> String? {
        for tag in tags where tag.hasPrefix(key + ":") { return String(tag.dropFirst(key.count + 1)) }
        return nil
    }

    /// The tag keys `buildKey` reads: a catalog read for grouping carries only these of a trace's tags.
    public static let buildKeyTags: Set<String> = ["build", "commit"]

    /// The build a trace with `tags` belongs to: its `build` tag, else its `commit`, else itself alone.
    public static func buildKey(tags: [String], id: String) -> String {
        tag("build", in: tags).map { "b:" + $0 } ?? tag("commit", in: tags).map { "c:" + $0 } ?? "t:" + id
    }
}

/// A `tracesvc check` verdict recorded on the server for a trace.
public struct HistoryCheck: Sendable, Equatable, Encodable {
    public var passed: Bool
    public var failedRules: Int
    public var rules: Int
    @NullWhenAbsent public var baselineId: String?
    public var summary: String

    public init(passed: Bool, failedRules: Int, rules: Int, baselineId: String?, summary: String) {
        self.passed = passed
        self.failedRules = failedRules
        self.rules = rules
        self.baselineId = baselineId
        self.summary = summary
    }
}

public struct HistorySeries: Sendable {
    /// Builds each side of a boundary the rank test compares (fewer at the ends of the series).
    public static let defaultWindow = 8
    /// A step counts when the medians of the two windows differ by at least this share of the larger.
    public static let minimumShift = 0.1

    public struct Point: Sendable, Encodable {
        public var id: String
        public var name: String
        public var uploadedAt: String
        public var value: Int64
        @NullWhenAbsent public var check: HistoryCheck?
    }

    public struct Build: Sendable, Encodable {
        public var index: Int
        /// The `build` tag, else the `commit` tag, else the trace's name (a trace with neither is a build of its own).
        public var label: String
        @NullWhenAbsent public var build: String?
        @NullWhenAbsent public var commit: String?
        /// Its traces, in axis order: several when runs of one build were uploaded.
        public var traces: [Point]
        public var median: Int64
        public var min: Int64
        public var max: Int64
    }

    /// Where the metric stepped and stayed: the first build after the step.
    public struct ChangePoint: Sendable, Encodable {
        public var index: Int
        public var label: String
        @NullWhenAbsent public var commit: String?
        /// The build's first trace, and the build before it with its first trace (the comparison to open).
        public var traceId: String
        public var previousLabel: String
        public var previousTraceId: String
        /// "up" (the metric grew: worse) or "down".
        public var direction: String
        public var before: Int64
        public var after: Int64
        /// The step's evidence: its strength against the series' threshold, or an exact count.
        public var step: DetectedStep
    }

    /// The history of one finding (by its stable id) over the builds.
    public struct FindingHistory: Sendable, Encodable {
        public var id: String
        public var kind: String
        public var subject: String
        public var severity: String
        public var firstSeen: BuildRef
        public var lastSeen: BuildRef
        /// In the latest build: "still present".
        public var stillPresent: Bool
        /// Builds it was seen in.
        public var builds: Int
        /// Its cost in the last build it was seen in.
        public var costNs: Int64
    }

    public struct BuildRef: Sendable, Encodable, Equatable {
        public var index: Int
        public var label: String
        public var traceId: String
    }

    public var metric: String
    public var unit: String
    public var builds: [Build]
    public var changePoints: [ChangePoint]
    /// The confirmed step up still in effect that came first (the build a bisection would name):
    /// the earliest confirmed "up" change point after the last "down" one; nil when none.
    @NullWhenAbsent public var firstBad: ChangePoint?
    /// A step up too young to confirm (fewer than `StepDetection.confirmingBuilds` builds after it).
    @NullWhenAbsent public var suspect: ChangePoint?
    /// One recording's spread about its segment (the chart's noise band), and what the series
    /// can tell: a sentence that never states a confident negative.
    public var noise: RunNoise
    public var verdict: String
    public var window: Int

    /// Groups `traces` into builds in axis order and finds the change points.
    public init(metric: HistoryMetric, traces: [HistoryTrace], window: Int = defaultWindow) {
        self.metric = metric.rawValue
        unit = metric.unit
        self.window = max(1, window)
        builds = Self.group(traces)
        let detection = StepDetection(builds: builds.map { $0.traces.map(\.value) })
        changePoints = Self.changePoints(builds, detection.steps)
        noise = detection.noise
        var firstBad: ChangePoint?
        for change in changePoints where change.step.status == "confirmed" {
            if change.direction == "down" { firstBad = nil } else if firstBad == nil { firstBad = change }
        }
        self.firstBad = firstBad
        let points = changePoints, suspect = points.last.flatMap { $0.step.status == "suspect" && $0.direction == "up" ? $0 : nil }
        self.suspect = suspect
        verdict = Self.verdict(builds: builds.count, changePoints: points, firstBad: firstBad, suspect: suspect, detection: detection)
    }

    /// What the series tells, in a sentence.
    static func verdict(builds: Int, changePoints: [ChangePoint], firstBad: ChangePoint?, suspect: ChangePoint?, detection: StepDetection) -> String {
        func evidence(_ change: ChangePoint) -> String {
            let step = change.step
            let how = step.exact ? "an exact count" : "strength \(DurationText.fixed(step.strength ?? 0, digits: 1)) against \(DurationText.fixed(step.threshold ?? 0, digits: 1))"
            return "\(RecordingEffect.signed(step.percent)) (\(how); \(step.buildsBefore) builds before, \(step.buildsAfter) after)"
        }
        if let suspect {
            return "Suspect build \(suspect.label): \(evidence(suspect)); confirmed after \(StepDetection.confirmingBuilds) builds"
                + (firstBad.map { ". First bad build \($0.label): \(evidence($0))" } ?? "")
        }
        if let firstBad { return "First bad build \(firstBad.label): \(evidence(firstBad))" }
        guard builds >= 3 else { return "\(builds) build\(builds == 1 ? "" : "s"): too few to tell a step; record more builds" }
        if let last = changePoints.last {
            return "Last step: \(last.direction) at build \(last.label), \(evidence(last)); no step up in effect"
        }
        let middle = detection.detectableMiddle.map { "~\(Int($0.rounded())) %" } ?? "?"
        let end = detection.detectableLast.map { "~\(Int($0.rounded())) %" } ?? "?"
        return "No step beyond run-to-run noise in \(builds) builds: a step in the middle would show from \(middle), "
            + "one at the last build from \(end); record more builds (or recordings a build) to tell smaller"
    }

    static func group(_ traces: [HistoryTrace]) -> [Build] {
        let ordered = traces.sorted { ($0.orderKey, $0.id) < ($1.orderKey, $1.id) }
        var keyOfBuild: [String: Int] = [:]
        var members: [[HistoryTrace]] = []
        for trace in ordered {
            let key = HistoryTrace.buildKey(tags: trace.tags, id: trace.id)
            if let index = keyOfBuild[key] {
                members[index].append(trace)
            } else {
                keyOfBuild[key] = members.count
                members.append([trace])
            }
        }
        return members.enumerated().map { index, traces in
            let values = traces.map(\.value).sorted()
            let first = traces[0]
            let build = first.tag("build"), commit = first.tag("commit")
            return Build(
                index: index, label: build ?? commit.map { String($0.prefix(12)) } ?? first.name, build: build, commit: commit,
                traces: traces.map { Point(id: $0.id, name: $0.name, uploadedAt: $0.uploadedAt, value: $0.value, check: $0.check) },
                median: values[(values.count - 1) / 2], min: values[0], max: values[values.count - 1]
            )
        }
    }

    static func changePoints(_ builds: [Build], _ steps: [DetectedStep]) -> [ChangePoint] {
        steps.map { step in
            let build = builds[step.index], previous = builds[step.index - 1]
            func median(_ range: Range<Int>) -> Int64 {
                let values = builds[range].flatMap { $0.traces.map(\.value) }.sorted()
                return values[(values.count - 1) / 2]
            }
            return ChangePoint(
                index: step.index, label: build.label, commit: build.commit, traceId: build.traces[0].id,
                previousLabel: previous.label, previousTraceId: previous.traces[previous.traces.count - 1].id,
                direction: step.direction, before: median(step.index - step.buildsBefore..<step.index),
                after: median(step.index..<step.index + step.buildsAfter), step: step
            )
        }
    }

    /// Each finding seen in the builds: where first and last, and whether the latest build has it;
    /// a trace's hangs, and its hitches, are one row each (`TraceMeasurements.followed`).
    /// `findings` are each trace's, by trace id.
    public func findingHistories(_ findings: [String: [TraceMeasurements.FindingMark]]) -> [FindingHistory] {
        findingHistories { findings[$0] ?? [] }
    }

    /// The same, with each trace's marks given by its id (a history's measurements are read in
    /// place, not copied into a dictionary of marks first).
    public func findingHistories(_ findings: (String) -> [TraceMeasurements.FindingMark]) -> [FindingHistory] {
        // In order of first sight, each changed where it lies: one lookup per mark.
        var rows: [FindingHistory] = []
        var rowOf: [String: Int] = [:]
        var seen: Set<String> = []
        for build in builds {
            seen.removeAll(keepingCapacity: true)
            for trace in build.traces {
                for mark in TraceMeasurements.followed(findings(trace.id)) where seen.insert(mark.id).inserted {
                    let here = BuildRef(index: build.index, label: build.label, traceId: trace.id)
                    if let row = rowOf[mark.id] {
                        rows[row].lastSeen = here
                        rows[row].builds += 1
                        rows[row].costNs = mark.costNs
                        rows[row].severity = mark.severity
                    } else {
                        rowOf[mark.id] = rows.count
                        rows.append(FindingHistory(
                            id: mark.id, kind: mark.kind, subject: mark.subject, severity: mark.severity,
                            firstSeen: here, lastSeen: here, stillPresent: false, builds: 1, costNs: mark.costNs
                        ))
                    }
                }
            }
        }
        let latest = builds.last?.index
        for row in rows.indices { rows[row].stillPresent = rows[row].lastSeen.index == latest }
        return rows.sorted { ($0.stillPresent ? 1 : 0, $0.costNs, $1.id) > ($1.stillPresent ? 1 : 0, $1.costNs, $0.id) }
    }
}
