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
