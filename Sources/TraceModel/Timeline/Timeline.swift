import Synchronization

// Level-of-detail timeline: what one lane looks like at a given zoom, bounded by the pixel width.
//
// Merge rule (one place, used by both the fast query and the full-scan baseline): events are
// taken in start order; an event joins the current group when it starts before the end of the
// pixel column that holds the group's end, otherwise it opens a new group. Each group therefore
// owns at least one column of its own, so a lane never returns more than `width + 1` events, and
// an event wider than the gap to its neighbours stays on its own with its id and label. The Main
// Actor lane also keeps a run two columns wide apart from its neighbours (`apartGroups`).

/// One drawn event: a single trace event (`count == 1`) or a merge of neighbouring ones.
public struct TimelineEvent: Sendable, Equatable {
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var count: Int
    /// Worst severity of the merged events.
    public var severity: LongUpdateSeverity
    /// A red mark merging orange events too: drawn in both colours, as Instruments does.
    public var alsoOrange = false
    /// Update row (update lanes, `count == 1`).
    public var update: Int?
    /// Task-state row (main-actor lanes, `count == 1`).
    public var taskState: Int?
    /// Signpost row (signpost lanes, `count == 1`).
    public var signpost: Int?
    /// Hang-risk row (the hang-risk lane, `count == 1`).
    public var hangRisk: Int?
    /// View name, group label or hitch kind (`count == 1`).
    public var label: String?
    /// Update kind wire name (update lanes, `count == 1`).
    public var kind: String?
    /// CPU lane: weight of all threads / column time, 0...1.
    public var load: Double?
    /// CPU lane: weight of the main thread / column time, 0...1.
    public var mainLoad: Double?
}

public struct TimelineLane: Sendable, Equatable {
    public var events: [TimelineEvent]
    /// True when at least one returned event stands for several trace events.
    public var merged: Bool
}

public struct Timeline: Sendable, Equatable {
    public var start: Nanoseconds
    public var end: Nanoseconds
    public var width: Int
    public var lanes: [String: TimelineLane]

    /// The API's JSON for this timeline. Written by hand rather than with JSONEncoder: the
    /// timeline is the hot path and a whole-trace answer has tens of thousands of events.
    public func json() -> [UInt8] {
        var out = JSONWriter()
        out.bytes.reserveCapacity(128 + lanes.values.reduce(0) { $0 + 40 + $1.events.count * 110 })
        out.raw("{\"start\":"); out.int(start)
        out.raw(",\"end\":"); out.int(end)
        out.raw(",\"width\":"); out.int(Int64(width))
        out.raw(",\"lanes\":{")
        for (laneIndex, (id, lane)) in lanes.sorted(by: { $0.key < $1.key }).enumerated() {
            if laneIndex > 0 { out.raw(",") }
            out.string(id)
            out.raw(":{\"merged\":"); out.raw(lane.merged ? "true" : "false")
            out.raw(",\"events\":[")
            for (index, event) in lane.events.enumerated() {
                if index > 0 { out.raw(",") }
                out.raw("{\"start\":"); out.int(event.start)
                out.raw(",\"duration\":"); out.int(event.duration)
                out.raw(",\"count\":"); out.int(Int64(event.count))
                out.raw(",\"severity\":"); out.string(event.severity.wireName)
                if event.alsoOrange { out.raw(",\"alsoOrange\":true") }
                if let update = event.update { out.raw(",\"update\":"); out.int(Int64(update)) }
                if let taskState = event.taskState { out.raw(",\"taskState\":"); out.int(Int64(taskState)) }
                if let signpost = event.signpost { out.raw(",\"signpost\":"); out.int(Int64(signpost)) }
                if let hangRisk = event.hangRisk { out.raw(",\"hangRisk\":"); out.int(Int64(hangRisk)) }
                if let label = event.label { out.raw(",\"label\":"); out.string(label) }
                if let kind = event.kind { out.raw(",\"kind\":"); out.string(kind) }
                if let load = event.load { out.raw(",\"load\":"); out.fraction(load) }
                if let mainLoad = event.mainLoad { out.raw(",\"mainLoad\":"); out.fraction(mainLoad) }
                out.raw("}")
            }
            out.raw("]}")
        }
        out.raw("}}")
        return out.bytes
    }
}

