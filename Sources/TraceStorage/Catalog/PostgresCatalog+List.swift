import Foundation
import Logging
import PostgresNIO

// A page of the list, in PostgreSQL.
extension PostgresCatalog {
    /// One statement a page: its rows, each row's tags and the count kept for its scope travel
    /// together (three round trips before: each one waits its turn for the CPU on a busy machine,
    /// while PostgreSQL executes any of them in under a millisecond at 50,000 traces). The tags'
    /// subquery runs for the page's rows only (PostgreSQL evaluates it after the sort and limit),
    /// and the count's once (an uncorrelated subquery).
    public func page(_ query: CatalogQuery, limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage {
        try await call("list") {
            var query = query
            if query.tags.count > 1 {
                query = query.rarestTagFirst(try await self.client.withConnection { connection in
                    try await Self.usage(of: Array(Set(query.tags.map(\.text))), on: connection, logger: self.logger)
                })
            }
            var sql = Self.sql()
            let from = sql.fromClause(query), filter = sql.whereClause(query, after: cursor)
            let tags: String
            switch query.carriedTagPrefixes {
            case nil: tags = "ARRAY(SELECT g.tag FROM trace_tags g WHERE g.trace_id = t.id ORDER BY g.tag)"
            case let prefixes? where prefixes.isEmpty: tags = "ARRAY[]::text[]"
            // `^@` (starts with), not a range of `tag`: the database's collation may not order by bytes.
            case let prefixes?: tags = "ARRAY(SELECT g.tag FROM trace_tags g WHERE g.trace_id = t.id AND ("
                + prefixes.map { "g.tag ^@ \(sql.bind(.text($0)))" }.joined(separator: " OR ") + ") ORDER BY g.tag)"
            }
            let scope = CatalogSQL.countedScope(query)
            let counted = scope.map { "(SELECT c.traces FROM trace_counts c WHERE c.scope = \(sql.bind(.text($0))))" } ?? "NULL::bigint"
            let text = "SELECT \(CatalogSchema.listedColumnsOfT), \(tags), \(counted) \(from) \(filter) \(sql.orderClause(query)) LIMIT \(limit + 1)"
            var all: [CatalogEntry] = []
            var total: Int64?
            for try await row in try await self.client.query(PostgresQuery(unsafeSQL: text, binds: Self.bindings(sql.binds)), logger: self.logger) {
                let (entry, count) = try Self.listed(row)
                all.append(entry)
                total = count
            }
            // A first page that holds every match is its own count (a sparse or empty match: one scan, not two).
            if cursor == nil && all.count <= limit {
                total = Int64(all.count)
            } else if total == nil {
                // Not kept for this query (or no row came to carry it): counted.
                var count = Self.sql()
                let countQuery = scope.map { PostgresQuery(unsafeSQL: "SELECT traces FROM trace_counts WHERE scope = $1", binds: Self.bindings([.text($0)])) }
                    ?? PostgresQuery(unsafeSQL: count.countQuery(query), binds: Self.bindings(count.binds))
                for try await value in try await self.client.query(countQuery, logger: self.logger).decode(Int64.self) { total = value }
            }
            let entries = Array(all.prefix(limit))
            return CatalogPage(entries: entries, next: all.count > limit ? entries.last.map { CatalogCursor(after: $0, sort: query.sort) } : nil, total: Int(total ?? 0))
        }
    }

    /// A row of a list page: the entry with its tags, and the count of the page's scope (nil: not kept).
    private static func listed(_ row: PostgresRow) throws -> (CatalogEntry, Int64?) {
        let (id, name, app, device, durationNs, sizeBytes, sha256, sourceFormat, updateCount, run, uploadedAt, parserVersion, blobKey, tags, total) = try row
            .decode((String, String, String, String, Int64, Int64, String, String, Int64, Int32?, Int64, Int32, String?, [String], Int64?).self)
        return (CatalogEntry(
            id: id, name: name, app: app, device: device, durationNs: durationNs, sizeBytes: sizeBytes, sha256: sha256,
            sourceFormat: sourceFormat, updateCount: Int(updateCount), run: run.map(Int.init), uploadedAtMicros: uploadedAt,
            tags: tags, parserVersion: Int(parserVersion), blobKey: blobKey
        ), total)
    }
}
