// The timeline's compact wire format (docs/api.md, "Binary timeline"): per lane, columns of
// fixed-width little-endian integers that the browser reads straight into typed arrays.
// Exact like the JSON (loads to 1/65535): each column stores `value - base` in the fewest
// bytes its range needs (0 when every value is the base), and starts are stored as the gap
// to the previous event's start, so a whole-trace answer costs a few bytes per event.

extension Timeline {
    /// "TLB1": the format's magic and version.
    public static let binaryMagic: [UInt8] = Array("TLB1".utf8)
    /// Lane flag: the update column holds task-state rows.
    static let taskStateRowsFlag: UInt8 = 4
    /// Lane flag: the update column holds signpost rows.
    static let signpostRowsFlag: UInt8 = 8
    /// Lane flag: the update column holds hang-risk rows.
    static let hangRiskRowsFlag: UInt8 = 16

    /// Column order within a lane; `rawValue` is the column's position.
    enum BinaryColumn: Int, CaseIterable {
        /// Gap to the previous event's start (the lane header holds the first start).
        case startGap
        case duration, count
        /// Update row + 1 - base; 0 = none. Task-state or signpost row instead when the lane's
        /// flags say so (main-actor and signpost lanes), so the browser can open what an event stands for.
        case update
        /// Index into the lane's labels + 1; 0 = none.
        case label
        /// Severity (bits 0-1) | update kind code << 2 (0 none, 1 + `UpdateKind.rawValue`) | 32 when
        /// a red mark merges orange events too.
        case code
        /// CPU lane only: load and mainLoad × 65535, rounded.
        case load, mainLoad
    }

    public func binary() -> [UInt8] {
        var out = BinaryWriter()
        out.bytes.reserveCapacity(64 + lanes.values.reduce(0) { $0 + 96 + $1.events.count * 16 })
        out.bytes += Self.binaryMagic
        out.int64(start)
        out.int64(end)
        out.uint32(UInt32(clamping: width))
        out.uint32(UInt32(lanes.count))
        for (id, lane) in lanes.sorted(by: { $0.key < $1.key }) {
            Self.write(id: id, lane: lane, to: &out)
        }
        return out.bytes
    }

    static func write(id: String, lane: TimelineLane, to out: inout BinaryWriter) {
        let events = lane.events
        var labels: [String] = []
        var labelIndex: [String: Int64] = [:]
        let hasLoad = events.contains { $0.load != nil || $0.mainLoad != nil }
        var firstUpdate = Int64.max
        for event in events {
            if let row = event.update ?? event.taskState ?? event.signpost ?? event.hangRisk { firstUpdate = min(firstUpdate, Int64(row)) }
            if let label = event.label, labelIndex[label] == nil {
                labelIndex[label] = Int64(labels.count + 1)
                labels.append(label)
            }
        }
        var columns = [[Int64]](repeating: [], count: BinaryColumn.allCases.count)
        for c in columns.indices { columns[c].reserveCapacity(events.count) }
        var previousStart = events.first?.start ?? 0
        for event in events {
            columns[BinaryColumn.startGap.rawValue].append(event.start &- previousStart)
            previousStart = event.start
            columns[BinaryColumn.duration.rawValue].append(event.duration)
            columns[BinaryColumn.count.rawValue].append(Int64(event.count))
            columns[BinaryColumn.update.rawValue].append((event.update ?? event.taskState ?? event.signpost ?? event.hangRisk).map { Int64($0) - firstUpdate + 1 } ?? 0)
            columns[BinaryColumn.label.rawValue].append(event.label.flatMap { labelIndex[$0] } ?? 0)
            let kind = event.kind.flatMap { wire in UpdateKind.allCases.first { $0.wireName == wire } }
            columns[BinaryColumn.code.rawValue].append(Int64(event.severity.rawValue) | Int64(kind.map { $0.rawValue + 1 } ?? 0) << 2 | (event.alsoOrange ? 32 : 0))
            if hasLoad {
                columns[BinaryColumn.load.rawValue].append(fixedPoint(event.load))
                columns[BinaryColumn.mainLoad.rawValue].append(fixedPoint(event.mainLoad))
            }
        }
        // An absent column (no loads) has width 0.
        let layout = columns.map { values -> (width: Int, base: Int64) in
            let low = values.min() ?? 0
            return (BinaryWriter.width(ofRange: UInt64(bitPattern: (values.max() ?? 0) &- low)), low)
        }
        out.laneHeader(
            id: Array(id.utf8.prefix(255)), merged: lane.merged, hasLoad: hasLoad,
            rowsAreTaskStates: events.contains { $0.taskState != nil }, rowsAreSignposts: events.contains { $0.signpost != nil },
            rowsAreHangRisks: events.contains { $0.hangRisk != nil },
            count: events.count, firstStart: events.first?.start ?? 0, firstUpdate: firstUpdate,
            labels: labels.map { Array($0.utf8.prefix(Int(UInt16.max))) }, layout: layout
        )
        for (values, column) in zip(columns, layout) where column.width > 0 {
            out.column(values, base: column.base, width: column.width)
        }
    }