/// Appends JSON tokens to a byte buffer.
struct JSONWriter {
    var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func int(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = 20
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    /// A fraction in 0...1 with 4 decimals (enough to draw a load graph).
    mutating func fraction(_ value: Double) {
        let tenThousandths = Int64((min(1, max(0, value)) * 10_000).rounded())
        int(tenThousandths / 10_000)
        bytes.append(UInt8(ascii: "."))
        let decimals = tenThousandths % 10_000
        for divisor: Int64 in [1000, 100, 10, 1] { bytes.append(UInt8(ascii: "0") + UInt8(decimals / divisor % 10)) }
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: text.utf8)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xf)]])
            default: bytes.append(byte)
            }
        }
    }
}

/// Per-trace summaries the timeline query builds lazily, once per lane, and then reuses.
/// Keep one per loaded trace (the server keeps it next to the trace in its cache).
public final class TimelineIndex: Sendable {
    private let pyramids = Mutex<[TimelineLaneID: EventPyramid]>([:])
    private let cpuSums = Mutex<CPUPrefixSums?>(nil)

    public init() {}

    func pyramid(_ lane: TimelineLaneID, _ series: LaneSeries) -> EventPyramid {
        pyramids.withLock { built in
            if let pyramid = built[lane] { return pyramid }
            let pyramid = EventPyramid(series)
            built[lane] = pyramid
            return pyramid
        }
    }

    func cpu(_ trace: Trace) -> CPUPrefixSums {
        cpuSums.withLock { built in
            if let sums = built { return sums }
            let sums = CPUPrefixSums(trace)
            built = sums
            return sums
        }
    }

    /// Builds every lane's summary of `trace` now (where the trace is loaded, off the request
    /// path) rather than on the first timeline request.
    public func prepare(_ trace: Trace) {
        for lane in trace.allTimelineLanes {
            if lane == .fixed(.cpu) { _ = cpu(trace) } else if let series = LaneSeries(trace, lane) { _ = pyramid(lane, series) }
        }
    }

    /// Bytes the summaries of every lane of `trace` take once built: what a memory budget
    /// should reserve for a trace that will be viewed.
    public static func expectedFootprint(of trace: Trace) -> Int {
        let laneEvents = trace.indexes.updatesByLane.values.reduce(0) { $0 + $1.count }
            + trace.updateGroups.count + trace.hitches.count + trace.hangs.count
            + trace.indexes.mainActorRuns.count + trace.indexes.mainActorWaits.count
            + trace.indexes.signpostLanes.reduce(0) { $0 + $1.rows.count }
        // starts + ends (16 bytes), ~1/15 of a 16-byte block summary, up to half a 4-byte time
        // bucket and a 16-byte prefix per event; CPU prefix sums.
        return laneEvents * 35 + (trace.cpu.samples.count + 1) * 24
    }

    /// Approximate bytes held by the summaries built so far.
    public var memoryFootprint: Int {
        let pyramidBytes = pyramids.withLock { built in
            built.values.reduce(0) { $0 + $1.memoryFootprint }
        }
        let cpuBytes = cpuSums.withLock { $0.map { $0.all.count * 16 } ?? 0 }
        return pyramidBytes + cpuBytes
    }
}

extension Trace {
    /// The timeline of `lanes` inside `window`, at most about `width` events per lane.
    /// `index` must belong to this trace; it makes wide windows over millions of events cheap.
    public func timeline(window: TimeRange, width: Int, lanes: [Lane], index: TimelineIndex) -> Timeline {
        timeline(window: window, width: width, laneIDs: lanes.map(TimelineLaneID.fixed), index: index)
    }

    /// Every lane the trace has: the fixed ones (hang risks only when it has some: Instruments
    /// 27 records them) and its signpost lanes.
    public var allTimelineLanes: [TimelineLaneID] {
        Lane.allCases.filter { $0 != .hangRisks || hangRisks.count > 0 }.map(TimelineLaneID.fixed)
            + indexes.signpostLanes.map { .signposts($0.index) }
    }

    /// The timeline of fixed and signpost lanes; a signpost lane the trace does not have is left out.
    public func timeline(window: TimeRange, width: Int, laneIDs: [TimelineLaneID], index: TimelineIndex) -> Timeline {
        var result = Timeline(start: window.start, end: window.end, width: width, lanes: [:])
        for (lane, answer) in laneAnswers(window: window, width: width, lanes: laneIDs, index: index) {
            switch answer {
            case .groups(let series, let groups): result.lanes[lane.wireName] = laneResult(series, groups)
            case .events(let events): result.lanes[lane.wireName] = events
            }
        }
        return result
    }

