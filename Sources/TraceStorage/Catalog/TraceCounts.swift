import Foundation

/// How many traces, and their bytes, each scope holds: every trace (`everyTrace`) and each tag.
/// Kept in `trace_counts` by the transactions that store or remove traces or change tags, so a
/// list's `total`, the storage quota and the tag quotas read one row instead of counting
/// (PostgreSQL's exact COUNT(*) of 50,000 traces cost 20-25 ms a list page).
///
/// A transaction adds up what it changes here and writes it as its last statement, one upsert
/// in scope order: concurrent writers then lock the counted rows in one order and never wait
/// on each other crosswise.
struct TraceCountChange {
    /// The scope of every trace: no tag's text is empty.
    static let everyTrace = ""

    private(set) var deltas: [String: (traces: Int64, bytes: Int64)] = [:]

    /// A trace of `bytes` with `tags` stored (`sign` 1) or removed (-1).
    mutating func count(tags: some Sequence<String>, bytes: Int64, sign: Int64 = 1, everyTrace: Bool = true) {
        var scopes = Set(tags)
        if everyTrace { scopes.insert(Self.everyTrace) }
        for scope in scopes {
            let old = deltas[scope] ?? (0, 0)
            deltas[scope] = (old.traces + sign, old.bytes + sign * bytes)
        }
    }

    /// The scopes whose counts change, in byte order (the order `trace_counts` rows are locked in).
    var rows: [(scope: String, traces: Int64, bytes: Int64)] {
        deltas.filter { $0.value != (0, 0) }.map { ($0.key, $0.value.traces, $0.value.bytes) }.sorted { Array($0.scope.utf8).lexicographicallyPrecedes($1.scope.utf8) }
    }
}

extension CatalogSQL {
    /// The scope of `trace_counts` that holds `query`'s count: every trace, or its one tag;
    /// nil when other filters need a count of their own.
    static func countedScope(_ query: CatalogQuery) -> String? {
        guard query.name == nil, query.words.isEmpty, query.uploadedFrom == nil, query.uploadedBefore == nil, query.tags.count <= 1 else { return nil }
        return query.tags.first?.text ?? TraceCountChange.everyTrace
    }
}

/// A scope whose row of `trace_counts` said other than its rows (`TraceIndex.recountTraces`):
/// a replica older than the counts (migration 10) stored, retagged or deleted traces without
/// counting them, during a rolling upgrade.
public struct TraceCountRepair: Sendable, Equatable, CustomStringConvertible {
    /// A tag, or `""`: every trace.
    public var scope: String
    /// What the row said, and what the rows hold (the row's value now).
    public var recorded: TagUsage
    public var actual: TagUsage

    public var description: String {
        let name = scope == TraceCountChange.everyTrace ? "all traces" : "tag \(scope)"
        return "\(name): \(recorded.traces) traces (\(recorded.bytes) bytes) recorded, \(actual.traces) (\(actual.bytes) bytes) in the rows"
    }
}

extension TraceCountChange {
    /// Every trace's count and bytes from the rows (`scope`, `traces`, `bytes`), as migration 10
    /// made them first (PostgreSQL's SUM of a BIGINT is a NUMERIC: cast back).
    static let everyTraceFromRows = "SELECT CAST('' AS TEXT), COUNT(*), CAST(COALESCE(SUM(size_bytes), 0) AS BIGINT) FROM traces"
    /// Each tag's, from its rows of `trace_tags` (they carry their trace's size); a filter on `tag` and `GROUP BY tag` follow.
    static let tagsFromRows = "SELECT tag, COUNT(*), CAST(SUM(size_bytes) AS BIGINT) FROM trace_tags"

    /// The scopes where `recorded` (the rows of `trace_counts`) and `actual` (the traces' rows)
    /// differ, a scope missing on one side counting as zero; in byte order.
    static func drift(recorded: [String: TagUsage], actual: [String: TagUsage]) -> [TraceCountRepair] {
        Set(recorded.keys).union(actual.keys).compactMap { scope -> TraceCountRepair? in
            let (was, now) = (recorded[scope] ?? TagUsage(), actual[scope] ?? TagUsage())
            return was == now ? nil : TraceCountRepair(scope: scope, recorded: was, actual: now)
        }.sorted { Array($0.scope.utf8).lexicographicallyPrecedes($1.scope.utf8) }
    }
}