    private static func fixedPoint(_ fraction: Double?) -> Int64 {
        Int64((min(1, max(0, fraction ?? 0)) * 65535).rounded())
    }
}

/// Little-endian integers appended to a byte buffer.
struct BinaryWriter {
    var bytes: [UInt8] = []

    /// A lane's header (docs/api.md): id, flags, event count, first start, the update-row base
    /// (`firstUpdate` is the lowest row, `.max` for none), labels, each column's width and base.
    mutating func laneHeader(
        id: [UInt8], merged: Bool, hasLoad: Bool, rowsAreTaskStates: Bool, rowsAreSignposts: Bool, rowsAreHangRisks: Bool,
        count: Int, firstStart: Int64, firstUpdate: Int64, labels: [[UInt8]], layout: [(width: Int, base: Int64)]
    ) {
        bytes.append(UInt8(id.count))
        bytes += id
        bytes.append((merged ? 1 : 0) | (hasLoad ? 2 : 0) | (rowsAreTaskStates ? Timeline.taskStateRowsFlag : 0)
            | (rowsAreSignposts ? Timeline.signpostRowsFlag : 0) | (rowsAreHangRisks ? Timeline.hangRiskRowsFlag : 0))
        uint32(UInt32(count))
        int64(firstStart)
        int64(firstUpdate == .max ? 0 : firstUpdate - 1)
        uint32(UInt32(labels.count))
        for label in labels {
            uint16(UInt16(label.count))
            bytes += label
        }
        for column in layout {
            bytes.append(UInt8(column.width))
            int64(column.base)
        }
    }

    mutating func int64(_ value: Int64) { append(UInt64(bitPattern: value), width: 8) }
    mutating func uint32(_ value: UInt32) { append(UInt64(value), width: 4) }
    mutating func uint16(_ value: UInt16) { append(UInt64(value), width: 2) }

    @inline(__always) mutating func append(_ value: UInt64, width: Int) {
        var v = value
        for _ in 0..<width {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    mutating func column(_ values: [Int64], base: Int64, width: Int) {
        for value in values { append(UInt64(bitPattern: value &- base), width: width) }
    }

    /// `count` values of `width` bytes, each `value(i) - base`, written in place.
    @inline(__always) mutating func column(width: Int, base: Int64, count: Int, _ value: (Int) -> Int64) {
        let at = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: width * count))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var o = at
            for i in 0..<count {
                var v = UInt64(bitPattern: value(i) &- base)
                for k in 0..<width {
                    buffer[o + k] = UInt8(truncatingIfNeeded: v)
                    v >>= 8
                }
                o += width
            }
        }
    }

    /// Fewest bytes (0, 1, 2, 3, 4 or 8) that hold every value of a column spanning `range`.
    static func width(ofRange range: UInt64) -> Int {
        range == 0 ? 0 : range <= 0xFF ? 1 : range <= 0xFFFF ? 2 : range <= 0xFF_FFFF ? 3 : range <= 0xFFFF_FFFF ? 4 : 8
    }
}

