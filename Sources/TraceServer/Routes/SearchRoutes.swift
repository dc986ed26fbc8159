import Hummingbird
import TraceModel

/// The timeline's find box (docs/api.md, "Search"): where a query's matches are in a window, and
/// the match `]` / `[` steps to. A query scans the trace once (a million updates in a few ms), off
/// the request path like every query; the last few queries' matches are kept with the trace.
struct SearchRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/search", use: withTrace(marks))
        router.get("/api/traces/:id/search/step", use: withTrace(step))
    }

    /// Where the matches are in a window, bucketed by pixel.
    @Sendable func marks(_ on: TraceRequest) async throws -> Response {
        let (loaded, trace, query) = (on.loaded, on.trace, on.query)
        let search = try searchQuery(query)
        let window = try query.timeRange() ?? TimeRange(start: trace.metadata.start, end: max(trace.metadata.end, trace.metadata.start + 1))
        let width = Int(try query.int("width", in: 1...10_000) ?? 1000)
        return try await on.answer {
            try encodeJSON(trace.searchMarks(loaded.searchMatches(search), window: window, width: width))
        }
    }

    /// The match `]` / `[` steps to.
    @Sendable func step(_ on: TraceRequest) async throws -> Response {
        let (loaded, trace, query) = (on.loaded, on.trace, on.query)
        let search = try searchQuery(query)
        let forward = try query.choice("direction", default: SearchDirection.next) == .next
        let after = try query.string("after").map { text throws(APIError) -> (kind: String, id: Int) in
            let parts = text.split(separator: ":")
            guard parts.count == 2, ["update", "signpost"].contains(parts[0]), let id = Int(parts[1]), id >= 0 else {
                throw APIError.badParameter("after", "'\(text)' is not update:ID or signpost:ROW")
            }
            return (String(parts[0]), id)
        }
        let at = try query.int("at") ?? (forward ? trace.metadata.start : trace.metadata.end)
        return try await on.answer {
            try encodeJSON(trace.searchStep(loaded.searchMatches(search), forward: forward, after: after, at: at))
        }
    }
}

private enum SearchDirection: String, CaseIterable { case next, previous }

private func searchQuery(_ query: QueryParameters) throws(APIError) -> TimelineSearchQuery {
    let text = query.string("q") ?? ""
    guard text.count <= 200, let search = TimelineSearchQuery(text) else {
        throw APIError.badParameter("q", text.count > 200 ? "'\(text.prefix(40))…' is longer than 200 characters" : "the text to find is required")
    }
    return search
}
