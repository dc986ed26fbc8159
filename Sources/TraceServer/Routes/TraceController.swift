import Hummingbird
import TraceModel

/// The one style of routes: a controller per area, a struct given only the facets it needs, whose
/// `add(to:)` registers its handlers (`ArchitectureTests.everyRouteFileDeclaresAController`).
protocol RouteController: Sendable {
    func add(to router: some RouterMethods<TraceRequestContext>)
}

/// A controller of routes on one trace's model, all through one prologue (`withTrace`).
protocol TraceController: RouteController {
    var models: any TraceModels { get }
    var queries: WorkGate { get }
}

extension TraceController {
    /// The prologue every route on one trace shares: the path's `:id` checked (a text that
    /// cannot be an id is a 404 before any lookup), the trace looked up and its model loaded from
    /// memory or storage (an unknown id is a 404), then `handle` with it.
    func withTrace(_ handle: @escaping @Sendable (TraceRequest) async throws -> Response) -> @Sendable (Request, TraceRequestContext) async throws -> Response {
        { [models, queries] request, context in
            let loaded = try await models.loaded(id: context.traceID())
            return try await handle(TraceRequest(loaded: loaded, request: request, context: context, queries: queries))
        }
    }
}

/// One request on one trace, as `withTrace` hands it to a handler.
struct TraceRequest: Sendable {
    let loaded: LoadedTrace
    let request: Request
    let context: TraceRequestContext
    let queries: WorkGate

    var trace: Trace { loaded.trace }
    var query: QueryParameters { QueryParameters(request: request) }

    /// `work`'s bytes as the JSON answer, computed through the query gate: off the cooperative
    /// pool, a bounded number at once, shared fairly between clients, stopped when the client leaves.
    func answer(_ work: @escaping @Sendable () throws -> [UInt8]) async throws -> Response {
        jsonResponse(bytes: try await queries.run(for: context.work, work))
    }
}