extension Trace {
    /// The same bytes as `timeline(...).binary()`, written straight from the query's groups into
    /// one buffer sized up front: no event values, label strings or per-column arrays in between
    /// (the browser asks for this on every pan and zoom). Labels are looked up once per distinct
    /// string, not once per event.
    public func timelineBinary(window: TimeRange, width: Int, lanes: [Lane], index: TimelineIndex) -> [UInt8] {
        timelineBinary(window: window, width: width, laneIDs: lanes.map(TimelineLaneID.fixed), index: index)
    }

    public func timelineBinary(window: TimeRange, width: Int, laneIDs: [TimelineLaneID], index: TimelineIndex) -> [UInt8] {
        let answers = laneAnswers(window: window, width: width, lanes: laneIDs, index: index)
        var plans: [BinaryLanePlan] = []
        plans.reserveCapacity(answers.count)
        var labelSlots: [Int32] = []
        var size = 4 + 8 + 8 + 4 + 4
        for (lane, answer) in answers {
            let plan: BinaryLanePlan
            switch answer {
            case .groups(let series, let groups): plan = BinaryLanePlan(lane, series, groups, in: self, labelSlots: &labelSlots)
            case .events(let events): plan = BinaryLanePlan(lane, events)
            }
            size += plan.byteCount
            plans.append(plan)
        }
        var out = BinaryWriter()
        out.bytes.reserveCapacity(size)
        out.bytes += Timeline.binaryMagic
        out.int64(window.start)
        out.int64(window.end)
        out.uint32(UInt32(clamping: width))
        out.uint32(UInt32(plans.count))
        for plan in plans { plan.write(to: &out, trace: self) }
        return out.bytes
    }
}

/// One lane of a binary timeline, measured before it is written: its labels, each column's
/// base and width, and so its exact size.
struct BinaryLanePlan {
    let id: [UInt8]
    let content: Content
    var merged = false
    var labels: [[UInt8]] = []
    /// Label index + 1 of each event (0 = none), for lanes of groups.
    var labelOfEvent: [Int32] = []
    var firstUpdate = Int64.max
    var layout: [(width: Int, base: Int64)] = []
    var byteCount = 0

    enum Content {
        case groups(LaneSeries, [EventGroup])
        /// Finished events (the CPU lane: a load per column), written as `Timeline.binary()` does.
        case events(TimelineLane)
    }

    init(_ lane: TimelineLaneID, _ events: TimelineLane) {
        id = Array(lane.wireName.utf8.prefix(255))
        content = .events(events)
        var probe = BinaryWriter()
        Timeline.write(id: lane.wireName, lane: events, to: &probe)
        byteCount = probe.bytes.count
    }

