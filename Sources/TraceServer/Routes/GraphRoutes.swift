import Hummingbird
import TraceModel

/// Cause & effect graph routes (`/api/traces/:id/updates/:updateId/graph`, `/api/traces/:id/graph`).
/// The graph is extracted and laid out by TraceModel (`Trace.causeGraph`, `GraphLayout`); see
/// docs/cause-graph.md for the JSON shape. `expand=KEY,KEY` opens folded fan-out groups.
struct GraphRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/updates/:updateId/graph", use: withTrace(updateGraph))
        router.get("/api/traces/:id/graph", use: withTrace(viewGraph))
    }

    @Sendable func updateGraph(_ on: TraceRequest) async throws -> Response {
        let trace = on.trace
        let text = on.context.parameters.get("updateId") ?? ""
        guard let update = Int(text), update >= 0 else {
            throw APIError.badParameter("updateId", "'\(text)' is not an update id (a row number)")
        }
        let expand = Self.expandedGroups(on.query)
        guard update < trace.updates.count else {
            throw APIError(.notFound, "unknown update", detail: "Trace has \(trace.updates.count) updates; there is no update \(update).")
        }
        return try await on.answer { try encodeJSON(trace.causeGraph(ofUpdate: update, expand: expand)) }
    }

    @Sendable func viewGraph(_ on: TraceRequest) async throws -> Response {
        let (trace, query) = (on.trace, on.query)
        guard let view = query.string("view") else {
            throw APIError.badParameter("view", "give the view name whose updates to merge, e.g. view=LandmarkListItemView")
        }
        let (module, range, expand) = (query.string("module") ?? "", try query.timeRange(), Self.expandedGroups(query))
        return try await on.answer { try encodeJSON(trace.causeGraph(ofView: view, module: module, in: range, expand: expand)) }
    }

    private static func expandedGroups(_ query: QueryParameters) -> Set<String> {
        Set((query.string("expand") ?? "").split(separator: ",").map { String($0) })
    }
}
