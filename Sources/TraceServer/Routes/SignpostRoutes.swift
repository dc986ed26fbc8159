import Hummingbird
import TraceModel

/// `GET /api/traces/{id}/signposts/{row}`: one signpost interval or event.
struct SignpostRoutes {
    let store: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/signposts/:row", use: signpost)
    }

    @Sendable func signpost(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let trace = try await store.trace(id: context.traceID())
        let row = try context.rowParameter("row", noun: "signpost", count: trace.signposts.count)
        return jsonResponse(bytes: try await queries.run(for: context.work) { try encodeJSON(trace.signpostDetail(row)) })
    }
}
