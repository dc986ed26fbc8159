import Hummingbird
import TraceModel

/// `GET /api/compare?a=ID&b=ID`: trace A (before) against trace B (after), each optionally
/// restricted to a range (`aStart`/`aEnd`, `bStart`/`bEnd`). docs/api.md has the shape.
func addCompareRoutes(to router: some RouterMethods<TraceRequestContext>, store: TraceStore, queries: WorkGate) {
    router.get("/api/compare") { request, context in
        let query = QueryParameters(request: request)
        guard let idA = query.string("a") else { throw APIError.badParameter("a", "give the id of trace A (before)") }
        guard let idB = query.string("b") else { throw APIError.badParameter("b", "give the id of trace B (after)") }
        let rangeA = try query.timeRange("aStart", "aEnd"), rangeB = try query.timeRange("bStart", "bEnd")
        let causeLimit = Int(try query.int("causes", in: 0...100_000) ?? Int64(TraceComparison.defaultCauseLimit))
        let functionLimit = Int(try query.int("functions", in: 0...100_000) ?? Int64(TraceComparison.defaultFunctionLimit))
        let viewLimit = Int(try query.int("views", in: 0...100_000) ?? Int64(TraceComparison.defaultViewLimit))
        let traceA = try await store.loaded(id: idA)
        let traceB = try await store.loaded(id: idB, alongside: traceA)
        // Each side is a pass over a whole trace (kept after the first compare of the whole
        // trace): both go through the query gate at once, off the cooperative pool.
        async let sideA = queries.run(for: context.work) { traceA.comparisonSide(in: rangeA) }
        async let sideB = queries.run(for: context.work) { traceB.comparisonSide(in: rangeB) }
        let (a, b) = (try await sideA, try await sideB)
        return jsonResponse(bytes: try await queries.run(for: context.work) {
            try encodeJSON(TraceComparison(a, b, causeLimit: causeLimit, functionLimit: functionLimit, viewLimit: viewLimit))
        })
    }
}
