import Hummingbird
import TraceModel

/// `GET /api/traces/{id}/hang-risks/{row}`: one hang risk (Instruments 27), with the hang it fell in and its backtrace.
struct HangRiskRoutes {
    let store: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/hang-risks/:row", use: hangRisk)
    }

    @Sendable func hangRisk(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let trace = try await store.trace(id: context.traceID())
        let row = try context.rowParameter("row", noun: "hang risk", count: trace.hangRisks.count)
        return jsonResponse(bytes: try await queries.run(for: context.work) { try encodeJSON(trace.hangRiskDetail(row)) })
    }
}