    /// What each requested lane holds in `window` before its events get labels: once per lane,
    /// in lane id order (the order both wire formats write lanes in).
    func laneAnswers(window: TimeRange, width: Int, lanes: [TimelineLaneID], index: TimelineIndex) -> [(TimelineLaneID, LaneAnswer)] {
        let columns = PixelColumns(window: window, width: width)
        return Set(lanes).sorted { $0.wireName < $1.wireName }.compactMap { lane -> (TimelineLaneID, LaneAnswer)? in
            if lane == .fixed(.cpu) { return (lane, .events(cpuLane(columns: columns, sums: index.cpu(self)))) }
            guard let series = LaneSeries(self, lane) else { return nil }
            let groups = series.keepsWideApart
                ? Self.apartGroups(series, columns)
                : Self.fastGroups(index.pyramid(lane, series), columns, maxDuration: series.maxDuration)
            return (lane, .groups(series, groups))
        }
    }

    /// The same answer computed by looking at every event of each lane: the baseline the
    /// benchmark compares against, and the reference the tests check the fast query with.
    public func timelineByFullScan(window: TimeRange, width: Int, lanes: [Lane]) -> Timeline {
        timelineByFullScan(window: window, width: width, laneIDs: lanes.map(TimelineLaneID.fixed))
    }

    public func timelineByFullScan(window: TimeRange, width: Int, laneIDs: [TimelineLaneID]) -> Timeline {
        var result = Timeline(start: window.start, end: window.end, width: width, lanes: [:])
        let columns = PixelColumns(window: window, width: width)
        for lane in laneIDs {
            if lane == .fixed(.cpu) {
                result.lanes[lane.wireName] = cpuLane(columns: columns, sums: CPUPrefixSums(self))
                continue
            }
            guard let series = LaneSeries(self, lane) else { continue }
            if series.keepsWideApart {
                result.lanes[lane.wireName] = laneResult(series, Self.apartGroups(series, columns))
                continue
            }
            var groups: [EventGroup] = []
            for i in 0..<series.count {
                let start = series.start(i), end = series.end(i)
                guard window.overlaps(start: start, end: end) else { continue }
                if var last = groups.last, start < columns.endOfColumn(containing: last.end) {
                    last.add(count: 1, end: end, severity: series.severity(i), orange: series.severity(i) == .orange)
                    groups[groups.count - 1] = last
                } else {
                    groups.append(EventGroup(first: i, start: start, end: end, severity: series.severity(i)))
                }
            }
            result.lanes[lane.wireName] = laneResult(series, groups)
        }
        return result
    }

    /// The Main Actor lane: one actor runs one thing at a time and a long run is what the lane is
    /// read for, so a run at least two columns wide is never merged with its neighbours (a 120 ms
    /// run stays one mark beside the short ones around it, not "4 intervals"); shorter runs merge
    /// by the rule above, but not into a group already two columns wide. Runs on the Main Actor
    /// number thousands, not millions: a scan of the window's runs does.
    static func apartGroups(_ series: LaneSeries, _ columns: PixelColumns) -> [EventGroup] {
        let window = columns.window
        let wide = 2 * columns.nanosecondsPerColumn
        var low = 0, high = series.count
        let earliest = window.start.addingSaturating(-series.maxDuration)
        while low < high {
            let mid = (low + high) / 2
            if series.start(mid) < earliest { low = mid + 1 } else { high = mid }
        }
        var groups: [EventGroup] = []
        var i = low
        while i < series.count, series.start(i) < window.end {
            defer { i += 1 }
            let start = series.start(i), end = series.end(i)
            guard window.overlaps(start: start, end: end) else { continue }
            let severity = series.severity(i)
            if var last = groups.last, Double(end - start) < wide, Double(last.end - last.start) < wide,
               start < columns.endOfColumn(containing: last.end) {
                last.add(count: 1, end: end, severity: severity, orange: severity == .orange)
                groups[groups.count - 1] = last
            } else {
                groups.append(EventGroup(first: i, start: start, end: end, severity: severity))
            }
        }
        return groups
    }

