import Foundation
import HTTPTypes
import Hummingbird
import TraceModel
import TraceStorage

/// List, upload, describe and delete traces: the library and an upload's session, the whole store.
struct TraceRoutes: RouteController {
    let store: TraceStore
    let maxUploadBytes: Int64
    var sourceLinks: SourceLinkOptions?

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/traces", use: list)
        router.post("/api/traces", use: upload)
        router.get("/api/traces/:id", use: describe)
        router.patch("/api/traces/:id", use: editTags)
        router.get("/api/traces/:id/file", use: file)
        router.delete("/api/traces/:id", use: delete)
    }

    /// Every trace, or a page of them (?limit=N, then ?cursor= from the previous page's nextCursor),
    /// filtered by tag, name, text and upload date, in any of the list's orders.
    @Sendable func list(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let parameters = QueryParameters(request: request)
        let query = try parameters.catalogQuery()
        let cursor = try parameters.string("cursor").map { text throws(APIError) -> CatalogCursor in
            guard let cursor = CatalogCursor(token: text), cursor.fits(query.sort) else {
                throw .badParameter("cursor", "'\(text)' is not a cursor this server gave for sort=\(query.sort.rawValue)")
            }
            return cursor
        }
        guard let limit = try parameters.int("limit", in: 1...1000) else {
            let traces = try await store.list(query)
            return try jsonResponse(TraceList(traces: traces, nextCursor: nil, total: traces.count, maxUploadBytes: maxUploadBytes))
        }
        let page = try await store.page(query, limit: Int(limit), cursor: cursor)
        return try jsonResponse(TraceList(traces: page.records, nextCursor: page.next?.token, total: page.total, maxUploadBytes: maxUploadBytes))
    }

    @Sendable func upload(_ request: Request, context: TraceRequestContext) async throws -> Response {
        // ?run=N: which run of a several-run xctrace export to read; ?tag=key:value (repeated): its tags,
        // ?retag=1: they may move keys of the same content stored before (`TagOutcome`); all checked first.
        let parameters = QueryParameters(request: request)
        let run = try parameters.int("run", in: 1...1_000_000).map(Int.init)
        let (tags, retag) = (try parameters.tags(), try parameters.flag("retag"))
        // The upload may not pass the size limit, the storage quota or the disk's reserve.
        // Stored bytes and traces as the catalog has them now (another replica may have added some).
        try await store.refreshQuota()
        // Read as it arrives: the trace is parsed in the same pass as it is hashed and written (and, in
        // team mode, sent to the object store).
        let upload = try await UploadReceiver.receive(
            request, into: store.incomingDirectory, quota: store.quota, maxUploadBytes: maxUploadBytes, logger: context.logger,
            startImport: { file, name, length in store.beginImport(of: file, name: name, declaredLength: length, run: run) },
            streamBlob: { file, length in store.beginStreamedBlob(file: file, declaredLength: length) }
        )
        let added = try await store.add(upload, run: run, tags: tags, retag: retag, by: context.actor)
        var response = try jsonResponse(Uploaded(trace: added.record, summary: added.loaded.info, tagOutcome: added.tags), status: added.isNew ? .created : .ok)
        response.headers[.location] = "/api/traces/\(added.record.id)"
        return response
    }

    @Sendable func describe(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        var info = try await store.loaded(id: id).info
        let record = try await store.record(id: id)
        (info.tags, info.isSample, info.uploadedBy) = (record.tags, record.isSample, await store.uploader(of: record))
        info.sourceLink = sourceLinks?.link(tags: record.tags)
        return try jsonResponse(info)
    }

    /// Tags of an upload: {"tags": [...]} replaces them all; {"add": [...], "remove": [...]} edits
    /// them (remove names keys or whole tags).
    @Sendable func editTags(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        let edit = try await decodeJSONBody(TagEdit.self, from: request)
        let current = try await store.record(id: id)
        return try jsonResponse(try await store.setTags(try parseTags(try edit.applied(to: current.tags)), of: current, by: context.actor))
    }

    /// The uploaded file as it arrived (the run it was read at is in X-Trace-Run): `tracesvc check
    /// --baseline-tags` reads its baseline from here.
    @Sendable func file(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let id = try context.traceID()
        let file = try await store.file(id: id)
        let record = try await store.record(id: id)
        var headers: HTTPFields = [
            .contentType: "application/octet-stream", .cacheControl: "no-store",
            .contentDisposition: "attachment; filename=\"\(attachmentName(record.name))\"",
        ]
        if let run = record.run { headers[.traceRun] = String(run) }
        return Response(status: .ok, headers: headers, body: fileBody(file))
    }

    @Sendable func delete(_ request: Request, context: TraceRequestContext) async throws -> Response {
        try await store.delete(id: context.traceID(), by: context.actor)
        return Response(status: .noContent)
    }
}

struct TraceList: Encodable {
    var traces: [TraceRecord]
    /// Where the next page starts (`?cursor=`); null on the last page and without `?limit`.
    @NullWhenAbsent var nextCursor: String?
    /// Traces the query matches, all pages together (samples included).
    var total: Int
    /// The largest upload accepted (`--max-upload-mb`): the browser checks a file against it before sending.
    var maxUploadBytes: Int64
}

struct TagEdit: Decodable {
    var tags: [String]?
    var add: [String]?
    var remove: [String]?

    /// The tags after the edit: the replacement, or `current` without the removed keys or tags
    /// and the added keys, then the added tags.
    func applied(to current: [String]) throws(APIError) -> [String] {
        if let tags {
            guard add == nil, remove == nil else {
                throw APIError(.badRequest, "bad tag edit", detail: "Give either tags (all of them) or add and remove, not both.")
            }
            return tags
        }
        let added = try parseTags(add ?? [])
        let removed = Set(remove ?? [])
        let addedKeys = Set(added.map(\.key))
        return current.filter { text in
            let key = String(text.prefix { $0 != ":" })
            return !removed.contains(text) && !removed.contains(key) && !addedKeys.contains(key)
        } + added.map(\.text)
    }
}

/// A trace's tags from a request body: a bad one is a 400 naming it.
func parseTags(_ texts: [String]) throws(APIError) -> [TraceTag] {
    do {
        return try TraceTag.parseAll(texts)
    } catch {
        throw APIError(.badRequest, "bad tag", detail: "\(error.description) (docs/api.md, \"Tags\").")
    }
}

/// A file name safe in a quoted Content-Disposition: ASCII letters, digits and . _ - only.
func attachmentName(_ name: String) -> String {
    let safe = String(name.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_".unicodeScalars.contains($0)) ? Character($0) : "_" })
    return safe.isEmpty ? "trace" : String(safe.prefix(200))
}

/// The file's bytes streamed in chunks; when they no longer hash as they did (changed in place
/// while being sent), the answer is cut off before its last chunk, so no client takes it as whole.
func fileBody(_ file: OpenedTraceFile) -> ResponseBody {
    ResponseBody(contentLength: Int(file.size)) { writer in
        do {
            try await file.send { try await writer.write(ByteBuffer(bytes: $0)) }
        } catch is OpenedTraceFile.Changed {
            throw APIError(.conflict, "stored file changed", detail: "The trace's stored bytes changed while they were being sent.")
        }
        try await writer.finish(nil)
    }
}

extension HTTPField.Name {
    static let traceRun = Self("X-Trace-Run")!
}
struct Uploaded: Encodable {
    var trace: TraceRecord
    var summary: TraceInfo
    /// What became of the upload's tags (docs/api.md, "Tags").
    var tagOutcome: TagOutcome
}

extension RequestContext {
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
