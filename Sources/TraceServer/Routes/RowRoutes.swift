import Hummingbird
import TraceModel

/// One row of a trace's tables by its number: a signpost interval or event
/// (`GET /api/traces/{id}/signposts/{row}`) and a hang risk (Instruments 27) with the hang it fell
/// in and its backtrace (`GET /api/traces/{id}/hang-risks/{row}`).
struct RowRoutes: TraceController {
    let models: any TraceModels
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/signposts/:row", use: withTrace(signpost))
        router.get("/api/traces/:id/hang-risks/:row", use: withTrace(hangRisk))
    }

    @Sendable func signpost(_ on: TraceRequest) async throws -> Response {
        let trace = on.trace
        let row = try on.context.rowParameter("row", noun: "signpost", count: trace.signposts.count)
        return try await on.answer { try encodeJSON(trace.signpostDetail(row)) }
    }

    @Sendable func hangRisk(_ on: TraceRequest) async throws -> Response {
        let trace = on.trace
        let row = try on.context.rowParameter("row", noun: "hang risk", count: trace.hangRisks.count)
        return try await on.answer { try encodeJSON(trace.hangRiskDetail(row)) }
    }
}