    private static func fastGroups(_ pyramid: EventPyramid, _ columns: PixelColumns, maxDuration: Nanoseconds) -> [EventGroup] {
        let window = columns.window
        let inWindow = pyramid.lowerBound(startAtLeast: window.start)
        let limit = pyramid.lowerBound(startAtLeast: window.end, from: inWindow)
        var groups: [EventGroup] = []
        var current: EventGroup?
        // Events that began before the window and still overlap it: found by skipping blocks
        // whose events all ended before the window.
        let lookBack = pyramid.lowerBound(startAtLeast: window.start - maxDuration, to: inWindow)
        var i = pyramid.firstIndex(endAtLeast: window.start, from: lookBack, before: inWindow)
        while i < inWindow {
            let end = pyramid.ends[i]
            if end >= window.start {
                if current == nil {
                    current = EventGroup(first: i, start: pyramid.starts[i], end: end, severity: pyramid.severity(i))
                } else {
                    current!.add(count: 1, end: end, severity: pyramid.severity(i), orange: pyramid.severity(i) == .orange)
                }
            }
            i = pyramid.firstIndex(endAtLeast: window.start, from: i + 1, before: inWindow)
        }
        i = inWindow
        while i < limit {
            if let group = current {
                let columnEnd = columns.endOfColumn(containing: group.end)
                let next = pyramid.lowerBound(startAtLeast: columnEnd, from: i, to: limit)
                if next > i {
                    let (maxEnd, severity, orange) = pyramid.aggregate(i, next, groupEnd: group.end)
                    current!.add(count: next - i, end: maxEnd, severity: severity, orange: orange)
                    i = next
                    continue
                }
                groups.append(group)
            }
            current = EventGroup(first: i, start: pyramid.starts[i], end: pyramid.ends[i], severity: pyramid.severity(i))
            i += 1
        }
        if let group = current { groups.append(group) }
        return groups
    }

    private func laneResult(_ series: LaneSeries, _ groups: [EventGroup]) -> TimelineLane {
        var merged = false
        let events = groups.map { group -> TimelineEvent in
            var event = TimelineEvent(start: group.start, duration: group.end - group.start, count: group.count, severity: group.severity)
            event.alsoOrange = group.alsoOrange
            if group.count == 1 {
                series.describe(group.first, in: self, into: &event)
            } else {
                merged = true
            }
            return event
        }
        return TimelineLane(events: events, merged: merged)
    }

    private func cpuLane(columns: PixelColumns, sums: CPUPrefixSums) -> TimelineLane {
        // Time Profiler samples every millisecond: finer columns would show sampling noise.
        let bucket = max(columns.nanosecondsPerColumn, 1_000_000)
        var events: [TimelineEvent] = []
        var bucketStart = Double(columns.window.start)
        let windowEnd = Double(columns.window.end)
        var from = sums.lowerBound(Nanoseconds(bucketStart.rounded(.up)))
        while bucketStart < windowEnd {
            let start = Nanoseconds(bucketStart.rounded(.up))
            let end = Nanoseconds(min(bucketStart + bucket, windowEnd).rounded(.up))
            let to = sums.lowerBound(end, from: from)
            if to > from {
                let span = Double(end - start) * sums.weightPerNanosecond
                let all = Double(sums.all[to] - sums.all[from]) / span
                let main = Double(sums.main[to] - sums.main[from]) / span
                events.append(TimelineEvent(
                    start: start, duration: end - start, count: to - from, severity: .normal,
                    load: min(1, all), mainLoad: min(1, main)
                ))
            }
            from = to
            bucketStart += bucket
        }
        return TimelineLane(events: events, merged: events.contains { $0.count > 1 })
    }
}

/// Maps times to pixel columns of a window.
struct PixelColumns {
    let window: TimeRange
    let nanosecondsPerColumn: Double

    init(window: TimeRange, width: Int) {
        self.window = window
        nanosecondsPerColumn = Double(window.duration) / Double(max(width, 1))
    }

    /// First time after the column that holds `time` (times before the window count as column 0).
    func endOfColumn(containing time: Nanoseconds) -> Nanoseconds {
        let offset = Double(max(time, window.start) - window.start)
        let column = (offset / nanosecondsPerColumn).rounded(.down)
        return window.start + Nanoseconds(((column + 1) * nanosecondsPerColumn).rounded(.up))
    }
}

/// How a lane colours its events: one colour for all, or by duration with a lane's thresholds.
enum SeverityRule: Sendable {
    case fixed(LongUpdateSeverity)
    /// Apple's long-update thresholds (500 µs, 1 ms): updates and main-actor work.
    case longUpdate
    /// `MainActorWait` thresholds (16 ms, 100 ms).
    case mainActorWait

