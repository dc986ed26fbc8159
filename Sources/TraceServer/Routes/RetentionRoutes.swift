import Foundation
import Hummingbird
import TraceModel
import TraceStorage

/// Deleting many traces: by query (`DELETE /api/traces?…`) and by the retention policy
/// (`GET /api/retention` lists what it would delete now, `POST /api/retention` applies it now).
/// docs/api.md, "Retention and deleting by query".
struct RetentionRoutes: RouteController {
    let store: any TraceDeletion
    let policy: RetentionPolicy

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.delete("/api/traces", use: deleteByQuery)
        router.get("/api/retention", use: listRetention)
        router.post("/api/retention", use: applyRetention)
    }

    /// The list's filters (tag, name, q, from, to) and `older-than=30d`; `dry-run=true` only lists.
    /// At least one filter: a bare DELETE /api/traces is refused rather than emptying the server.
    @Sendable func deleteByQuery(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let parameters = QueryParameters(request: request)
        var query = try parameters.catalogQuery()
        let olderThan = parameters.string("older-than")
        if let olderThan {
            guard let seconds = RetentionRule.seconds(olderThan) else {
                throw APIError.badParameter("older-than", "'\(olderThan)' is not a whole number of m, h, d or w (30d, 12h, 2w)")
            }
            let cutoff = CatalogEntry.nowMicros() - seconds * 1_000_000
            query.uploadedBefore = min(query.uploadedBefore ?? .max, cutoff)
        }
        guard !query.isUnfiltered else {
            throw APIError(.badRequest, "no filter", detail: "Deleting by query needs at least one of tag, name, q, from, to or older-than; delete one trace with DELETE /api/traces/{id}.")
        }
        let dryRun = try parameters.flag("dry-run")
        (query.sort, query.descending) = (.uploaded, false)
        let candidates = try await store.matching(query) { DeletionCandidate(entry: $0, rule: nil) }
        let described = request.uri.query.map { "by query \($0.removingPercentEncoding ?? $0)" } ?? "by query"
        let deleted = dryRun ? candidates.map(\.entry) : try await store.deleteAll(candidates, actor: context.actor, detail: String(described.prefix(300)))
        return try deletionAnswer(dryRun: dryRun, matched: candidates, deleted: deleted)
    }

    @Sendable func listRetention(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let candidates = try await store.retentionCandidates(policy, now: CatalogEntry.nowMicros())
        return try deletionAnswer(dryRun: true, matched: candidates, deleted: candidates.map(\.entry), rules: policy.rules.map(\.description))
    }

    @Sendable func applyRetention(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let candidates = try await store.retentionCandidates(policy, now: CatalogEntry.nowMicros())
        let deleted = try await store.deleteAll(candidates, actor: context.actor, detail: "retention, applied by hand")
        return try deletionAnswer(dryRun: false, matched: candidates, deleted: deleted, rules: policy.rules.map(\.description))
    }
}

/// The store's facet the deleting routes need: what a query or the policy matches, and deleting it.
protocol TraceDeletion: Sendable {
    func retentionCandidates(_ policy: RetentionPolicy, now: Int64) async throws(StoreError) -> [DeletionCandidate]
    func matching(_ query: CatalogQuery, _ candidate: (CatalogEntry) -> DeletionCandidate?) async throws(StoreError) -> [DeletionCandidate]
    func deleteAll(_ candidates: [DeletionCandidate], actor: String, detail: String) async throws(StoreError) -> [CatalogEntry]
}

/// Traces listed in a deletion's answer at most (all are counted).
let maxListedDeletions = 1000

private func deletionAnswer(dryRun: Bool, matched: [DeletionCandidate], deleted: [CatalogEntry], rules: [String]? = nil) throws -> Response {
    let rulesByID = Dictionary(matched.map { ($0.entry.id, $0.rule) }, uniquingKeysWith: { first, _ in first })
    var response = try jsonResponse(DeletionList(
        dryRun: dryRun, rules: rules, matched: matched.count, deleted: dryRun ? 0 : deleted.count,
        traces: deleted.prefix(maxListedDeletions).map { entry in
            DeletionList.Trace(id: entry.id, name: entry.name, uploadedAt: entry.uploadedAtText, tags: entry.tags, rule: rulesByID[entry.id].flatMap { $0 })
        }
    ))
    response.headers[.cacheControl] = "no-store"
    return response
}

struct DeletionList: Encodable {
    struct Trace: Encodable {
        var id: String
        var name: String
        var uploadedAt: String
        var tags: [String]
        /// The retention rule that expires it; null for a delete by query.
        @NullWhenAbsent var rule: String?
    }

    var dryRun: Bool
    /// The retention policy's rules in order (`serve --retain`); null for a delete by query.
    @NullWhenAbsent var rules: [String]?
    /// Traces the query or the policy matched.
    var matched: Int
    /// Traces deleted by this request (0 in a dry run; another replica may have deleted some first).
    var deleted: Int
    /// The traces deleted, or that would be in a dry run: the first `maxListedDeletions`, oldest first.
    var traces: [Trace]
}
