import Hummingbird
import TraceModel
import TraceStorage

/// List, upload, describe and delete traces.
func addTraceRoutes(to router: some RouterMethods<TraceRequestContext>, store: TraceStore, maxUploadBytes: Int64) {
    // Every trace, or a page of them (?limit=N, then ?cursor= from the previous page's nextCursor).
    router.get("/api/traces") { request, _ in
        let query = QueryParameters(request: request)
        guard let limit = try query.int("limit", in: 1...1000) else {
            return try jsonResponse(TraceList(traces: try await store.list(), nextCursor: nil, maxUploadBytes: maxUploadBytes))
        }
        let cursor = try query.string("cursor").map { text throws(APIError) -> CatalogCursor in
            guard let cursor = CatalogCursor(token: text) else { throw .badParameter("cursor", "'\(text)' is not a cursor this server gave") }
            return cursor
        }
        let page = try await store.page(limit: Int(limit), cursor: cursor)
        return try jsonResponse(TraceList(traces: page.records, nextCursor: page.next?.token, maxUploadBytes: maxUploadBytes))
    }

    router.post("/api/traces") { request, context in
        // ?run=N: which run of a several-run xctrace export to read (checked before the body is received).
        let run = try QueryParameters(request: request).int("run", in: 1...1_000_000).map(Int.init)
        // The upload may not pass the size limit, the storage quota or the disk's reserve.
        // Stored bytes and traces as the catalog has them now (another replica may have added some).
        try await store.refreshQuota()
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

struct TraceList: Encodable {
    var traces: [TraceRecord]
    /// Where the next page starts (`?cursor=`); null on the last page and without `?limit`.
    @NullWhenAbsent var nextCursor: String?
    /// The largest upload accepted (`--max-upload-mb`): the browser checks a file against it before sending.
    var maxUploadBytes: Int64
}
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