    @inline(__always) func severity(_ duration: Nanoseconds) -> LongUpdateSeverity {
        switch self {
        case .fixed(let severity): severity
        case .longUpdate: LongUpdateSeverity(duration: duration)
        case .mainActorWait: MainActorWait.severity(duration)
        }
    }
}

/// One lane of a timeline answer: groups of the lane's series (event lanes), or finished events (CPU).
enum LaneAnswer {
    case groups(LaneSeries, [EventGroup])
    case events(TimelineLane)
}

struct EventGroup {
    var first: Int
    var start: Nanoseconds
    var end: Nanoseconds
    var count = 1
    var severity: LongUpdateSeverity
    /// Some merged event is orange.
    var orange: Bool

    init(first: Int, start: Nanoseconds, end: Nanoseconds, severity: LongUpdateSeverity) {
        self.first = first
        self.start = start
        self.end = end
        self.severity = severity
        orange = severity == .orange
    }

    mutating func add(count: Int, end: Nanoseconds, severity: LongUpdateSeverity, orange: Bool) {
        self.count += count
        self.end = max(self.end, end)
        self.severity = max(self.severity, severity)
        self.orange = self.orange || orange
    }

    /// A red mark that merges orange events too (`TimelineEvent.alsoOrange`).
    var alsoOrange: Bool { count > 1 && severity == .red && orange }

    /// The binary answer's code column: severity, update kind (0 none, 1 + `UpdateKind.rawValue`), also-orange bit.
    func code(kind: Int64) -> Int64 { Int64(severity.rawValue) | kind << 2 | (alsoOrange ? 32 : 0) }
}

/// One lane's events in start order, read in place from the trace's columns (no copies:
/// the arrays are shared with the trace).
struct LaneSeries: Sendable {
    let lane: TimelineLaneID
    /// Rows of the lane (update, task-state and signpost lanes); other lanes use their own row order.
    let rows: [UInt32]
    let usesRows: Bool
    let starts: [Nanoseconds]
    let durations: [Nanoseconds]
    let severityRule: SeverityRule
    let count: Int
    /// Longest event, so a window query looks back far enough for events that began before it.
    let maxDuration: Nanoseconds

    /// nil for a signpost lane the trace does not have.
    init?(_ trace: Trace, _ id: TimelineLaneID) {
        self.lane = id
        guard case .fixed(let lane) = id else {
            guard case .signposts(let index) = id, index < trace.indexes.signpostLanes.count else { return nil }
            let signpostLane = trace.indexes.signpostLanes[index]
            (rows, usesRows, maxDuration) = (signpostLane.rows, true, signpostLane.maxDuration)
            (starts, durations, severityRule) = (trace.signposts.start, trace.signposts.duration, .fixed(.normal))
            count = rows.count
            return
        }
        maxDuration = trace.indexes.maxDurationByLane[lane] ?? 0
        usesRows = lane.isUpdateLane || lane == .mainActor || lane == .mainActorWaits
        switch lane {
        case .mainActor: rows = trace.indexes.mainActorRuns
        case .mainActorWaits: rows = trace.indexes.mainActorWaits
        default: rows = usesRows ? trace.indexes.updatesByLane[lane] ?? [] : []
        }
        switch lane {
        case .updateGroups:
            (starts, durations, severityRule) = (trace.updateGroups.start, trace.updateGroups.duration, .fixed(.normal))
        case .hitches:
            (starts, durations, severityRule) = (trace.hitches.map(\.start), trace.hitches.map(\.duration), .fixed(.orange))
        case .hangs:
            (starts, durations, severityRule) = (trace.hangs.map(\.start), trace.hangs.map(\.duration), .fixed(.red))
        case .hangRisks:
            // Instants: drawn as the narrowest mark, orange (a risk, not a hang).
            (starts, durations, severityRule) = (trace.hangRisks.time, [Nanoseconds](repeating: 0, count: trace.hangRisks.count), .fixed(.orange))
        case .cpu:
            (starts, durations, severityRule) = ([], [], .fixed(.normal))
        case .mainActor:
            (starts, durations, severityRule) = (trace.taskStates.start, trace.taskStates.duration, .longUpdate)
        case .mainActorWaits:
            (starts, durations, severityRule) = (trace.taskStates.start, trace.taskStates.duration, .mainActorWait)
        default:
            (starts, durations, severityRule) = (trace.updates.start, trace.updates.duration, .longUpdate)
        }
        count = usesRows ? rows.count : starts.count
    }

