import Hummingbird
import TraceModel

/// Cause & effect graph routes (`/api/traces/:id/updates/:updateId/graph`, `/api/traces/:id/graph`).
/// The graph is extracted and laid out by TraceModel (`Trace.causeGraph`, `GraphLayout`); see
/// docs/cause-graph.md for the JSON shape. `expand=KEY,KEY` opens folded fan-out groups.
func addGraphRoutes(to router: some RouterMethods<BasicRequestContext>, store: TraceStore) {
    router.get("/api/traces/:id/updates/:updateId/graph") { request, context in
        let trace = try await store.trace(id: context.parameters.require("id"))
        let text = context.parameters.get("updateId") ?? ""
        guard let update = Int(text), update >= 0 else {
            throw APIError.badParameter("updateId", "'\(text)' is not an update id (a row number)")
        }
        let expand = expandedGroups(QueryParameters(request: request))
        guard let graph = trace.causeGraph(ofUpdate: update, expand: expand) else {
            throw APIError(.notFound, "unknown update", detail: "Trace has \(trace.updates.count) updates; there is no update \(update).")
        }
        return try jsonResponse(graph)
    }

    router.get("/api/traces/:id/graph") { request, context in
        let trace = try await store.trace(id: context.parameters.require("id"))
        let query = QueryParameters(request: request)
        guard let view = query.string("view") else {
            throw APIError.badParameter("view", "give the view name whose updates to merge, e.g. view=LandmarkListItemView")
        }
        let graph = trace.causeGraph(
            ofView: view, module: query.string("module") ?? "", in: try query.timeRange(), expand: expandedGroups(query)
        )
        return try jsonResponse(graph)
    }
}

private func expandedGroups(_ query: QueryParameters) -> Set<String> {
    Set((query.string("expand") ?? "").split(separator: ",").map { String($0) })
}
