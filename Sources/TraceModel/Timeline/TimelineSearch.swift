// The timeline search (the browser's find box, docs/api.md "Search"): the updates whose view,
// module, category or description, and the signposts whose name, subsystem, category or messages
// contain the text (ignoring case), or with "> 2 ms" those longer than that. Its answers: where
// the matches are drawn in a window (merged per pixel column, as the timeline merges marks), and
// the match before or after a point, with its place among all of them ("3 of 12").

/// A parsed search: text to find, or a duration to exceed.
public struct TimelineSearchQuery: Sendable, Equatable {
    public let text: String
    /// "> 2 ms": updates and signposts longer than this; nil for a text search.
    public let longerThan: Nanoseconds?
    let needle: String

    /// nil for an empty query (only spaces); `>` followed by a duration (DurationText.parse) is a duration search.
    public init?(_ text: String) {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { return nil }
        self.text = trimmed
        if trimmed.hasPrefix(">"), let duration = DurationText.parse(String(trimmed.dropFirst()).trimmingSpaces) {
            longerThan = duration
            needle = ""
        } else {
            longerThan = nil
            needle = trimmed.lowercased()
        }
    }
}

/// The matches of a query in one trace: update and signpost rows, each ascending (by start).
public struct TimelineMatches: Sendable {
    public let query: TimelineSearchQuery
    public let updates: [Int32]
    public let signposts: [Int32]
    public var count: Int { updates.count + signposts.count }
}

/// Where the matches are in a window: per lane (timeline lane ids), spans `[start, end, start, end…]`
/// merged per pixel column.
public struct TimelineSearchMarks: Sendable, Encodable, Equatable {
    public var query: String
    /// Matches in the whole trace, and of each kind.
    public var count: Int
    public var updates: Int
    public var signposts: Int
    /// Matches overlapping the window.
    public var inWindow: Int
    public var lanes: [String: [Nanoseconds]]
}

/// One match: an update (`id` its row) or a signpost (`id` its row for `…/signposts/{row}`).
public struct TimelineSearchMatch: Sendable, Encodable, Equatable {
    public var kind: String
    public var id: Int
    public var start: Nanoseconds
    public var duration: Nanoseconds
}

/// The match `]` or `[` steps to, its place among all matches (1-based, in time order) and their number.
public struct TimelineSearchStep: Sendable, Encodable, Equatable {
    @NullWhenAbsent public var match: TimelineSearchMatch? = nil
    @NullWhenAbsent public var index: Int? = nil
    public var count: Int
}

extension Trace {
    /// Every update and signpost the query matches. One pass over each table; each distinct
    /// string is compared once.
    public func matches(_ query: TimelineSearchQuery) -> TimelineMatches {
        var verdict = [UInt8](repeating: 2, count: strings.count)  // 2: not yet compared
        func hit(_ ref: StringRef) -> Bool {
            let index = Int(ref)
            if verdict[index] == 2 { verdict[index] = strings[index].lowercased().contains(query.needle) ? 1 : 0 }
            return verdict[index] == 1
        }
        var updateRows: [Int32] = []
        var signpostRows: [Int32] = []
        if let floor = query.longerThan {
            for row in 0..<updates.count where updates.duration[row] > floor { updateRows.append(Int32(row)) }
            for row in 0..<signposts.count where signposts.duration[row] > floor { signpostRows.append(Int32(row)) }
        } else {
            let u = updates
            for row in 0..<u.count where hit(u.viewName[row]) || hit(u.module[row]) || hit(u.category[row]) || hit(u.description[row]) {
                updateRows.append(Int32(row))
            }
            let s = signposts
            for row in 0..<s.count where hit(s.name[row]) || hit(s.subsystem[row]) || hit(s.category[row]) || hit(s.beginMessage[row]) || hit(s.endMessage[row]) {
                signpostRows.append(Int32(row))
            }
        }
        return TimelineMatches(query: query, updates: updateRows, signposts: signpostRows)
    }