    @inline(__always) func row(_ i: Int) -> Int { usesRows ? Int(rows[i]) : i }

    @inline(__always) func start(_ i: Int) -> Nanoseconds { starts[row(i)] }

    @inline(__always) func end(_ i: Int) -> Nanoseconds {
        let row = row(i)
        return starts[row] + durations[row]
    }

    @inline(__always) func severity(_ i: Int) -> LongUpdateSeverity {
        severityRule.severity(durations[row(i)])
    }

    /// Main-actor lanes: a lone event stands for a task-state row (`TimelineEvent.taskState`).
    var rowsAreTaskStates: Bool { lane == .fixed(.mainActor) || lane == .fixed(.mainActorWaits) }
    /// Wide events stay apart from their neighbours (`Trace.apartGroups`): the Main Actor's runs.
    var keepsWideApart: Bool { lane == .fixed(.mainActor) }
    /// Signpost lanes: a lone event stands for a signpost row (`TimelineEvent.signpost`).
    var rowsAreSignposts: Bool { if case .signposts = lane { true } else { false } }
    /// The hang-risk lane: a lone event stands for a hang-risk row (`TimelineEvent.hangRisk`).
    var rowsAreHangRisks: Bool { lane == .fixed(.hangRisks) }
    /// Update lanes: a lone event stands for an update row (`TimelineEvent.update`).
    var isUpdateLane: Bool { if case .fixed(let lane) = lane { lane.isUpdateLane } else { false } }

    /// Each row's label as a trace string, for lanes whose labels are interned (nil: use `describe`).
    func internedLabels(in trace: Trace) -> [StringRef]? {
        switch lane {
        case .fixed(.updateGroups): trace.updateGroups.label
        case _ where isUpdateLane: trace.updates.viewName
        default: nil
        }
    }

    func describe(_ i: Int, in trace: Trace, into event: inout TimelineEvent) {
        let row = row(i)
        guard case .fixed(let lane) = lane else {
            event.signpost = row
            event.label = trace.signpostLabel(row)
            return
        }
        switch lane {
        case .updateGroups:
            event.label = trace.string(trace.updateGroups.label[row])
        case .hitches:
            event.label = trace.hitches[row].kind
        case .hangs:
            event.label = trace.hangs[row].kind
        case .hangRisks:
            event.hangRisk = row
            event.label = trace.string(trace.hangRisks.message[row])
        case .cpu:
            break
        case .mainActor, .mainActorWaits:
            let states = trace.taskStates
            event.taskState = row
            let resume = trace.string(states.resumeFunction[row])
            event.label = resume.isEmpty ? trace.taskTitle(Int(states.task[row])) : resume
        default:
            event.update = row
            event.label = trace.string(trace.updates.viewName[row])
            event.kind = trace.updates.kind[row].wireName
        }
    }
}

/// A lane's starts and ends copied in lane order (contiguous, so searches and scans stay in
/// cache), with max end and worst severity over blocks of 16, 256, 4096... events, so that
/// merging thousands of sub-pixel events into one column costs a few dozen steps.
struct EventPyramid: Sendable {
    static let fanout = 16
    let starts: [Nanoseconds]
    let ends: [Nanoseconds]
    let severityRule: SeverityRule
    /// levels[k][b] summarises events [b * 16^(k+1), (b+1) * 16^(k+1)).
    let levels: [[BlockSummary]]
    /// Time buckets of 2^`bucketShift` ns from the first start, about 4 events each:
    /// `firstOfBucket[b]` is the first event starting at or after bucket `b`'s start. Finding
    /// where a pixel column ends is then a table read and a search among a few neighbours
    /// (a wide window asks that once per column of every lane). Empty when the lane is too
    /// short, or its times too far apart, to bucket.
    let firstOfBucket: [UInt32]
    let bucketShift: Int
    /// `prefixes[k]`: max end and orange/red counts of events `0..<k`. Merging events `i..<j`
    /// into a group then reads two entries instead of walking the block levels: the counts
    /// subtract, and the max end of the prefix is the group's whenever nothing before `i` ended
    /// later than the group (true of every group the merge rule forms; checked, not assumed).
    let prefixes: [Prefix]

    struct Prefix: Sendable {
        var maxEnd: Nanoseconds
        var orange: UInt32
        var red: UInt32
    }

    struct BlockSummary: Sendable {
        var maxEnd: Nanoseconds = .min
        var severity: LongUpdateSeverity = .normal
        mutating func include(_ other: BlockSummary) {
            maxEnd = max(maxEnd, other.maxEnd)
            severity = max(severity, other.severity)
        }
    }

