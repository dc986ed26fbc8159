import Hummingbird
import TraceCatalog
import TraceModel
import TraceStorage

// The store's reads and writes of one trace, by the checked id the routes hold (`TraceID`): a
// path's or query's id is checked once, at the edge, and an id that cannot be one is a 404
// before any catalog or cache is asked.
extension TraceStore {
    nonisolated func trace(id: TraceID) async throws(StoreError) -> Trace { try await trace(id: id.text) }

    nonisolated func loaded(id: TraceID, alongside held: [LoadedTrace] = []) async throws(StoreError) -> LoadedTrace {
        try await loaded(id: id.text, alongside: held)
    }

    func record(id: TraceID) async throws(StoreError) -> TraceRecord { try await record(id: id.text) }

    func file(id: TraceID) async throws(StoreError) -> OpenedTraceFile { try await file(id: id.text) }

    func delete(id: TraceID) async throws(StoreError) { try await delete(id: id.text) }
}

extension RequestContext {
    /// The path's `:id`, checked: a text that is no trace id is the same 404 as an unknown id.
    func traceID() throws(APIError) -> TraceID {
        guard let text = parameters.get("id") else { throw APIError(.notFound, "unknown trace", detail: "No trace id in the path.") }
        guard let id = TraceID(text) else { throw APIError.unknownTrace(String(text.prefix(80))) }
        return id
    }
}

/// A trace id given in a query or a body (`field`): 400 naming the field when it is none.
func checkedTraceID(_ text: String, field: String) throws(APIError) -> TraceID {
    guard let id = TraceID(text) else {
        throw .badParameter(field, "'\(text.prefix(40))' is not a trace id (32 lowercase hex digits)")
    }
    return id
}
