// The updates of one view (the "Updates" pane): filtered, sorted, paged, each with a one-line cause.

public struct ViewUpdatesQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable { case start, duration }

    public var view: String
    /// nil = any module.
    public var module: String?
    /// nil = any category ("View Body", "Layout", ...): a summary row is one (view, category).
    public var category: String?
    /// nil = the whole trace; otherwise updates that overlap the range.
    public var range: TimeRange?
    public var filter: SummaryFilter = .all
    public var sort: Sort = .start
    public var descending = false
    public var offset = 0
    public var limit = 200

    public init(view: String, module: String? = nil, category: String? = nil, range: TimeRange? = nil, filter: SummaryFilter = .all,
                sort: Sort = .start, descending: Bool = false, offset: Int = 0, limit: Int = 200) {
        self.view = view
        self.module = module
        self.category = category
        self.range = range
        self.filter = filter
        self.sort = sort
        self.descending = descending
        self.offset = offset
        self.limit = limit
    }
}

public struct ViewUpdateRow: Sendable, Equatable, Encodable {
    public var id: Int
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var severity: String
    public var kind: String
    /// Update group row, or nil.
    public var group: Int?
    public var cause: String
}

public struct ViewUpdatesPage: Sendable, Equatable, Encodable {
    public var total: Int
    public var offset: Int
    public var limit: Int
    public var updates: [ViewUpdateRow]
}

extension Trace {
    public func viewUpdates(_ query: ViewUpdatesQuery) -> ViewUpdatesPage {
        let table = updates
        var rows: [Int] = []
        // Compare interned references, not strings, in the loop over every update.
        let viewRef = ref(of: query.view)
        let moduleRef = query.module.map { module in ref(of: module) ?? StringRef.max }
        let categoryRef = query.category.map { category in ref(of: category) ?? StringRef.max }
        if let viewRef {
            // The view's updates, already in the order asked for (UpdateListIndex): filtering keeps it.
            let candidates = indexes.lists.viewLists(self).updates(ofView: viewRef, byDuration: query.sort == .duration)
            let lanes = query.filter.lanes
            let countsAll = UpdateKind.allCases.map { lanes.contains($0.allUpdatesLane) }
            let countsLong = UpdateKind.allCases.map { lanes.contains($0.longLane) }
            rows.reserveCapacity(candidates.count)
            for candidate in candidates {
                let row = Int(candidate)
                if let moduleRef, table.module[row] != moduleRef { continue }
                if let categoryRef, table.category[row] != categoryRef { continue }
                if let range = query.range, !range.overlaps(start: table.start[row], end: table.end(row)) { continue }
                let kind = Int(table.kind[row].rawValue)
                if !countsAll[kind], !(countsLong[kind] && LongUpdateSeverity(duration: table.duration[row]).isLong) { continue }
                rows.append(row)
            }
        }
        if query.descending {
            rows.reverse()
            // Longest first, but equal durations stay in row order (as ascending has them).
            if query.sort == .duration { reverseRuns(of: &rows, equalIn: table.duration) }
        }
        let offset = max(0, query.offset)
        let page = rows.dropFirst(offset).prefix(max(0, query.limit))
        return ViewUpdatesPage(total: rows.count, offset: offset, limit: query.limit, updates: page.map { row in
            ViewUpdateRow(
                id: row, start: table.start[row], duration: table.duration[row],
                severity: table.severity(row).wireName, kind: table.kind[row].wireName,
                group: table.group[row] == noRow ? nil : Int(table.group[row]),
                cause: causeLine(ofUpdate: row)
            )
        })
    }

    /// One line naming what made `update` run, e.g. "@Observable ModelData.favoritesCollection";
    /// "" when the graph does not say. Prefers the app's own state over system nodes.
    public func causeLine(ofUpdate update: Int) -> String {
        var best: (score: Int, text: String)?
        for node in indexes.nodes(ofUpdate: update) {
            for edge in graph.incoming(Int(node)) {
                let source = Int(graph.edges.source[Int(edge)])
                let kind = graph.nodes.kind[source]
                let score = (graph.nodes.isAppCode[source] ? 2 : 0) + (kind == .viewBody ? 0 : 1)
                if best == nil || score > best!.score {
                    best = (score, causeTitle(node: source, property: graph.edges.changedProperty[Int(edge)]))
                }
            }
        }
        return best?.text ?? ""
    }

    /// A node's title with its owner and the property that changed, e.g. "@State isFavorite"
    /// owned by "LandmarkDetail" -> "@State LandmarkDetail.isFavorite"; "@Observable ModelData"
    /// with property "favoritesCollection" -> "@Observable ModelData.favoritesCollection".
    public func causeTitle(node: Int, property: StringRef = 0) -> String {
        var title = string(graph.nodes.name[node])
        let owner = string(graph.nodes.owner[node])
        let isWrapper = title.hasPrefix("@")
        // "@State isFavorite" owned by LandmarkDetail names its owner; "@Observable LandmarkViewModel"
        // owned by LandmarkViewModel already does.
        if isWrapper, !owner.isEmpty, !title.contains("."), let space = title.firstIndex(of: " "), title[title.index(after: space)...] != owner {
            title = "\(title[..<space]) \(owner).\(title[title.index(after: space)...])"
        }
        let changed = string(property)
        if !changed.isEmpty, !title.containsText(changed) {
            title += isWrapper && !title.contains(".") ? ".\(changed)" : " (\(changed))"
        }
        return title
    }
}

/// Reverses each run of rows with equal `values` in place.
private func reverseRuns(of rows: inout [Int], equalIn values: [Nanoseconds]) {
    var runStart = 0
    while runStart < rows.count {
        var runEnd = runStart + 1
        while runEnd < rows.count, values[rows[runEnd]] == values[rows[runStart]] { runEnd += 1 }
        rows[runStart..<runEnd].reverse()
        runStart = runEnd
    }
}

/// First index whose value is >= `value` in a sorted array.
func indexOfFirst(atLeast value: Nanoseconds, in sorted: [Nanoseconds]) -> Int {
    var low = 0, high = sorted.count
    while low < high {
        let mid = (low + high) / 2
        if sorted[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low
}

extension SummaryFilter {
    /// Whether an update of this kind and duration is in the lanes the filter counts.
    func includes(kind: UpdateKind, duration: Nanoseconds) -> Bool {
        lanes.contains(kind.allUpdatesLane) || (LongUpdateSeverity(duration: duration).isLong && lanes.contains(kind.longLane))
    }
}
