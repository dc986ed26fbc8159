import Synchronization
import TraceCatalog
import TraceModel
import TraceStorage

/// A trace as the list, an upload's answer and the tag and note routes describe it: the stored
/// trace (`StoredTrace`, the catalog's row) and whether it is one of this server's read-only
/// samples, which no catalog holds (no upload time, blob or tags). Its fields read as the row's
/// (`record.name`); its JSON is the API's (docs/api.md, "Traces"): the row's hash, blob and
/// parser version stay on the server, a sample's upload time is null. The same JSON is the
/// record kept beside the samples and the sidecar of the earlier data-directory layout.
@dynamicMemberLookup
public struct TraceRecord: Sendable, Codable, Equatable {
    public var stored: StoredTrace
    public var isSample: Bool

    public subscript<Value>(dynamicMember field: WritableKeyPath<StoredTrace, Value>) -> Value {
        get { stored[keyPath: field] }
        set { stored[keyPath: field] = newValue }
    }

    /// An upload as the catalog keeps it (its tags sorted, as the list shows them).
    init(entry: CatalogEntry) {
        stored = entry
        stored.tags.sort()
        isSample = false
    }

    /// A sample of this server, read from its file.
    static func sample(id: String, trace: Trace, sizeBytes: Int64) -> TraceRecord {
        TraceRecord(stored: StoredTrace(id: id, trace: trace, sizeBytes: sizeBytes, sha256: "", run: nil, uploadedAtMicros: 0, parserVersion: 0), isSample: true)
    }

    private init(stored: StoredTrace, isSample: Bool) {
        (self.stored, self.isSample) = (stored, isSample)
    }

    /// The record as a list entry carries it: name, app and device cut to `CatalogEntry.listedLength`
    /// characters and "…" (a 20 MB app name made every list, and the threads answering it, 20 MB heavier).
    var listed: TraceRecord {
        var record = self
        (record.stored.name, record.stored.app, record.stored.device) = (CatalogEntry.listed(stored.name), CatalogEntry.listed(stored.app), CatalogEntry.listed(stored.device))
        return record
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, app, device, durationNs, sizeBytes, uploadedAt, isSample, sourceFormat, updateCount, run, tags
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stored.id, forKey: .id)
        try container.encode(stored.name, forKey: .name)
        try container.encode(stored.app, forKey: .app)
        try container.encode(stored.device, forKey: .device)
        try container.encode(stored.durationNs, forKey: .durationNs)
        try container.encode(stored.sizeBytes, forKey: .sizeBytes)
        try container.encode(isSample ? nil : stored.uploadedAtText, forKey: .uploadedAt)
        try container.encode(isSample, forKey: .isSample)
        try container.encode(stored.sourceFormat, forKey: .sourceFormat)
        try container.encode(stored.updateCount, forKey: .updateCount)
        try container.encode(stored.run, forKey: .run)
        try container.encode(stored.tags, forKey: .tags)
    }

    /// Sidecars of the earlier data-directory layout predate tags: a missing `tags` is none; a
    /// missing or unreadable upload time is 0 (the migration takes the file's time then).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uploadedAt = try container.decodeIfPresent(String.self, forKey: .uploadedAt)
        stored = StoredTrace(
            id: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
            app: try container.decode(String.self, forKey: .app), device: try container.decode(String.self, forKey: .device),
            durationNs: try container.decode(Int64.self, forKey: .durationNs), sizeBytes: try container.decode(Int64.self, forKey: .sizeBytes),
            sha256: "", sourceFormat: try container.decode(String.self, forKey: .sourceFormat),
            updateCount: try container.decode(Int.self, forKey: .updateCount), run: try container.decodeIfPresent(Int.self, forKey: .run),
            uploadedAtMicros: uploadedAt.flatMap(CatalogEntry.micros(fromISO8601:)) ?? 0,
            tags: try container.decodeIfPresent([String].self, forKey: .tags) ?? [], parserVersion: 0
        )
        isSample = try container.decode(Bool.self, forKey: .isSample)
    }
}

