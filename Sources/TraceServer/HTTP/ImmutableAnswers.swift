import Crypto
import Foundation
import Hummingbird
import TraceCatalog
import TraceFormats

/// HTTP caching of the answers computed from stored traces only (summary, findings, timeline,
/// call tree, flame graph, ...). A trace's id is its content's hash, so such an answer is fixed by
/// the ids, the request (path, query, `Accept`) and the code that computes it (`version`): its
/// strong `ETag` is a hash of those, known before any work. `If-None-Match` with it answers
/// `304` without loading or computing anything, once the traces are known to still exist.
/// `Cache-Control: no-cache` lets the browser and a proxy keep the bytes but ask again each time,
/// so a deleted trace is a 404, not a stale answer.
struct ImmutableAnswerMiddleware: RouterMiddleware {
    typealias Context = TraceRequestContext

    /// What an answer's bytes depend on besides the traces and the request: the parser's version
    /// and `answersVersion`. Change `answersVersion` with any change to what an answer says.
    static let version = "parser \(TraceImporter.parserVersion), answers \(answersVersion)"
    static let answersVersion = 5

    let store: TraceStore

    /// The traces an answer is computed from: the path's `:id`, or the comma-separated ids of a
    /// compare's sides (`a` and `b`); nil when the request names none or one that is no trace id
    /// (the route's error answers).
    static func traceIDs(_ request: Request, _ context: Context) -> [TraceID]? {
        let texts: [Substring]
        if let id = context.parameters.get("id") {
            texts = [Substring(id)]
        } else {
            let query = request.uri.queryParameters
            texts = ["a", "b"].flatMap { name in (query.get(name) ?? "").split(separator: ",") }
        }
        let ids = texts.compactMap(TraceID.init)
        return ids.isEmpty || ids.count != texts.count ? nil : ids
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get, let ids = Self.traceIDs(request, context) else { return try await next(request, context) }
        let etag = Self.etag(ids, request.uri.path, request.uri.query ?? "", request.headers[.accept] ?? "", Self.version)
        if ifNoneMatch(request.headers[.ifNoneMatch], matches: etag), try await store.containsAll(ids.map(\.text)) {
            return Response(status: .notModified, headers: [.eTag: etag, .cacheControl: "no-cache", .vary: "Accept"])
        }
        var response = try await next(request, context)
        if response.status == .ok {
            response.headers[.eTag] = etag
            response.headers[.cacheControl] = "no-cache"
            // The tag covers `Accept` (the timeline answers binary or JSON by it).
            response.headers[.vary] = "Accept"
        }
        return response
    }

    /// A strong validator: 128 bits of SHA-256 over the version, the traces and the request.
    static func etag(_ traces: [TraceID], _ path: String, _ query: String, _ accept: String, _ version: String) -> String {
        let key = [version, traces.map(\.text).joined(separator: ","), path, query, accept].joined(separator: "\n")
        return "\"\(traceID(SHA256.hash(data: Data(key.utf8))))\""
    }
}

/// Whether an `If-None-Match` value names `etag`. Weak validators match too (If-None-Match uses
/// the weak comparison, RFC 9110 13.1.2), and so do lists and `*`.
func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
    guard let header else { return false }
    return header.split(separator: ",").contains { candidate in
        let tag = candidate.trimmingCharacters(in: .whitespaces)
        return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
    }
}
