import Foundation
import Hummingbird
import TraceModel
import TraceStorage

/// `GET /api/audit`: who uploaded, deleted, tagged and annotated what, newest first, a page at a
/// time (`?limit=`, `?cursor=`), filtered by `?trace=`, `?action=` and `?actor=`. Needs the `read`
/// scope (docs/api.md, "Audit"): the trail names people.
struct AuditRoutes: RouteController {
    let trail: any AuditTrail

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/api/audit", use: auditPage)
    }

    @Sendable func auditPage(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let parameters = QueryParameters(request: request)
        var query = AuditQuery()
        if let trace = parameters.string("trace") { query.traceID = try checkedTraceID(trace, field: "trace").text }
        query.action = try parameters.choice("action")
        if let actor = parameters.string("actor") {
            guard actor.count <= 200 else { throw APIError.badParameter("actor", "at most 200 characters") }
            query.actor = actor
        }
        let cursor = try parameters.string("cursor").map { text throws(APIError) -> AuditCursor in
            guard let cursor = AuditCursor(token: text) else { throw .badParameter("cursor", "'\(text)' is not a cursor this server gave") }
            return cursor
        }
        let limit = Int(try parameters.int("limit", in: 1...500) ?? 100)
        let page = try await trail.auditPage(query, limit: limit, after: cursor)
        var response = try jsonResponse(AuditList(events: page.events.map(AuditEventJSON.init), nextCursor: page.next?.token))
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// The store's facet the audit route needs: the trail, a page at a time.
protocol AuditTrail: Sendable {
    func auditPage(_ query: AuditQuery, limit: Int, after cursor: AuditCursor?) async throws(StoreError) -> (events: [AuditEvent], next: AuditCursor?)
}

struct AuditList: Encodable {
    var events: [AuditEventJSON]
    @NullWhenAbsent var nextCursor: String?
}

struct AuditEventJSON: Encodable {
    var id: String
    /// ISO 8601 with milliseconds, UTC.
    var at: String
    var actor: String
    var action: String
    @NullWhenAbsent var traceId: String?
    @NullWhenAbsent var traceName: String?
    var detail: String
}

extension AuditEventJSON {
    init(_ event: AuditEvent) {
        self.init(
            id: event.id, at: CatalogEntry.iso8601(micros: event.atMicros), actor: event.actor, action: event.action.rawValue,
            traceId: event.traceID, traceName: event.traceName, detail: event.detail
        )
    }
}