extension StoredTrace {
    /// The row of `trace` (its name, app, device, duration, format and updates).
    init(id: String, trace: Trace, sizeBytes: Int64, sha256: String, run: Int?, uploadedAtMicros: Int64, tags: [String] = [], parserVersion: Int) {
        let meta = trace.metadata
        self.init(
            id: id, name: meta.name, app: meta.app, device: meta.device, durationNs: meta.duration, sizeBytes: sizeBytes, sha256: sha256,
            sourceFormat: meta.sourceFormat, updateCount: trace.updates.count, run: run, uploadedAtMicros: uploadedAtMicros, tags: tags,
            parserVersion: parserVersion
        )
    }
}

/// `GET /api/traces/{id}`: the trace's metadata, lanes with their counts, and its tables' sizes.
/// The metadata's fields stand flat in the JSON beside the others, as `TraceMetadata` encodes them.
public struct TraceInfo: Sendable, Encodable, Equatable {
    public struct Counts: Sendable, Encodable, Equatable {
        public var updates, updateGroups, nodes, edges, stateChanges, samples, hitches, hangs, tasks, taskStates, signposts: Int
        /// All of them: `TraceInfo` lists the first `TraceInfo.maxListed`.
        public var processes, threads, importNotes: Int
    }

    /// Processes, threads and import notes listed (a file may hold a million threads).
    public static let maxListed = 1000

    public struct ThreadInfo: Sendable, Encodable, Equatable {
        public var index: Int
        public var tid: Int64
        public var name: String
        /// Index into `processes`.
        public var process: Int
        public var isMain: Bool
    }

    public var id: String
    /// The recording's name, app, device, OS, refresh rate (null when it does not say: an xctrace
    /// export has none), span, format, CPU weight unit, runs (of a several-run export; another is
    /// read by uploading the same file with `?run=N`) and its first `maxListed` import notes.
    public var metadata: TraceMetadata
    public var lanes: [LaneCount]
    public var counts: Counts
    public var processes: [TraceProcess]
    public var threads: [ThreadInfo]
    /// The upload's tags (`key:value`), as the list shows them; `[]` for samples.
    public var tags: [String] = []
    /// A sample of the server: read-only (no tags, notes or delete).
    public var isSample = false
    /// How the page links frames' files and lines (`serve --source-url/--source-root`); absent without them.
    public var sourceLink: SourceLink?
    /// Who uploaded it, as the audit trail names them (a token's name, "shared token", "open (no
    /// token required)"); null for samples and uploads from before the trail.
    public var uploadedBy: String?

    init(id: String, trace: Trace) {
        self.id = id
        metadata = trace.metadata
        metadata.importNotes = Array(metadata.importNotes.prefix(Self.maxListed))
        lanes = trace.laneCounts()
        counts = Counts(
            updates: trace.updates.count, updateGroups: trace.updateGroups.count, nodes: trace.graph.nodes.count,
            edges: trace.graph.edges.count, stateChanges: trace.stateChanges.count, samples: trace.cpu.samples.count,
            hitches: trace.hitches.count, hangs: trace.hangs.count, tasks: trace.tasks.count, taskStates: trace.taskStates.count,
            signposts: trace.signposts.count,
            processes: trace.processes.count, threads: trace.threads.count, importNotes: trace.metadata.importNotes.count
        )
        processes = Array(trace.processes.prefix(Self.maxListed))
        threads = trace.threads.prefix(Self.maxListed).enumerated().map { index, thread in
            ThreadInfo(index: index, tid: thread.tid, name: thread.name, process: Int(thread.process), isMain: thread.isMain)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, lanes, counts, processes, threads, tags, isSample, sourceLink, uploadedBy
    }

    public func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(lanes, forKey: .lanes)
        try container.encode(counts, forKey: .counts)
        try container.encode(processes, forKey: .processes)
        try container.encode(threads, forKey: .threads)
        try container.encode(tags, forKey: .tags)
        try container.encode(isSample, forKey: .isSample)
        try container.encode(sourceLink, forKey: .sourceLink)
        try container.encode(uploadedBy, forKey: .uploadedBy)
    }
}

