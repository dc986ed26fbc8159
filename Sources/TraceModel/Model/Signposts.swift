/// os_signpost intervals and events (the os_signpost and Points of Interest instruments): what an
/// app marks itself ("Load Landmarks", "Favorite Tap"), shown on per-trace lanes grouped by
/// subsystem and category, as Instruments' os_signpost track groups them.

/// How a signpost row came to be.
public enum SignpostKind: UInt8, Sendable, CaseIterable, Codable {
    /// A begin paired with its end.
    case interval
    /// `os_signpost(.event, ...)`: an instant (duration 0).
    case event
    /// A begin without an end: it runs to the end of the recording.
    case unended

    public var wireName: String {
        switch self {
        case .interval: "interval"
        case .event: "event"
        case .unended: "unended"
        }
    }

    public init?(wireName: String) {
        guard let value = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = value
    }
}

/// One row per signpost interval or event, sorted by start.
public struct SignpostTable: Sendable {
    public internal(set) var start: [Nanoseconds] = []
    /// 0 for an event.
    public internal(set) var duration: [Nanoseconds] = []
    public internal(set) var kind: [SignpostKind] = []
    /// Index into `Trace.processes`, or `noRow`.
    public internal(set) var process: [Int32] = []
    /// Index into `Trace.threads` (the begin's thread), or `noRow`.
    public internal(set) var thread: [Int32] = []
    /// "com.example.landmarks"; "" when the log has none.
    public internal(set) var subsystem: [StringRef] = []
    /// "PointsOfInterest" for Points of Interest.
    public internal(set) var category: [StringRef] = []
    /// The signpost's name: "Load Landmarks".
    public internal(set) var name: [StringRef] = []
    /// The formatted message of the begin (or of the event), and of the end.
    public internal(set) var beginMessage: [StringRef] = []
    public internal(set) var endMessage: [StringRef] = []
    /// `os_signpost_id_t`: pairs a begin with its end within a process.
    public internal(set) var signpostID: [UInt64] = []

    public var count: Int { start.count }
    public func end(_ row: Int) -> Nanoseconds { start[row] + duration[row] }
}

extension SignpostTable {
    func permuted(by order: [Int]) -> Self {
        var table = Self()
        table.start = start.permuted(by: order)
        table.duration = duration.permuted(by: order)
        table.kind = kind.permuted(by: order)
        table.process = process.permuted(by: order)
        table.thread = thread.permuted(by: order)
        table.subsystem = subsystem.permuted(by: order)
        table.category = category.permuted(by: order)
        table.name = name.permuted(by: order)
        table.beginMessage = beginMessage.permuted(by: order)
        table.endMessage = endMessage.permuted(by: order)
        table.signpostID = signpostID.permuted(by: order)
        return table
    }
}

/// What one `addSignpost` call describes.
public struct SignpostRow: Sendable {
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var kind: SignpostKind
    public var process: Int32 = noRow
    public var thread: Int32 = noRow
    public var subsystem: StringRef = 0
    public var category: StringRef = 0
    public var name: StringRef = 0
    public var beginMessage: StringRef = 0
    public var endMessage: StringRef = 0
    public var signpostID: UInt64 = 0

    public init(start: Nanoseconds, duration: Nanoseconds, kind: SignpostKind, name: StringRef) {
        self.start = start
        self.duration = duration
        self.kind = kind
        self.name = name
    }
}

/// One signpost lane of a trace: the rows of one subsystem and category, or "Other signposts"; a
/// group whose signposts overlap gets one lane per row of the stack, as Instruments draws them.
public struct SignpostLane: Sendable, Equatable {
    /// "signposts-0": the lane's id in the timeline API (`TimelineLaneID.signposts`).
    public var id: String { TimelineLaneID.signposts(index).wireName }
    public var index: Int
    /// "Points of Interest · com.example.landmarks", "Requests · com.example.net", "Other signposts":
    /// the category first, so a narrow lane header still shows what tells lanes apart.
    public var title: String
    /// nil on the "Other signposts" lane, which holds every group past the limit.
    public var subsystem: String?
    public var category: String?
    /// Signpost rows, sorted by start.
    public var rows: [UInt32]
    public var maxDuration: Nanoseconds
    /// How many subsystem/category groups the lane holds (more than 1 only on "Other signposts").
    public var groupCount: Int
    /// The lane's row in its group's stack: 0 for the first (which the browser titles), 1... for
    /// signposts that overlap those of the rows above.
    public var level = 0
    /// Signposts of the whole group (all its rows): what its title counts.
    public var groupSignposts = 0

    /// At most this many groups per trace: the largest by count each get their lanes (Points of
    /// Interest first), the rest share the last, "Other signposts".
    public static let maxGroups = 12
    /// At most this many rows per group: signposts overlapping more than this share the last
    /// row, where they merge into one mark until zoomed in.
    public static let maxLevels = 4
    public static let maxLanes = maxGroups * maxLevels
    public static let pointsOfInterestCategory = "PointsOfInterest"

