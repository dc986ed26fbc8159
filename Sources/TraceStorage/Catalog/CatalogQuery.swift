import Foundation

/// Which traces a list (or a history) asks for, and in which order. Every filter must hold.
public struct CatalogQuery: Sendable, Equatable {
    /// Tags the trace must all have, as stored (`branch:main`, `nightly`).
    public var tags: [TraceTag] = []
    /// Part of the name (any case).
    public var name: String?
    /// Words that must each be part of the name, app, device or a tag (any case: `SearchFolding`);
    /// without line breaks (`q=` is split at white space).
    public var words: [String] = []
    /// Uploaded at or after, and before (µs since 1970).
    public var uploadedFrom: Int64?
    public var uploadedBefore: Int64?
    public var sort: CatalogSort = .uploaded
    public var descending = true
    /// Which of its tags each row of the page carries: nil every one; else only those with these
    /// keys (a history groups 2,000 traces by `build` and `commit` and reads no other tag of theirs).
    public var tagKeys: Set<String>?

    public init(tags: [TraceTag] = [], name: String? = nil, words: [String] = [], uploadedFrom: Int64? = nil, uploadedBefore: Int64? = nil,
                sort: CatalogSort = .uploaded, descending: Bool = true) {
        self.tags = tags
        self.name = name
        self.words = words
        self.uploadedFrom = uploadedFrom
        self.uploadedBefore = uploadedBefore
        self.sort = sort
        self.descending = descending
    }

    /// `tagKeys` as the prefixes of the tags the page carries ("build:"), in order: nil for every tag.
    var carriedTagPrefixes: [String]? { tagKeys.map { $0.sorted().map { $0 + ":" } } }

    /// No filter: every trace (the samples may be listed with it).
    public var isUnfiltered: Bool { tags.isEmpty && name == nil && words.isEmpty && uploadedFrom == nil && uploadedBefore == nil }

    /// The same query with its tags rarest first, by `usage` (`trace_counts`; a tag missing from
    /// it has no trace), ties in the asked order. The first tag is the one whose rows a page and
    /// a count read, probing each row for the others (`CatalogSQL`): one scenario's 2,500 traces
    /// of 50,000, not `branch:main`'s 45,000, whichever the request named first.
    func rarestTagFirst(_ usage: [String: TagUsage]) -> CatalogQuery {
        var query = self
        query.tags = tags.enumerated().sorted { (usage[$0.element.text]?.traces ?? 0, $0.offset) < (usage[$1.element.text]?.traces ?? 0, $1.offset) }
            .map(\.element)
        return query
    }
}

/// How `q=` ignores case, the same in both engines and for samples: full Unicode case folding,
/// done here (SQLite's LIKE folds only ASCII, PostgreSQL's lower() only what the database's
/// locale knows): "ÉCLAIR" finds "éclair", "STRASSE" and "straße" find each other, "ΟΔΥΣΣΕΥΣ"
/// finds "οδυσσευς". The catalogs keep the search text folded; a query's words are folded too.
public enum SearchFolding {
    /// Lower, upper, then lower case: full mappings (ß and ẞ to ss, final sigma to sigma), so
    /// that a word in any case ends the same.
    public static func fold(_ text: String) -> String {
        text.lowercased().uppercased().lowercased()
    }
}

/// The list's orders (`?sort=`); ties are broken by id, so a cursor is a position.
public enum CatalogSort: String, Sendable, CaseIterable {
    case uploaded, name, duration, updates, size

    var column: String {
        switch self {
        case .uploaded: "uploaded_at_us"
        case .name: "name"
        case .duration: "duration_ns"
        case .updates: "update_count"
        case .size: "size_bytes"
        }
    }

    func key(of entry: CatalogEntry) -> CatalogCursor.Key {
        switch self {
        case .uploaded: .number(entry.uploadedAtMicros)
        case .name: .text(entry.name)
        case .duration: .number(entry.durationNs)
        case .updates: .number(Int64(entry.updateCount))
        case .size: .number(entry.sizeBytes)
        }
    }
}

