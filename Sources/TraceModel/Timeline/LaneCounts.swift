/// What one timeline lane holds: its marks, and how many the timeline draws orange and red.
public struct LaneCount: Sendable, Equatable {
    public var lane: TimelineLaneID
    public var title: String
    /// Marks in the lane: updates, groups, intervals, task states, signposts, or CPU samples.
    public var count = 0
    public var orange = 0
    public var red = 0
    /// A signpost lane's row in its group's stack (0 for the first); nil on the fixed lanes.
    public var level: Int?
    /// The signposts of a signpost lane's whole group (all its rows); nil on the fixed lanes.
    public var groupSignposts: Int?
}

/// A lane as the trace's answer lists it (`GET /api/traces/{id}`, docs/api.md): `id` is the
/// lane's wire name; `signposts` is true on a signpost lane and, as `level` and
/// `groupSignposts`, null on the fixed lanes.
extension LaneCount: Encodable {
    private enum CodingKeys: String, CodingKey { case id, title, count, orange, red, signposts, level, groupSignposts }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lane.wireName, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(count, forKey: .count)
        try container.encode(orange, forKey: .orange)
        try container.encode(red, forKey: .red)
        try container.encode(level == nil ? nil : true, forKey: .signposts)
        try container.encode(level, forKey: .level)
        try container.encode(groupSignposts, forKey: .groupSignposts)
    }
}

extension Trace {
    /// Every lane of the timeline in order (`allTimelineLanes`) with what it holds in `range`
    /// (what overlaps it; nil = the whole trace): the trace info's lanes and `inspect`'s.
    /// Counted from the marks the timeline draws (`LaneSeries`), in the timeline's colours.
    public func laneCounts(in range: TimeRange? = nil) -> [LaneCount] {
        allTimelineLanes.map { id in
            var counts: LaneCount
            switch id {
            case .fixed(.cpu) where metadata.cpuWeightUnit == .cycles:
                counts = LaneCount(lane: id, title: "CPU (cycles)")
            case .fixed(let lane):
                counts = LaneCount(lane: id, title: lane.title)
            case .signposts(let index):
                let lane = indexes.signpostLanes[index]
                counts = LaneCount(lane: id, title: lane.title, level: lane.level, groupSignposts: lane.groupSignposts)
            }
            if id == .fixed(.cpu) {
                let times = cpu.samples.time
                counts.count = range.map { range in times.reduce(0) { $0 + ($1 >= range.start && $1 < range.end ? 1 : 0) } } ?? times.count
            } else if let series = LaneSeries(self, id) {
                for i in 0..<series.count where range?.overlaps(start: series.start(i), end: series.end(i)) ?? true {
                    counts.count += 1
                    switch series.severity(i) {
                    case .normal: break
                    case .orange: counts.orange += 1
                    case .red: counts.red += 1
                    }
                }
            }
            return counts
        }
    }
}