    init(_ lane: TimelineLaneID, _ series: LaneSeries, _ groups: [EventGroup], in trace: Trace, labelSlots: inout [Int32]) {
        id = Array(lane.wireName.utf8.prefix(255))
        content = .groups(series, groups)
        let n = groups.count
        labelOfEvent = [Int32](repeating: 0, count: n)
        // Labels in order of first appearance, deduplicated by text as `Timeline.binary()` does;
        // interned labels are found by their string ref first so most events cost an array read.
        var indexOfText: [String: Int32] = [:]
        var slotsUsed: [Int] = []
        let interned = series.internedLabels(in: trace)
        if interned != nil, labelSlots.count < trace.strings.count {
            labelSlots = [Int32](repeating: 0, count: trace.strings.count)
        }
        func indexOf(_ text: String) -> Int32 {
            if let known = indexOfText[text] { return known }
            labels.append(Array(text.utf8.prefix(Int(UInt16.max))))
            let index = Int32(labels.count)
            indexOfText[text] = index
            return index
        }
        var columns = [(low: Int64, high: Int64)](repeating: (.max, .min), count: Timeline.BinaryColumn.allCases.count)
        @inline(__always) func include(_ column: Timeline.BinaryColumn, _ value: Int64) {
            let c = column.rawValue
            if value < columns[c].low { columns[c].low = value }
            if value > columns[c].high { columns[c].high = value }
        }
        let isUpdateLane = series.isUpdateLane
        let hasRows = isUpdateLane || series.rowsAreTaskStates || series.rowsAreSignposts || series.rowsAreHangRisks
        let kinds = trace.updates.kind
        var previousStart = groups.first?.start ?? 0
        for (i, group) in groups.enumerated() {
            include(.startGap, group.start &- previousStart)
            previousStart = group.start
            include(.duration, group.end - group.start)
            include(.count, Int64(group.count))
            var code = group.code(kind: 0)
            if group.count == 1 {
                let row = series.row(group.first)
                if hasRows { firstUpdate = min(firstUpdate, Int64(row)) }
                if isUpdateLane { code = group.code(kind: Int64(kinds[row].rawValue + 1)) }
                if let interned {
                    let ref = Int(interned[row])
                    if labelSlots[ref] == 0 {
                        labelSlots[ref] = indexOf(trace.strings[ref])
                        slotsUsed.append(ref)
                    }
                    labelOfEvent[i] = labelSlots[ref]
                } else {
                    var event = TimelineEvent(start: group.start, duration: 0, count: 1, severity: group.severity)
                    series.describe(group.first, in: trace, into: &event)
                    labelOfEvent[i] = event.label.map(indexOf) ?? 0
                }
            } else {
                merged = true
            }
            include(.label, Int64(labelOfEvent[i]))
            include(.code, code)
        }
        for ref in slotsUsed { labelSlots[ref] = 0 }
        // The update column is known once the lowest update row is.
        for group in groups {
            include(.update, group.count == 1 && hasRows ? Int64(series.row(group.first)) - firstUpdate + 1 : 0)
        }
        layout = columns.map { column -> (width: Int, base: Int64) in
            guard column.low <= column.high else { return (0, 0) }
            return (BinaryWriter.width(ofRange: UInt64(bitPattern: column.high &- column.low)), column.low)
        }
        byteCount = 1 + id.count + 1 + 4 + 8 + 8 + 4 + labels.reduce(0) { $0 + 2 + $1.count }
            + layout.count * 9 + layout.reduce(0) { $0 + $1.width * n }
    }

    func write(to out: inout BinaryWriter, trace: Trace) {
        guard case .groups(let series, let groups) = content else {
            if case .events(let events) = content { Timeline.write(id: String(decoding: id, as: UTF8.self), lane: events, to: &out) }
            return
        }
        out.laneHeader(
            id: id, merged: merged, hasLoad: false,
            rowsAreTaskStates: series.rowsAreTaskStates && groups.contains { $0.count == 1 },
            rowsAreSignposts: series.rowsAreSignposts && groups.contains { $0.count == 1 },
            rowsAreHangRisks: series.rowsAreHangRisks && groups.contains { $0.count == 1 },
            count: groups.count, firstStart: groups.first?.start ?? 0, firstUpdate: firstUpdate, labels: labels, layout: layout
        )
        let isUpdateLane = series.isUpdateLane
        let hasRows = isUpdateLane || series.rowsAreTaskStates || series.rowsAreSignposts || series.rowsAreHangRisks
        let kinds = trace.updates.kind
        for column in Timeline.BinaryColumn.allCases {
            let (width, base) = layout[column.rawValue]
            guard width > 0 else { continue }
            switch column {
            case .startGap:
                var previous = groups.first?.start ?? 0
                out.column(width: width, base: base, count: groups.count) { i in
                    defer { previous = groups[i].start }
                    return groups[i].start &- previous
                }
            case .duration: out.column(width: width, base: base, count: groups.count) { groups[$0].end - groups[$0].start }
            case .count: out.column(width: width, base: base, count: groups.count) { Int64(groups[$0].count) }
            case .update:
                out.column(width: width, base: base, count: groups.count) { i in
                    groups[i].count == 1 && hasRows ? Int64(series.row(groups[i].first)) - firstUpdate + 1 : 0
                }
            case .label: out.column(width: width, base: base, count: groups.count) { Int64(labelOfEvent[$0]) }
            case .code:
                out.column(width: width, base: base, count: groups.count) { i in
                    let group = groups[i]
                    let kind = group.count == 1 && isUpdateLane ? Int64(kinds[series.row(group.first)].rawValue + 1) : 0
                    return group.code(kind: kind)
                }
            case .load, .mainLoad: break
            }
        }
    }
}