    init(_ series: LaneSeries) {
        starts = (0..<series.count).map(series.start)
        ends = (0..<series.count).map(series.end)
        severityRule = series.severityRule
        var levels: [[BlockSummary]] = []
        var below = (0..<series.count).map { BlockSummary(maxEnd: series.end($0), severity: series.severity($0)) }
        while below.count > Self.fanout {
            var level: [BlockSummary] = []
            level.reserveCapacity(below.count / Self.fanout + 1)
            var index = 0
            while index < below.count {
                var block = BlockSummary()
                for item in below[index..<min(index + Self.fanout, below.count)] { block.include(item) }
                level.append(block)
                index += Self.fanout
            }
            levels.append(level)
            below = level
        }
        self.levels = levels
        (firstOfBucket, bucketShift) = Self.buckets(starts)
        var prefixes = [Prefix](repeating: Prefix(maxEnd: .min, orange: 0, red: 0), count: series.count + 1)
        for i in 0..<series.count {
            var next = prefixes[i]
            next.maxEnd = max(next.maxEnd, ends[i])
            switch series.severity(i) {
            case .normal: break
            case .orange: next.orange &+= 1
            case .red: next.red &+= 1
            }
            prefixes[i + 1] = next
        }
        self.prefixes = prefixes
    }

    /// Max end, worst severity and whether any is orange of events `low..<high`, for merging them
    /// into a group whose end so far is `groupEnd`: the returned end is exact whenever it is at least `groupEnd`.
    @inline(__always) func aggregate(_ low: Int, _ high: Int, groupEnd: Nanoseconds) -> (Nanoseconds, LongUpdateSeverity, Bool) {
        let (before, upTo) = (prefixes[low], prefixes[high])
        let orange = upTo.orange != before.orange
        let severity: LongUpdateSeverity = upTo.red != before.red ? .red : orange ? .orange : .normal
        guard before.maxEnd <= groupEnd else { return (aggregate(low, high).0, severity, orange) }
        return (upTo.maxEnd, severity, orange)
    }

    private static func buckets(_ starts: [Nanoseconds]) -> ([UInt32], Int) {
        guard starts.count >= 64, starts.count < Int(UInt32.max), let first = starts.first, let last = starts.last,
              case let (span, overflow) = last.subtractingReportingOverflow(first), !overflow, span > 0 else { return ([], 0) }
        let widthWanted = max(1, span / Nanoseconds(starts.count / 4))
        let shift = Nanoseconds.bitWidth - 1 - widthWanted.leadingZeroBitCount
        let bucketCount = Int(span >> shift) + 1
        var firstOfBucket = [UInt32](repeating: UInt32(starts.count), count: bucketCount + 1)
        // Walk buckets and events together: bucket b's first event is the first with start >= first + b << shift.
        var event = 0
        for bucket in 0..<bucketCount {
            let bucketStart = first + Nanoseconds(bucket) << shift
            while event < starts.count && starts[event] < bucketStart { event += 1 }
            firstOfBucket[bucket] = UInt32(event)
        }
        return (firstOfBucket, shift)
    }

    var memoryFootprint: Int {
        starts.count * 16 + levels.reduce(0) { $0 + $1.count * 16 } + firstOfBucket.count * 4 + prefixes.count * MemoryLayout<Prefix>.stride
    }

    @inline(__always) func severity(_ i: Int) -> LongUpdateSeverity {
        severityRule.severity(ends[i] - starts[i])
    }

    @inline(__always) func summary(_ i: Int) -> BlockSummary {
        BlockSummary(maxEnd: ends[i], severity: severity(i))
    }

    /// First index in `from..<to` whose start is >= `time` (`to` if none).
    func lowerBound(startAtLeast time: Nanoseconds, from: Int = 0, to: Int? = nil) -> Int {
        var low = from, high = to ?? starts.count
        if !firstOfBucket.isEmpty, low < high {
            // Events of earlier buckets start before `time`; events of later ones at or after it.
            if time <= starts[0] { return low }
            let (offset, overflow) = time.subtractingReportingOverflow(starts[0])
            let bucket = overflow ? Int.max : Int(offset >> bucketShift)
            // Past the last bucket: after every start.
            guard bucket < firstOfBucket.count - 1 else { return high }
            let upTo = high
            low = max(low, Int(firstOfBucket[bucket]))
            high = min(high, Int(firstOfBucket[bucket + 1]))
            if low >= high { return min(low, upTo) }
        }
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] < time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// `lowerBound` for an answer expected close to `from`: doubling steps, then binary search.
    func gallop(startAtLeast time: Nanoseconds, from: Int, to: Int) -> Int {
        var low = from, step = 1
        while low + step < to, starts[low + step] < time {
            low += step
            step *= 2
        }
        return lowerBound(startAtLeast: time, from: low, to: min(to, low + step + 1))
    }

