import Hummingbird
import TraceModel

/// `GET /api/traces/{id}/summary`, a view's updates (`/updates?view=`) and one update (`/updates/{updateId}`).
struct SummaryRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/summary", use: withTrace(summary))
        router.get("/api/traces/:id/updates", use: withTrace(viewUpdates))
        router.get("/api/traces/:id/updates/:updateId", use: withTrace(update))
    }

    @Sendable func summary(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        let (range, filter) = (try query.timeRange(), try query.choice("filter", default: SummaryFilter.all))
        return try await on.answer { try encodeJSON(trace.summary(in: range, filter: filter)) }
    }

    @Sendable func viewUpdates(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        guard let view = query.string("view") else { throw APIError.badParameter("view", "the view name is required") }
        let order = try query.choice("order", default: SortOrder.asc)
        let updatesQuery = ViewUpdatesQuery(
            view: view, module: query.string("module"), category: query.string("category"), range: try query.timeRange(),
            filter: try query.choice("filter", default: .all), sort: try query.choice("sort", default: .start),
            descending: order == .desc,
            offset: Int(try query.int("offset", in: 0...Int64(Int32.max)) ?? 0),
            limit: Int(try query.int("limit", in: 1...10_000) ?? 200)
        )
        return try await on.answer { try encodeJSON(trace.viewUpdates(updatesQuery)) }
    }

    @Sendable func update(_ on: TraceRequest) async throws -> Response {
        let trace = on.trace
        let id = try on.context.rowParameter("updateId", noun: "update", count: trace.updates.count)
        return try await on.answer { try encodeJSON(trace.updateDetail(id)) }
    }
}

enum SortOrder: String, CaseIterable { case asc, desc }
