import TraceModel

/// What the trace list shows about one trace; also the JSON sidecar stored next to an upload.
public struct TraceRecord: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var app: String
    public var device: String
    public var durationNs: Int64
    public var sizeBytes: Int64
    /// ISO 8601 time of the upload; nil for samples.
    public var uploadedAt: String?
    public var isSample: Bool
    public var sourceFormat: String
    public var updateCount: Int

    init(id: String, trace: Trace, sizeBytes: Int64, uploadedAt: String?, isSample: Bool) {
        self.id = id
        name = trace.metadata.name
        app = trace.metadata.app
        device = trace.metadata.device
        durationNs = trace.metadata.duration
        self.sizeBytes = sizeBytes
        self.uploadedAt = uploadedAt
        self.isSample = isSample
        sourceFormat = trace.metadata.sourceFormat
        updateCount = trace.updates.count
    }

    enum CodingKeys: String, CodingKey {
        case id, name, app, device, durationNs, sizeBytes, uploadedAt, isSample, sourceFormat, updateCount
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(app, forKey: .app)
        try c.encode(device, forKey: .device)
        try c.encode(durationNs, forKey: .durationNs)
        try c.encode(sizeBytes, forKey: .sizeBytes)
        try c.encode(uploadedAt, forKey: .uploadedAt)  // null for samples, not missing
        try c.encode(isSample, forKey: .isSample)
        try c.encode(sourceFormat, forKey: .sourceFormat)
        try c.encode(updateCount, forKey: .updateCount)
    }
}

/// `GET /api/traces/{id}`: the trace's metadata, lanes with their counts, and its tables' sizes.
public struct TraceInfo: Sendable, Encodable, Equatable {
    public struct LaneInfo: Sendable, Encodable, Equatable {
        public var id: String
        public var title: String
        public var count: Int
        public var orange: Int
        public var red: Int
    }

    public struct Counts: Sendable, Encodable, Equatable {
        public var updates, updateGroups, nodes, edges, stateChanges, samples, hitches, hangs: Int
    }

    public struct ThreadInfo: Sendable, Encodable, Equatable {
        public var index: Int
        public var tid: Int64
        public var name: String
        /// Index into `processes`.
        public var process: Int
        public var isMain: Bool
    }

    public var id: String
    public var name: String
    public var app: String
    public var device: String
    public var osVersion: String
    public var refreshRate: Double
    public var recordedAt: String?
    public var start: Int64
    public var end: Int64
    public var sourceFormat: String
    public var importNotes: [String]
    public var lanes: [LaneInfo]
    public var counts: Counts
    public var processes: [TraceProcess]
    public var threads: [ThreadInfo]

    init(id: String, trace: Trace) {
        let meta = trace.metadata
        self.id = id
        name = meta.name
        app = meta.app
        device = meta.device
        osVersion = meta.osVersion
        refreshRate = meta.refreshRate
        recordedAt = meta.recordedAt
        start = meta.start
        end = meta.end
        sourceFormat = meta.sourceFormat
        importNotes = meta.importNotes
        lanes = Lane.allCases.map { lane in
            var info = LaneInfo(id: lane.rawValue, title: lane.title, count: 0, orange: 0, red: 0)
            switch lane {
            case .updateGroups: info.count = trace.updateGroups.count
            case .hitches: info.count = trace.hitches.count
            case .hangs: info.count = trace.hangs.count
            case .cpu: info.count = trace.cpu.samples.count
            default:
                let rows = trace.indexes.updatesByLane[lane] ?? []
                info.count = rows.count
                for row in rows {
                    switch trace.updates.severity(Int(row)) {
                    case .orange: info.orange += 1
                    case .red: info.red += 1
                    case .normal: break
                    }
                }
            }
            return info
        }
        counts = Counts(
            updates: trace.updates.count, updateGroups: trace.updateGroups.count, nodes: trace.graph.nodes.count,
            edges: trace.graph.edges.count, stateChanges: trace.stateChanges.count, samples: trace.cpu.samples.count,
            hitches: trace.hitches.count, hangs: trace.hangs.count
        )
        processes = trace.processes
        threads = trace.threads.enumerated().map { index, thread in
            ThreadInfo(index: index, tid: thread.tid, name: thread.name, process: Int(thread.process), isMain: thread.isMain)
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, name, app, device, osVersion, refreshRate, recordedAt, start, end, sourceFormat, importNotes
        case lanes, counts, processes, threads
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(app, forKey: .app)
        try c.encode(device, forKey: .device)
        try c.encode(osVersion, forKey: .osVersion)
        try c.encode(refreshRate, forKey: .refreshRate)
        try c.encode(recordedAt, forKey: .recordedAt)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(sourceFormat, forKey: .sourceFormat)
        try c.encode(importNotes, forKey: .importNotes)
        try c.encode(lanes, forKey: .lanes)
        try c.encode(counts, forKey: .counts)
        try c.encode(processes, forKey: .processes)
        try c.encode(threads, forKey: .threads)
    }
}

/// A trace in memory with what the server derived from it once. Build it off the cooperative
/// pool (findings read every update).
public struct LoadedTrace: Sendable {
    public var trace: Trace
    public var info: TraceInfo
    public var timeline: TimelineIndex
    /// Findings with the default thresholds (other thresholds are computed per request).
    public var findings: [Finding]

    init(id: String, trace: Trace) {
        self.trace = trace
        info = TraceInfo(id: id, trace: trace)
        timeline = TimelineIndex()
        findings = trace.findings()
    }
}
