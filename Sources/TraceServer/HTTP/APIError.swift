import Foundation
import Hummingbird
import TraceStorage
import TraceFormats
import TraceModel

/// An error the API answers with: `{"error", "detail", "location"}` and a 4xx status.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    public var status: HTTPResponse.Status
    /// Short text, e.g. "unknown trace".
    public var error: String
    /// What is wrong, in a sentence a person can act on.
    public var detail: String
    /// "file:line:column" for unreadable trace files, else nil.
    public var location: String?
    /// An upload's tags that were refused: which, and why (only then in the body).
    public var tagOutcome: TagOutcome?

    public init(_ status: HTTPResponse.Status, _ error: String, detail: String, location: String? = nil) {
        self.status = status
        self.error = error
        self.detail = detail
        self.location = location
    }

    /// The one place where the store's errors become HTTP.
    public init(_ error: StoreError) {
        switch error {
        case .unknownTrace(let id): self = .unknownTrace(id)
        case .readOnlySample(let name):
            self.init(.forbidden, "read-only trace", detail: "\(name) is a sample; samples cannot be deleted, tagged or given notes.")
        case let .tagsNotStored(outcome, onSample):
            self.init(onSample ? .forbidden : .conflict, onSample ? "read-only trace" : "tags conflict",
                      detail: "Tags not stored (\(outcome.notStored.joined(separator: ", "))): \(outcome.reason ?? "refused").")
            tagOutcome = outcome
        case .unreadable(let formatError): self = .unreadable(formatError)
        case .fileChanged(let id):
            self.init(.conflict, "stored file changed",
                      detail: "The stored file of trace \(id) no longer has the content it was uploaded with; upload the trace again.")
        case let .tooManyNotes(id, limit):
            self.init(.conflict, "too many notes", detail: "Trace \(id) has \(limit) notes, the most a trace keeps; delete one first.")
        case .storageFull(let detail): self.init(.init(code: 507, reasonPhrase: "Insufficient Storage"), "storage full", detail: detail)
        // The server has room; this tag has not (a 4xx: the client's tags decide, not the server's state).
        case .tagQuotaExceeded(let refusal): self.init(.forbidden, "tag quota exceeded", detail: refusal.description)
        case .storageFailure(let detail): self.init(.internalServerError, "storage failure", detail: detail)
        case .busy(let detail): self.init(.serviceUnavailable, "server busy", detail: detail)
        case .shuttingDown: self.init(.serviceUnavailable, "server is shutting down", detail: "The server is stopping; try again when it is back.")
        case .cancelled: self.init(.serviceUnavailable, "cancelled", detail: "The request was cancelled: its client left or the server is shutting down.")
        case let .service(error): self.init(error)
        case let .auditUnavailable(detail): self.init(.serviceUnavailable, "audit log unavailable", detail: detail)
        }
    }

    /// A storage service that is down is a 503 naming it; one that answered wrongly a 502.
    public init(_ error: StorageError) {
        switch error {
        case let .unavailable(service, detail):
            self.init(.serviceUnavailable, "\(service) unavailable", detail: "The \(service) did not answer in time or refused the connection (\(detail)); try again in a moment.")
        case let .failed(service, detail):
            self.init(.badGateway, "\(service) failed", detail: "The \(service) answered with an error (\(detail)); the server log has the details.")
        case let .missingBlob(key):
            self.init(.internalServerError, "trace bytes missing", detail: "The stored bytes of this trace (blob \(key)) are missing; upload the trace again.")
        case let .corruptBlob(key):
            self.init(.internalServerError, "trace bytes damaged", detail: "The stored bytes of this trace (blob \(key)) do not match their hash; upload the trace again.")
        }
    }

    public static func badParameter(_ name: String, _ detail: String) -> APIError {
        APIError(.badRequest, "bad parameter", detail: "\(name): \(detail)")
    }

    public static func unknownTrace(_ id: String) -> APIError {
        APIError(.notFound, "unknown trace", detail: "No trace has id \(id).")
    }

    public static func unreadable(_ error: TraceFormatError) -> APIError {
        APIError(.unprocessableContent, "unreadable trace file", detail: error.description, location: error.location)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = jsonResponse(bytes: jsonBody(), status: status)
        if status == .methodNotAllowed { response.headers[.allow] = "GET, HEAD, POST, DELETE" }
        // Busy, stopping, a service down or too many requests in flight: all pass; a client may ask again in a few seconds.
        if status == .serviceUnavailable || status == .tooManyRequests { response.headers[.retryAfter] = "5" }
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer realm=\"tracesvc\"" }
        return response
    }

    /// `{"error", "detail", "location"}` as JSON bytes.
    func jsonBody() -> [UInt8] {
        let body = Body(error: error, detail: detail, location: location)
        let bytes = if let tagOutcome { try? encodeJSON(RefusedTags(error: error, detail: detail, location: location, tagOutcome: tagOutcome)) } else { try? encodeJSON(body) }
        return bytes ?? Array("{}".utf8)
    }

    private struct Body: Encodable {
        var error: String
        var detail: String
        @NullWhenAbsent var location: String?
    }

    /// An upload's refused tags: the error's keys and what became of the tags.
    private struct RefusedTags: Encodable {
        var error: String
        var detail: String
        @NullWhenAbsent var location: String?
        var tagOutcome: TagOutcome
    }
}

