// The second source of the run-to-run noise (docs/statistics.md, "The noise model"): earlier
// recordings with the same tags (scenario, device, branch), as the history has them. One value
// per recording and view (its mean time per body, log scale); each view's series is split at its
// steps (`StepDetection`), so a real change between builds is not read as noise; the spread about
// the segments is pooled over the views and steadied by the prior, as a side's own runs are.

/// One earlier recording, as the catalog measured it: its build and each view's bodies and time.
public struct EarlierRecording: Sendable, Equatable {
    /// The build it belongs to (`build` tag, else `commit`, else its own id): recordings of one
    /// build are replicates; builds are in the order given.
    public var build: String
    /// Each view's bodies and their total time, by "module.view".
    public var views: [String: (bodies: Int64, totalNs: Int64)]

    public init(build: String, views: [String: (bodies: Int64, totalNs: Int64)]) {
        self.build = build
        self.views = views
    }

    /// From the history's figures of a recording (the "(other views)" row left out: a sum of many).
    public init(build: String, measurements: TraceMeasurements) {
        var views: [String: (bodies: Int64, totalNs: Int64)] = [:]
        for view in measurements.views where view.view != TraceMeasurements.otherViewsName {
            views["\(view.module).\(view.view)"] = (view.bodies, view.totalNs)
        }
        self.init(build: build, views: views)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.build == b.build && a.views.count == b.views.count
            && a.views.allSatisfy { key, value in b.views[key].map { $0 == value } ?? false }
    }
}

/// Where a comparison's run-to-run noise came from, in words the CLI and the page print.
public struct NoiseOrigin: Sendable, Equatable, Encodable {
    /// One recording's spread used where a side has a single recording (log scale).
    public var sigma: Double
    /// "runs" (a side has two or more recordings), "history" (earlier recordings with the same
    /// tags) or "prior" (`RunNoise.defaultSigma`).
    public var source: String
    /// Earlier recordings read (0 unless `source` or the steadying prior is "history").
    public var earlierRecordings: Int
    /// The tags they share with the compared recordings (`key:value`).
    public var tags: [String]
    /// "from 7 earlier recordings tagged scenario=lm, branch=main: σ 9 % a recording".
    public var text: String

    public init(runsA: Int, runsB: Int, earlier: EarlierNoise?) {
        let prior = earlier?.noise ?? .prior
        sigma = prior.sigma
        earlierRecordings = earlier?.recordings ?? 0
        tags = earlier?.tags ?? []
        let percent = "σ \(Int((prior.sigma * 100).rounded())) % a recording"
        let priorText = earlier.map { "\($0.recordings) earlier recordings tagged \($0.tagText) (\(percent))" }
            ?? "the default prior (\(percent): nothing measured)"
        if runsA > 1 || runsB > 1 {
            source = "runs"
            text = "measured from the recordings compared (\(runsA) vs \(runsB)), steadied by \(priorText)"
        } else if let earlier {
            source = "history"
            text = "noise from \(earlier.recordings) earlier recordings tagged \(earlier.tagText): \(percent)"
        } else {
            source = "prior"
            text = "the default prior, \(percent) (one recording a side, and no earlier recordings with the same scenario, device or branch tags)"
        }
    }
}

/// The noise of earlier recordings with some tags: a `RunNoise` with source "history".
public struct EarlierNoise: Sendable, Equatable, Codable {
    public var noise: RunNoise
    /// Recordings read, and the tags they share (`key:value`).
    public var recordings: Int
    public var tags: [String]

    /// The tags that pick the earlier recordings of a comparison: these keys of the recordings' own tags.
    public static let keys = ["scenario", "device", "branch"]
    /// Recordings a view needs to say anything of its spread.
    public static let minimumRecordings = 3

    /// "scenario=lm, branch=main".
    public var tagText: String {
        tags.map { tag in tag.firstIndex(of: ":").map { String(tag[..<$0]) + "=" + String(tag[tag.index(after: $0)...]) } ?? tag }.joined(separator: ", ")
    }

    /// Nil when no view was in `minimumRecordings` of them (nothing measured: the prior stands).
    public init?(_ recordings: [EarlierRecording], tags: [String], prior: RunNoise = .prior) {
        guard recordings.count >= Self.minimumRecordings else { return nil }
        // Builds in the order given; each view's mean time per body per recording, by build.
        var buildIndex: [String: Int] = [:]
        for recording in recordings where buildIndex[recording.build] == nil { buildIndex[recording.build] = buildIndex.count }
        var series: [String: [[Int64]]] = [:]
        for recording in recordings {
            for (view, figures) in recording.views where figures.bodies > 0 && figures.totalNs > 0 {
                series[view, default: Array(repeating: [], count: buildIndex.count)][buildIndex[recording.build]!].append(figures.totalNs / figures.bodies)
            }
        }
        var segments: [[Double]] = []
        // Views in name order: the same recordings give the same noise.
        for view in series.keys.sorted() {
            let builds = series[view]!
            guard builds.reduce(0, { $0 + $1.count }) >= Self.minimumRecordings else { continue }
            segments += StepDetection(builds: builds, prior: prior).segments
        }
        let noise = RunNoise.measured(segments, prior: prior, source: "history")
        guard noise.degreesOfFreedom > 0 else { return nil }
        self.noise = noise
        self.recordings = recordings.count
        self.tags = tags
    }
}
