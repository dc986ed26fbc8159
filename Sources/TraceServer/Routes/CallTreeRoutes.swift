import Hummingbird
import TraceModel

/// `GET /api/traces/{id}/calltree`: the CPU call tree, top-down or bottom-up.
struct CallTreeRoutes {
    let store: TraceStore
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces/:id/calltree", use: callTree)
    }

    @Sendable func callTree(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let trace = try await store.trace(id: context.traceID())
        let query = QueryParameters(request: request)
        let thread = try query.int("thread", in: 0...Int64(max(0, trace.threads.count - 1)))
        if thread != nil, trace.threads.isEmpty { throw APIError.badParameter("thread", "the trace has no threads") }
        // Symbol names hold commas ("f(a, b)"), never newlines: one name per line.
        let charged = query.string("charge").map { $0.split(separator: "\n").map(String.init) } ?? []
        guard charged.count <= 200 else { throw APIError.badParameter("charge", "at most 200 symbols can be charged to their callers, not \(charged.count)") }
        let treeQuery = CallTreeQuery(
            range: try query.timeRange(), mode: try query.choice("mode", default: .topDown),
            thread: thread.map(Int.init), minPercent: min(100, max(0, try query.double("minPercent") ?? 0.1)),
            view: query.string("view").map { CallTreeQuery.ViewSelector(name: $0, module: query.string("module")) },
            hideSystemLibraries: try query.choice("hideSystem", default: Switch.false) == .true,
            chargedToCaller: Set(charged)
        )
        return jsonResponse(bytes: try await queries.run(for: context.work) { trace.callTree(treeQuery).json() })
    }
}

private enum Switch: String, CaseIterable { case `true`, `false` }