    /// Max end and worst severity of events `low..<high`.
    func aggregate(_ low: Int, _ high: Int) -> (Nanoseconds, LongUpdateSeverity) {
        var result = BlockSummary()
        var low = low, high = high
        let fanout = Self.fanout
        if levels.isEmpty {
            for i in low..<high { result.include(summary(i)) }
            return (result.maxEnd, result.severity)
        }
        while low < high && low % fanout != 0 { result.include(summary(low)); low += 1 }
        while high > low && high % fanout != 0 { high -= 1; result.include(summary(high)) }
        low /= fanout
        high /= fanout
        var level = 0
        while low < high {
            let blocks = levels[level]
            if level == levels.count - 1 {
                for block in blocks[low..<high] { result.include(block) }
                break
            }
            while low < high && low % fanout != 0 { result.include(blocks[low]); low += 1 }
            while high > low && high % fanout != 0 { high -= 1; result.include(blocks[high]) }
            low /= fanout
            high /= fanout
            level += 1
        }
        return (result.maxEnd, result.severity)
    }

    /// First index in `from..<before` whose event ends at or after `time`, skipping whole blocks.
    func firstIndex(endAtLeast time: Nanoseconds, from: Int, before: Int) -> Int {
        var i = from
        let fanout = Self.fanout
        while i < before {
            if i % fanout == 0, !levels.isEmpty, i + fanout <= before, levels[0][i / fanout].maxEnd < time {
                i += fanout
                continue
            }
            if ends[i] >= time { return i }
            i += 1
        }
        return before
    }
}

/// Running sums of CPU sample weight (all threads, main thread), in sample time order.
struct CPUPrefixSums: Sendable {
    let times: [Nanoseconds]
    let all: [Nanoseconds]
    let main: [Nanoseconds]
    /// Weight a thread busy for a nanosecond carries: 1 for CPU time; for cycles the clock
    /// rate the samples show (median cycles per nanosecond between a thread's consecutive samples).
    let weightPerNanosecond: Double

    init(_ trace: Trace) {
        let samples = trace.cpu.samples
        let isMain = trace.threads.map(\.isMain)
        var all = [Nanoseconds](repeating: 0, count: samples.count + 1)
        var main = all
        for i in 0..<samples.count {
            let weight = samples.weight[i]
            let thread = Int(samples.thread[i])
            all[i + 1] = all[i].addingSaturating(weight)
            main[i + 1] = main[i].addingSaturating(thread >= 0 && thread < isMain.count && isMain[thread] ? weight : 0)
        }
        times = samples.time
        self.all = all
        self.main = main
        weightPerNanosecond = trace.metadata.cpuWeightUnit == .cycles ? Self.cyclesPerNanosecond(samples) : 1
    }

    static func cyclesPerNanosecond(_ samples: SampleTable) -> Double {
        var previous: [Int32: Nanoseconds] = [:]
        var rates: [Double] = []
        for i in 0..<samples.count {
            let thread = samples.thread[i]
            // A gap over 10 ms is a thread that slept, not one that ran at some clock rate.
            if let last = previous[thread], case let gap = samples.time[i] - last, gap > 0, gap <= 10_000_000 {
                rates.append(Double(samples.weight[i]) / Double(gap))
            }
            previous[thread] = samples.time[i]
        }
        guard !rates.isEmpty else { return 1 }
        rates.sort()
        return max(rates[rates.count / 2], 1e-9)
    }

    func lowerBound(_ time: Nanoseconds, from: Int = 0) -> Int {
        var low = from, high = times.count
        // The answer is usually a column's worth of samples past `from`: doubling steps first,
        // so a whole-trace answer reads nearby samples rather than bisecting all of them per column.
        var step = 1
        while low + step < high, times[low + step] < time {
            low += step
            step *= 2
        }
        high = min(high, low + step + 1)
        while low < high {
            let mid = (low + high) / 2
            if times[mid] < time { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
