import Hummingbird
import NIOPosix
import TraceModel

/// `GET /api/compare?a=ID&b=ID`: trace A (before) against trace B (after), each optionally
/// restricted to a range (`aStart`/`aEnd`, `bStart`/`bEnd`). docs/api.md has the shape.
func addCompareRoutes(to router: some RouterMethods<BasicRequestContext>, store: TraceStore) {
    router.get("/api/compare") { request, _ in
        let query = QueryParameters(request: request)
        guard let idA = query.string("a") else { throw APIError.badParameter("a", "give the id of trace A (before)") }
        guard let idB = query.string("b") else { throw APIError.badParameter("b", "give the id of trace B (after)") }
        let rangeA = try query.timeRange("aStart", "aEnd"), rangeB = try query.timeRange("bStart", "bEnd")
        let causeLimit = Int(try query.int("causes", in: 0...100_000) ?? Int64(TraceComparison.defaultCauseLimit))
        let functionLimit = Int(try query.int("functions", in: 0...100_000) ?? Int64(TraceComparison.defaultFunctionLimit))
        let traceA = try await store.trace(id: idA), traceB = try await store.trace(id: idB)
        // Each side is a pass over a whole trace (a second for millions of updates): both run at
        // once on NIO's blocking pool, off the cooperative pool that serves the other requests.
        async let sideA = comparisonSideOffPool(traceA, range: rangeA)
        async let sideB = comparisonSideOffPool(traceB, range: rangeB)
        return try jsonResponse(TraceComparison(try await sideA, try await sideB, causeLimit: causeLimit, functionLimit: functionLimit))
    }
}

private func comparisonSideOffPool(_ trace: Trace, range: TimeRange?) async throws -> ComparisonSide {
    do {
        return try await NIOThreadPool.singleton.runIfActive { trace.comparisonSide(in: range) }
    } catch {
        throw APIError(.serviceUnavailable, "server is shutting down", detail: "\(error)")
    }
}
