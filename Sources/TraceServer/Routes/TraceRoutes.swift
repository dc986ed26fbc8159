import Hummingbird
import TraceModel

/// List, upload, describe and delete traces.
func addTraceRoutes(to router: some RouterMethods<TraceRequestContext>, store: TraceStore, maxUploadBytes: Int64) {
    router.get("/api/traces") { _, _ in
        try jsonResponse(TraceList(traces: await store.list()))
    }

    router.post("/api/traces") { request, context in
        // ?run=N: which run of a several-run xctrace export to read (checked before the body is received).
        let run = try QueryParameters(request: request).int("run", in: 1...1_000_000).map(Int.init)
        // The upload may not pass the size limit, the storage quota or the disk's reserve.
        let upload = try await UploadReceiver.receive(
            request, into: store.incomingDirectory, quota: store.quota, maxUploadBytes: maxUploadBytes, logger: context.logger
        )
        let added = try await store.add(upload, run: run)
        var response = try jsonResponse(Uploaded(trace: added.record, summary: added.loaded.info), status: added.isNew ? .created : .ok)
        response.headers[.location] = "/api/traces/\(added.record.id)"
        return response
    }

    router.get("/api/traces/:id") { _, context in
        try jsonResponse(try await store.loaded(id: context.traceID()).info)
    }

    router.delete("/api/traces/:id") { _, context in
        try await store.delete(id: context.traceID())
        return Response(status: .noContent)
    }
}

struct TraceList: Encodable { var traces: [TraceRecord] }
struct Uploaded: Encodable { var trace: TraceRecord; var summary: TraceInfo }

extension RequestContext {
    func traceID() throws(APIError) -> String {
        guard let id = parameters.get("id") else { throw APIError(.notFound, "unknown trace", detail: "No trace id in the path.") }
        return id
    }

    /// A row number from the path (`/updates/{updateId}`, `/task-states/{row}`): 400 when it is
    /// not a number, 404 when the trace has no such `noun` among its `count`.
    func rowParameter(_ name: String, noun: String, count: Int) throws(APIError) -> Int {
        let text = parameters.get(name) ?? ""
        guard let row = Int(text) else { throw APIError.badParameter(name, "'\(text)' is not \(noun == "update" ? "an" : "a") \(noun) id") }
        guard row >= 0, row < count else {
            throw APIError(.notFound, "unknown \(noun)", detail: "The trace has \(count) \(noun)s; there is no \(noun) \(row).")
        }
        return row
    }
}