    /// Where `matches` are drawn in `window` at `width` pixels: an update on its kind's lane of the
    /// SwiftUI track and, when long, on its long lane; a signpost on its lane.
    public func searchMarks(_ matches: TimelineMatches, window: TimeRange, width: Int) -> TimelineSearchMarks {
        let columns = PixelColumns(window: window, width: width)
        var lanes: [String: [Nanoseconds]] = [:]
        var inWindow = 0
        func add(_ lane: String, _ start: Nanoseconds, _ end: Nanoseconds) {
            var spans = lanes[lane, default: []]
            if let last = spans.last, start < columns.endOfColumn(containing: last) {
                spans[spans.count - 1] = max(last, end)
            } else {
                spans.append(start)
                spans.append(end)
            }
            lanes[lane] = spans
        }
        for row in matches.updates.lazy.map(Int.init) {
            let start = updates.start[row], end = updates.end(row)
            guard window.overlaps(start: start, end: end) else { continue }
            inWindow += 1
            let (all, long) = Self.lanes(of: updates.kind[row])
            add(all.rawValue, start, end)
            if updates.severity(row) != .normal { add(long.rawValue, start, end) }
        }
        var laneOfSignpost: [Int32: String] = [:]
        for lane in indexes.signpostLanes { for row in lane.rows { laneOfSignpost[Int32(row)] = lane.id } }
        for row in matches.signposts {
            let start = signposts.start[Int(row)], end = start + signposts.duration[Int(row)]
            guard window.overlaps(start: start, end: max(end, start + 1)), let lane = laneOfSignpost[row] else { continue }
            inWindow += 1
            add(lane, start, end)
        }
        return TimelineSearchMarks(
            query: matches.query.text, count: matches.count, updates: matches.updates.count, signposts: matches.signposts.count,
            inWindow: inWindow, lanes: lanes
        )
    }

    /// The match after (`forward`) or before the match `after` (kind and id), or else after or
    /// before time `at` (at or after it going forward, at or before it going back).
    public func searchStep(_ matches: TimelineMatches, forward: Bool, after: (kind: String, id: Int)?, at: Nanoseconds) -> TimelineSearchStep {
        // Both lists merged in time order (ties: updates first, then by row): the order `index` counts in.
        var order: [(start: Nanoseconds, isSignpost: Bool, row: Int32)] = []
        order.reserveCapacity(matches.count)
        for row in matches.updates { order.append((updates.start[Int(row)], false, row)) }
        for row in matches.signposts { order.append((signposts.start[Int(row)], true, row)) }
        order.sort { ($0.start, $0.isSignpost ? 1 : 0, $0.row) < ($1.start, $1.isSignpost ? 1 : 0, $1.row) }
        var target: Int?
        if let after, let current = order.firstIndex(where: { $0.row == after.id && $0.isSignpost == (after.kind == "signpost") }) {
            target = forward ? current + 1 : current - 1
        } else if forward {
            target = order.firstIndex { $0.start >= at }
        } else {
            target = order.lastIndex { $0.start <= at }
        }
        guard let index = target, order.indices.contains(index) else { return TimelineSearchStep(count: order.count) }
        let found = order[index]
        let row = Int(found.row)
        let match = found.isSignpost
            ? TimelineSearchMatch(kind: "signpost", id: row, start: signposts.start[row], duration: signposts.duration[row])
            : TimelineSearchMatch(kind: "update", id: row, start: updates.start[row], duration: updates.duration[row])
        return TimelineSearchStep(match: match, index: index + 1, count: order.count)
    }

    /// The SwiftUI track's lane of an update kind, and its long lane.
    private static func lanes(of kind: UpdateKind) -> (Lane, Lane) {
        switch kind {
        case .viewBody: (.viewBody, .longViewBody)
        case .representable: (.representable, .longRepresentable)
        case .layout, .other: (.otherUpdates, .longOther)
        }
    }
}

extension String {
    /// Without leading and trailing spaces (TraceModel does not import Foundation).
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