    /// Lanes of `table`: only groups that have rows, so a trace without signposts has none.
    static func lanes(of table: SignpostTable, strings: [String]) -> [SignpostLane] {
        struct Key: Hashable { var subsystem: StringRef, category: StringRef }
        var rowsOfGroup: [Key: [UInt32]] = [:]
        var order: [Key] = []
        for row in 0..<table.count {
            let key = Key(subsystem: table.subsystem[row], category: table.category[row])
            if rowsOfGroup[key] == nil { order.append(key) }
            rowsOfGroup[key, default: []].append(UInt32(row))
        }
        func isPOI(_ key: Key) -> Bool { strings[Int(key.category)] == pointsOfInterestCategory }
        func title(_ key: Key) -> String {
            let subsystem = strings[Int(key.subsystem)], category = strings[Int(key.category)]
            if isPOI(key) { return subsystem.isEmpty ? "Points of Interest" : "Points of Interest · \(subsystem)" }
            return [category, subsystem].filter { !$0.isEmpty }.joined(separator: " · ").nonEmpty ?? "Signposts"
        }
        let ranked = order.sorted { a, b in
            let (countA, countB) = (rowsOfGroup[a]!.count, rowsOfGroup[b]!.count)
            if isPOI(a) != isPOI(b) { return isPOI(a) }
            if countA != countB { return countA > countB }
            return title(a) < title(b)
        }
        let named = ranked.count > maxGroups ? ranked.prefix(maxGroups - 1) : ranked[...]
        var lanes: [SignpostLane] = []
        func addGroup(title: String, subsystem: String?, category: String?, rows: [UInt32], groupCount: Int) {
            for (level, levelRows) in stack(rows, of: table).enumerated() {
                lanes.append(SignpostLane(
                    index: lanes.count, title: title, subsystem: subsystem, category: category, rows: levelRows,
                    maxDuration: levelRows.map { table.duration[Int($0)] }.max() ?? 0, groupCount: groupCount,
                    level: level, groupSignposts: rows.count
                ))
            }
        }
        for key in named {
            addGroup(title: title(key), subsystem: strings[Int(key.subsystem)], category: strings[Int(key.category)], rows: rowsOfGroup[key]!, groupCount: 1)
        }
        if ranked.count > maxGroups {
            let rest = ranked.dropFirst(maxGroups - 1)
            let rows = rest.flatMap { rowsOfGroup[$0]! }.sorted { (table.start[Int($0)], $0) < (table.start[Int($1)], $1) }
            addGroup(title: "Other signposts (\(rest.count) groups)", subsystem: nil, category: nil, rows: rows, groupCount: rest.count)
        }
        return lanes
    }

    /// A group's rows (sorted by start) split into rows of the stack that do not overlap: each
    /// signpost goes in the first row free at its start (one that ends there is free); past
    /// `maxLevels` rows, the last takes the rest.
    static func stack(_ rows: [UInt32], of table: SignpostTable) -> [[UInt32]] {
        var levels: [[UInt32]] = []
        var ends: [Nanoseconds] = []
        for row in rows {
            let start = table.start[Int(row)]
            var level = ends.firstIndex { $0 <= start } ?? levels.count
            if level == levels.count {
                if levels.count < maxLevels {
                    levels.append([])
                    ends.append(start)
                } else {
                    level = maxLevels - 1
                }
            }
            levels[level].append(row)
            ends[level] = max(ends[level], table.end(Int(row)))
        }
        return levels
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}

/// A timeline lane: one of the fixed lanes, or a trace's signpost lane by index.
public enum TimelineLaneID: Hashable, Sendable {
    case fixed(Lane)
    case signposts(Int)

    public static let signpostPrefix = "signposts-"

    public var wireName: String {
        switch self {
        case .fixed(let lane): lane.rawValue
        case .signposts(let index): "\(Self.signpostPrefix)\(index)"
        }
    }

    public init?(wireName: String) {
        if let lane = Lane(rawValue: wireName) {
            self = .fixed(lane)
        } else if wireName.hasPrefix(Self.signpostPrefix), let index = Int(wireName.dropFirst(Self.signpostPrefix.count)),
                  index >= 0, index < SignpostLane.maxLanes, String(index) == wireName.dropFirst(Self.signpostPrefix.count) {
            self = .signposts(index)
        } else {
            return nil
        }
    }
}

extension Trace {
    /// "Load Landmarks", or "Load Landmarks: 12 items" when the begin message says more.
    public func signpostLabel(_ row: Int) -> String {
        let name = string(signposts.name[row])
        let message = string(signposts.beginMessage[row])
        return message.isEmpty || message == name ? name : "\(name): \(message)"
    }
}