/// A trace in memory with what the server derived from it once. Build it off the cooperative
/// pool. What the first picture needs (the trace's description and the timeline's index) is
/// built here, before an upload or a load answers; the rest (findings, the summary and update
/// lists, the comparison side with its cause fan-outs) right after, off the request path
/// (`prepareExtras`), and a request that needs one of them first builds or waits for that one only.
public struct LoadedTrace: Sendable {
    public let trace: Trace
    public let info: TraceInfo
    /// Built with the trace (see `init`) and kept with it.
    private let timelineIndex = TimelineIndex()
    /// The whole-trace comparison side (with the cause fan-outs), built once and kept with the trace.
    private let comparisonSides = ComparisonSideCache()
    private let defaultFindings = FindingsOnce()
    private let searches = SearchCache()
    /// The trace's share of the memory budget, held as long as any copy of this value lives
    /// (in the store's cache or in a request), resized to `footprint` once it is built.
    let memory: MemoryBudget.Claim

    init(id: String, trace: Trace, memory: MemoryBudget.Claim) {
        self.trace = trace
        info = TraceInfo(id: id, trace: trace)
        timelineIndex.prepare(trace)
        self.memory = memory
        memory.resize(to: Self.footprint(of: trace))
    }

    /// Findings with the default thresholds (other thresholds are computed per request): read
    /// every update the first time, so call it off the cooperative pool unless `findingsIfBuilt`.
    public var findings: [Finding] { defaultFindings.get { trace.findings() } }
    /// The default findings when they are built already.
    public var findingsIfBuilt: [Finding]? { defaultFindings.current }

    /// What the first picture does not need, built after it: findings, the summary and update
    /// lists, the comparison side and its cause fan-outs. Each is built once, whoever asks first.
    func prepareExtras() {
        _ = findings
        trace.indexes.lists.prepare(trace)
        _ = comparisonSides.side(of: trace, findings: findings)
    }

    /// Bytes the trace and what is derived from it take (the comparison side and the CPU pane's
    /// caches counted up front, at the most they keep).
    static func footprint(of trace: Trace) -> Int {
        trace.memoryFootprint + TimelineIndex.expectedFootprint(of: trace) + ComparisonSideCache.expectedFootprint(of: trace)
            + CPUPathCache.expectedFootprint(of: trace)
    }

    public func timeline(window: TimeRange, width: Int, lanes: [TimelineLaneID]) -> Timeline {
        trace.timeline(window: window, width: width, laneIDs: lanes, index: timelineIndex)
    }

    /// `timeline(...)` in the browser's binary columns, written straight from the query.
    public func timelineBinary(window: TimeRange, width: Int, lanes: [TimelineLaneID]) -> [UInt8] {
        trace.timelineBinary(window: window, width: width, laneIDs: lanes, index: timelineIndex)
    }

    /// The timeline search's matches, the last few queries' kept (`SearchCache`).
    func searchMatches(_ query: TimelineSearchQuery) -> TimelineMatches {
        searches.matches(query, in: trace)
    }

    public func comparisonSide(in range: TimeRange?) -> ComparisonSide {
        range == nil ? comparisonSides.side(of: trace, findings: findings) : trace.comparisonSide(in: range, findings: findings)
    }

    /// What the history keeps of this trace, from the comparison side and findings held here.
    public func measurements() -> TraceMeasurements {
        TraceMeasurements(side: comparisonSide(in: nil), findings: findings)
    }
}

/// The default findings of a trace, built once by whoever asks first; others wait for that build.
final class FindingsOnce: Sendable {
    private let value = Mutex<[Finding]?>(nil)

    func get(_ make: () -> [Finding]) -> [Finding] {
        value.withLock { value in
            if let value { return value }
            let made = make()
            // Made while cancelled, they may be partial (`QueryCancellation`): never kept.
            if !Task.isCancelled { value = made }
            return made
        }
    }

    var current: [Finding]? { value.withLock { $0 } }
}
