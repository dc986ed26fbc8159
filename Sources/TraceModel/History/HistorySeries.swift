// One metric over builds: the traces grouped by build, in order, with the change points the
// comparison's rank test finds between a window of builds before and after each boundary.
// docs/api.md ("History") documents the rule.

/// One trace of a history, as the catalog gave it (newest-first order does not matter).
public struct HistoryTrace: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Where it sits on the chart's axis: its upload time, or its commit time (`order=commit`), in µs.
    public var orderKey: Int64
    /// ISO 8601, as the list shows upload times.
    public var uploadedAt: String
    /// `key:value` texts and labels.
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
    public func tag(_ key: String) -> String? {
        for tag in tags where tag.hasPrefix(key + ":") { return String(tag.dropFirst(key.count + 1)) }
        return nil
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
        public var tags: [String]
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
        public var test: RankSumTest
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
    /// The step up still in effect that came first (the build a bisection would name): the
    /// earliest "up" change point after the last "down" one; nil when the metric is not up.
    @NullWhenAbsent public var firstBad: ChangePoint?
    public var window: Int

    /// Groups `traces` into builds in axis order and finds the change points.
    public init(metric: HistoryMetric, traces: [HistoryTrace], window: Int = defaultWindow) {
        self.metric = metric.rawValue
        unit = metric.unit
        self.window = max(1, window)
        builds = Self.group(traces)
        changePoints = Self.changePoints(builds, window: self.window)
        var firstBad: ChangePoint?
        for change in changePoints {
            if change.direction == "down" { firstBad = nil } else if firstBad == nil { firstBad = change }
        }
        self.firstBad = firstBad
    }

    static func group(_ traces: [HistoryTrace]) -> [Build] {
        let ordered = traces.sorted { ($0.orderKey, $0.id) < ($1.orderKey, $1.id) }
        var keyOfBuild: [String: Int] = [:]
        var members: [[HistoryTrace]] = []
        for trace in ordered {
            let key = trace.tag("build").map { "b:" + $0 } ?? trace.tag("commit").map { "c:" + $0 } ?? "t:" + trace.id
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
                traces: traces.map { Point(id: $0.id, name: $0.name, uploadedAt: $0.uploadedAt, value: $0.value, tags: $0.tags, check: $0.check) },
                median: values[(values.count - 1) / 2], min: values[0], max: values[values.count - 1]
            )
        }
    }

    /// Each boundary between builds is tested: the values of up to `window` builds before against
    /// those of up to `window` builds after (`RankSumTest`, as the comparison tests a view's
    /// durations). Of a run of neighbouring boundaries that test significant in one direction,
    /// the one whose windows' means differ most is the change point (then the smallest p-value).
    static func changePoints(_ builds: [Build], window: Int) -> [ChangePoint] {
        struct Candidate { var index: Int, direction: String, test: RankSumTest, before: Int64, after: Int64, meanShift: Double }
        var candidates: [Candidate] = []
        guard builds.count > 1 else { return [] }
        for index in 1..<builds.count {
            let before = builds[max(0, index - window)..<index].flatMap { $0.traces.map(\.value) }.sorted()
            let after = builds[index..<min(builds.count, index + window)].flatMap { $0.traces.map(\.value) }.sorted()
            let test = RankSumTest(before, after)
            guard test.significant else { continue }
            let medianBefore = before[(before.count - 1) / 2], medianAfter = after[(after.count - 1) / 2]
            let larger = Swift.max(abs(medianBefore), abs(medianAfter))
            guard larger > 0, Double(abs(medianAfter - medianBefore)) >= minimumShift * Double(larger) else { continue }
            let meanShift = abs(mean(after) - mean(before))
            candidates.append(Candidate(
                index: index, direction: medianAfter > medianBefore ? "up" : "down", test: test, before: medianBefore, after: medianAfter, meanShift: meanShift
            ))
        }
        var chosen: [Candidate] = []
        var previous: Candidate?
        for candidate in candidates {
            if let previous, previous.index == candidate.index - 1, previous.direction == candidate.direction {
                // The same step seen from a neighbouring boundary: keep the one where it is whole, where
                // the two windows differ most (the rank test ties when one value is merely the largest).
                let best = chosen[chosen.count - 1]
                if (candidate.meanShift, -(candidate.test.pValue ?? 1)) > (best.meanShift, -(best.test.pValue ?? 1)) { chosen[chosen.count - 1] = candidate }
            } else {
                chosen.append(candidate)
            }
            previous = candidate
        }
        return chosen.map { candidate in
            let build = builds[candidate.index], previous = builds[candidate.index - 1]
            return ChangePoint(
                index: candidate.index, label: build.label, commit: build.commit, traceId: build.traces[0].id,
                previousLabel: previous.label, previousTraceId: previous.traces[previous.traces.count - 1].id,
                direction: candidate.direction, before: candidate.before, after: candidate.after, test: candidate.test
            )
        }
    }

    private static func mean(_ values: [Int64]) -> Double {
        values.isEmpty ? 0 : values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
    }

    /// Each finding seen in the builds: where first and last, and whether the latest build has it.
    /// `findings` are each trace's, by trace id.
    public func findingHistories(_ findings: [String: [TraceMeasurements.FindingMark]]) -> [FindingHistory] {
        var histories: [String: FindingHistory] = [:]
        var order: [String] = []
        for build in builds {
            var seen: Set<String> = []
            for trace in build.traces {
                for mark in findings[trace.id] ?? [] where seen.insert(mark.id).inserted {
                    let here = BuildRef(index: build.index, label: build.label, traceId: trace.id)
                    if var known = histories[mark.id] {
                        known.lastSeen = here
                        known.builds += 1
                        known.costNs = mark.costNs
                        known.severity = mark.severity
                        histories[mark.id] = known
                    } else {
                        order.append(mark.id)
                        histories[mark.id] = FindingHistory(
                            id: mark.id, kind: mark.kind, subject: mark.subject, severity: mark.severity,
                            firstSeen: here, lastSeen: here, stillPresent: false, builds: 1, costNs: mark.costNs
                        )
                    }
                }
            }
        }
        let latest = builds.last?.index
        return order.compactMap { id in
            guard var history = histories[id] else { return nil }
            history.stillPresent = history.lastSeen.index == latest
            return history
        }.sorted { ($0.stillPresent ? 1 : 0, $0.costNs, $1.id) > ($1.stillPresent ? 1 : 0, $1.costNs, $0.id) }
    }
}