/// A JSON response (`application/json; charset=utf-8`).
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    jsonResponse(bytes: try encodeJSON(value), status: status)
}

/// JSON bytes as the API writes them: the one encoder of every JSON answer (the hand-written
/// ones, `Timeline.json` and the call tree's, keep a fixed order too). Keys are sorted, a
/// dictionary's as well as a struct's, so the same request answers the same bytes (Swift's
/// dictionaries iterate in a per-process order), which the answers' ETags rely on.
func encodeJSON(_ value: some Encodable) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    return Array(try encoder.encode(value))
}

/// A JSON response from bytes already encoded.
func jsonResponse(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    Response(
        status: status,
        headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
    )
}

/// Turns every error into the JSON error shape (unknown routes and files included), and
/// never lets an unexpected error out as an empty 500.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as StoreError where error != .cancelled {
            throw APIError(error)
        } catch let error as StorageError {
            throw APIError(error)
        } catch let error as WorkGate.Busy {
            throw APIError(StoreError.busy(error.detail))
        } catch let error as any HTTPResponseError {
            let text = error.status == .notFound ? "no such route" : error.status.reasonPhrase.lowercased()
            throw APIError(error.status, text, detail: "\(request.method) \(request.uri.path): \(error.status.reasonPhrase).")
        } catch is CancellationError, StoreError.cancelled {
            // The client left or the server is shutting down: not a failure of the server's, and
            // nobody but a shutting-down client can still read the answer.
            context.logger.debug("\(request.method) \(request.uri.path) cancelled")
            throw APIError(StoreError.cancelled)
        } catch {
            // The error's text may dump internal state (a whole value): log it, never send it.
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            throw APIError(.internalServerError, "internal error", detail: "The server failed to answer \(request.method) \(request.uri.path); the server log has the details.")
        }
    }
}

/// Reads and checks query parameters; a malformed value is a 400 naming the parameter.
struct QueryParameters {
    private var values: [String: String] = [:]
    /// Every value of each name, in order (`tag=` is repeated).
    private var repeated: [String: [String]] = [:]

    init(request: Request) {
        self.init(query: request.uri.query ?? "")
    }

    /// Decoded as browsers encode them (URLSearchParams writes a space as "+", a "+" as "%2B");
    /// the first of repeated names wins.
    init(query: String) {
        func decode(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { continue }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if let value { repeated[name, default: []].append(value) }
            guard values[name] == nil else { continue }
            values[name] = value
        }
    }