/// Where a page of the list ends: the last row's sort key and id.
public struct CatalogCursor: Sendable, Equatable, Hashable {
    public enum Key: Sendable, Equatable, Hashable {
        case number(Int64)
        case text(String)
    }

    public var key: Key
    public var id: String

    public init(key: Key, id: String) {
        self.key = key
        self.id = id
    }

    public init(uploadedAtMicros: Int64, id: String) {
        self.init(key: .number(uploadedAtMicros), id: id)
    }

    public init(after entry: CatalogEntry, sort: CatalogSort = .uploaded) {
        self.init(key: sort.key(of: entry), id: entry.id)
    }

    /// The opaque text clients pass back (`?cursor=`): `<number>.<id>`, or `~<base64url text>.<id>`.
    public var token: String {
        switch key {
        case let .number(value): "\(value).\(id)"
        case let .text(value):
            "~" + Data(value.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "") + ".\(id)"
        }
    }

    public init?(token: String) {
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, !parts[1].isEmpty,
              parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        if parts[0].hasPrefix("~") {
            var base64 = parts[0].dropFirst().replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
            self.init(key: .text(text), id: String(parts[1]))
        } else {
            guard let value = Int64(parts[0]) else { return nil }
            self.init(key: .number(value), id: String(parts[1]))
        }
    }

    /// Whether this cursor was made for a list in `sort` order.
    public func fits(_ sort: CatalogSort) -> Bool {
        switch key {
        case .number: sort != .name
        case .text: sort == .name
        }
    }
}

public struct CatalogPage: Sendable, Equatable {
    public var entries: [CatalogEntry]
    /// Where the next page starts; nil on the last page.
    public var next: CatalogCursor?
    /// Traces the query matches, all pages together.
    public var total: Int

    public init(entries: [CatalogEntry], next: CatalogCursor?, total: Int) {
        self.entries = entries
        self.next = next
        self.total = total
    }
}

/// A value bound to a statement (both engines bind these two kinds).
enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
}

/// The SQL of a list query, written once for both engines: `placeholder(n)` is the engine's n-th
/// parameter (`?` or `$n`), `like` its case-insensitive LIKE (`LIKE` or `ILIKE`), `collate` the
/// byte-order collation of the name (both engines then order names alike).
struct CatalogSQL {
    var placeholder: (Int) -> String
    var like: String
    var collate: String
    private(set) var binds: [SQLValue] = []

    init(_ engine: CatalogEngine) {
        switch engine {
        case .postgres:
            placeholder = { "$\($0)" }
            like = "ILIKE"
            collate = " COLLATE \"C\""
        case .sqlite:
            placeholder = { _ in "?" }
            like = "LIKE"
            collate = ""
        }
    }

    mutating func bind(_ value: SQLValue) -> String {
        binds.append(value)
        return placeholder(binds.count)
    }

    /// Whether `query` is read from its first tag's rows of `trace_tags_newest_first` (tag,
    /// upload time, id): in upload order a page is that index's next rows after the cursor and
    /// the count its range, however dense or sparse the tag (a scan of the list's order probing
    /// each row's tags reads every row for a rare tag, and counted 20,000 of 50,000 in 150 ms).
    static func readsByTag(_ query: CatalogQuery) -> Bool { !query.tags.isEmpty && query.sort == .uploaded }

    /// `FROM …` of a list page (`counting`: of its count, which needs the traces' own rows only
    /// for a name or words filter when it is read by tag).
    func fromClause(_ query: CatalogQuery, counting: Bool = false) -> String {
        guard Self.readsByTag(query) else { return "FROM traces t" }
        // CROSS JOIN: SQLite keeps the tag's index as the outer loop (PostgreSQL plans freely).
        return counting && query.name == nil && query.words.isEmpty ? "FROM trace_tags g0" : "FROM trace_tags g0 CROSS JOIN traces t"
    }