    func string(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every non-empty value given for `name`.
    func strings(_ name: String) -> [String] {
        (repeated[name] ?? []).filter { !$0.isEmpty }
    }

    /// `tag=key:value` (repeated): each valid, each key once; a bad one is a 400 naming it.
    func tags() throws(APIError) -> [TraceTag] {
        do {
            return try TraceTag.parseAll(strings("tag"))
        } catch {
            throw APIError(.badRequest, "bad tag", detail: "\(error.description) (docs/api.md, \"Tags\").")
        }
    }

    /// `?name=1` or `?name=true`, `?name=0` or `?name=false` (absent: false); anything else is a 400.
    func flag(_ name: String) throws(APIError) -> Bool {
        guard let text = string(name) else { return false }
        switch text {
        case "1", "true": return true
        case "0", "false": return false
        default: throw .badParameter(name, "'\(text)' is not true or false (1 or 0)")
        }
    }

    func int(_ name: String, in range: ClosedRange<Int64>? = nil) throws(APIError) -> Int64? {
        guard let text = string(name) else { return nil }
        guard let value = Int64(text) else { throw .badParameter(name, "'\(text)' is not an integer") }
        if let range, !range.contains(value) {
            throw .badParameter(name, "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func double(_ name: String) throws(APIError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite else { throw .badParameter(name, "'\(text)' is not a number") }
        return value
    }

    /// One of `T`'s cases by its name; nil when absent, a 400 listing the cases when it is none of them.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String) throws(APIError) -> T? where T.RawValue == String {
        guard let text = string(name) else { return nil }
        guard let choice = T(rawValue: text) else {
            throw .badParameter(name, "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default value: T) throws(APIError) -> T where T.RawValue == String {
        try choice(name) ?? value
    }

    /// `start`/`end` (or another pair, e.g. `aStart`/`aEnd`) as a range; nil when both are
    /// absent. Half given, or end <= start, is a 400.
    func timeRange(_ startName: String = "start", _ endName: String = "end") throws(APIError) -> TimeRange? {
        let start = try int(startName, in: TraceLimits.queryTimes), end = try int(endName, in: TraceLimits.queryTimes)
        switch (start, end) {
        case (nil, nil): return nil
        case let (start?, end?):
            guard end > start else { throw APIError(.badRequest, "bad range", detail: "\(endName) (\(end)) must be after \(startName) (\(start)).") }
            return TimeRange(start: start, end: end)
        default:
            throw APIError(.badRequest, "bad range", detail: "Give both \(startName) and \(endName), or neither.")
        }
    }
}

extension QueryParameters {
    /// The list's filters and order (`GET /api/traces`): tag, name, q, from, to, sort, order.
    func catalogQuery() throws(APIError) -> CatalogQuery {
        var query = CatalogQuery(tags: try tags())
        if let name = string("name") {
            guard name.count <= 200 else { throw .badParameter("name", "at most 200 characters") }
            query.name = name
        }
        if let text = string("q") {
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard text.count <= 200, words.count <= 8 else { throw .badParameter("q", "at most 8 words and 200 characters") }
            query.words = words
        }
        query.uploadedFrom = try date("from", endOfDay: false)
        query.uploadedBefore = try date("to", endOfDay: true)
        query.sort = try choice("sort", default: CatalogSort.uploaded)
        // Newest, longest, largest first by default; names from A.
        query.descending = try choice("order", default: query.sort == .name ? SortOrder.asc : SortOrder.desc) == .desc
        return query
    }

    /// `2026-11-25` (a whole day: `to` means the end of it) or an ISO 8601 time, as µs since 1970.
    func date(_ name: String, endOfDay: Bool) throws(APIError) -> Int64? {
        guard let text = string(name) else { return nil }
        let isDay = text.count == 10 && text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard let micros = CatalogEntry.micros(fromISO8601: isDay ? text + "T00:00:00Z" : text) else {
            throw .badParameter(name, "'\(text)' is not a date (2026-11-25) or an ISO 8601 time (2026-11-25T09:30:00Z)")
        }
        return isDay && endOfDay ? micros + 86_400_000_000 : micros
    }
}

/// A JSON request body of at most `maxBytes`, as `T`: 415 unless it is JSON, 400 naming what is wrong.
func decodeJSONBody<T: Decodable>(_ type: T.Type, from request: Request, maxBytes: Int = 64 << 10) async throws -> T {
    guard let contentType = request.headers[.contentType]?.lowercased(), contentType.hasPrefix("application/json") else {
        throw APIError(.unsupportedMediaType, "unsupported media type", detail: "Send the body as JSON (Content-Type: application/json).")
    }
    let buffer: ByteBuffer
    do {
        buffer = try await request.body.collect(upTo: maxBytes)
    } catch {
        throw APIError(.contentTooLarge, "body too large", detail: "The JSON body may have at most \(maxBytes >> 10) KB.")
    }
    do {
        return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
    } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
        throw APIError(.badRequest, "bad JSON body", detail: "\(jsonPath(context)): \(context.debugDescription)")
    } catch let DecodingError.keyNotFound(key, context) {
        throw APIError(.badRequest, "bad JSON body", detail: "\(jsonPath(context, key)): required")
    } catch {
        throw APIError(.badRequest, "bad JSON body", detail: "The body is not JSON of the documented shape.")
    }
}

private func jsonPath(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
    let path = (context.codingPath + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    return path.isEmpty ? "body" : path.joined(separator: ".")
}