    /// `WHERE …` of `query` (and of a cursor after which the page starts), or "" without filters.
    mutating func whereClause(_ query: CatalogQuery, after cursor: CatalogCursor? = nil, counting: Bool = false) -> String {
        var conditions: [String] = []
        let byTag = Self.readsByTag(query)
        let traceID = byTag ? "g0.trace_id" : "t.id"
        let uploaded = byTag ? "g0.uploaded_at_us" : "t.uploaded_at_us"
        if byTag, fromClause(query, counting: counting).contains("traces t") { conditions.append("t.id = g0.trace_id") }
        for (index, tag) in query.tags.enumerated() {
            if byTag && index == 0 {
                conditions.append("g0.tag = \(bind(.text(tag.text)))")
            } else {
                conditions.append("EXISTS (SELECT 1 FROM trace_tags g WHERE g.trace_id = \(traceID) AND g.tag = \(bind(.text(tag.text))))")
            }
        }
        if let name = query.name {
            conditions.append("t.name \(like) \(bind(.text(Self.pattern(name)))) ESCAPE '\\'")
        }
        // One LIKE per word on the folded search text (CatalogSchema.searchTextSource); no ORDER BY
        // index is needed for a dense word: the page's scan in cursor order stops at the limit.
        for word in query.words {
            conditions.append("t.search_text LIKE \(bind(.text(Self.pattern(SearchFolding.fold(word))))) ESCAPE '\\'")
        }
        if let from = query.uploadedFrom { conditions.append("\(uploaded) >= \(bind(.integer(from)))") }
        if let before = query.uploadedBefore { conditions.append("\(uploaded) < \(bind(.integer(before)))") }
        if let cursor {
            let value: SQLValue = switch cursor.key {
            case let .number(value): .integer(value)
            case let .text(value): .text(value)
            }
            let collation = query.sort == .name ? collate : ""
            let column = byTag ? uploaded : "t.\(query.sort.column)\(collation)"
            let comparison = query.descending ? "<" : ">"
            // A row value, not `a < x OR (a = x AND id < y)`: both engines then seek the order's
            // index to the cursor (the OR form scanned from the first row: 42 ms for a page at
            // the end of 50,000 in SQLite).
            conditions.append("(\(column), \(traceID)) \(comparison) (\(bind(value))\(collation), \(bind(.text(cursor.id))))")
        }
        return conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }

    /// The count of a query's matches. Filtered by tags only (a history's, a tag's list), it is
    /// counted from the tag index alone (a trace's tag rows go with it), not by a test per trace:
    /// the first tag's rows (the rarest: `CatalogQuery.rarestTagFirst`), each probed for the
    /// others by its key. An INTERSECT read every tag's rows: a scenario's history on `branch:main`
    /// sorted 45,000 of 50,000 traces' ids (38 ms of CPU in SQLite) to count 2,250.
    mutating func countQuery(_ query: CatalogQuery) -> String {
        guard !query.tags.isEmpty, query.name == nil, query.words.isEmpty, query.uploadedFrom == nil, query.uploadedBefore == nil else {
            return "SELECT COUNT(*) \(fromClause(query, counting: true)) \(whereClause(query, counting: true))"
        }
        var conditions = ["g0.tag = \(bind(.text(query.tags[0].text)))"]
        for tag in query.tags.dropFirst() {
            conditions.append("EXISTS (SELECT 1 FROM trace_tags g WHERE g.trace_id = g0.trace_id AND g.tag = \(bind(.text(tag.text))))")
        }
        return "SELECT COUNT(*) FROM trace_tags g0 WHERE " + conditions.joined(separator: " AND ")
    }

    func orderClause(_ query: CatalogQuery) -> String {
        let direction = query.descending ? "DESC" : "ASC"
        if Self.readsByTag(query) { return "ORDER BY g0.uploaded_at_us \(direction), g0.trace_id \(direction)" }
        return "ORDER BY t.\(query.sort.column)\(query.sort == .name ? collate : "") \(direction), t.id \(direction)"
    }

    /// `%text%` with LIKE's own characters escaped.
    static func pattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%\(escaped)%"
    }
}
