import Crypto
import Foundation
import TraceCatalog

/// What a personal or CI token may do (docs/api.md, "Tokens"). `admin` allows everything.
public enum AccessScope: String, Sendable, CaseIterable, Codable, Comparable {
    /// Read the audit trail and what retention would delete (reading traces by link needs no token).
    case read
    /// Upload traces and record check verdicts.
    case upload
    /// Edit tags and add or delete notes.
    case annotate
    /// Delete traces, one or by query.
    case delete
    case admin

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A personal or CI token as the catalog keeps it: its name, scopes and the SHA-256 of its
/// secret, never the secret itself.
public struct AccessToken: Sendable, Equatable {
    public var id: String
    /// Lowercase letters, digits, `.`, `_` and `-`; at most one unrevoked token has it.
    public var name: String
    public var scopes: [AccessScope]
    /// Lowercase hex SHA-256 of the secret.
    public var secretSHA256: String
    public var createdAtMicros: Int64
    public var lastUsedAtMicros: Int64?
    public var revokedAtMicros: Int64?

    public init(id: String, name: String, scopes: [AccessScope], secretSHA256: String, createdAtMicros: Int64,
                lastUsedAtMicros: Int64? = nil, revokedAtMicros: Int64? = nil) {
        self.id = id
        self.name = name
        self.scopes = Array(Set(scopes)).sorted()
        self.secretSHA256 = secretSHA256
        self.createdAtMicros = createdAtMicros
        self.lastUsedAtMicros = lastUsedAtMicros
        self.revokedAtMicros = revokedAtMicros
    }

    /// A new token: its record and the secret, which is shown once and stored nowhere.
    public static func make(name: String, scopes: [AccessScope], now: Int64 = CatalogEntry.nowMicros()) -> (token: AccessToken, secret: String) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let secret = "tsv_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return (AccessToken(id: RandomName.make(), name: name, scopes: scopes, secretSHA256: sha256(ofSecret: secret), createdAtMicros: now), secret)
    }

    public static func sha256(ofSecret secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Nil when `name` is a valid token name, else what is wrong with it.
    public static func problem(withName name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (1...64).contains(name.count) else { return "a token name has 1 to 64 characters" }
        guard name.allSatisfy(allowed.contains) else { return "'\(name)': a token name has lowercase letters, digits, '.', '_' and '-' only" }
        return nil
    }
}

/// One change to the stored traces, and who made it (`GET /api/audit`).
public struct AuditEvent: Sendable, Hashable, Codable {
    public enum Action: String, Sendable, Codable, CaseIterable {
        case upload, delete, tags, note, noteDeleted = "note-deleted"
    }

    /// Random, 32 lowercase hex digits.
    public var id: String
    public var atMicros: Int64
    /// The token's name, "shared token", "open (no token required)" or "retention".
    public var actor: String
    public var action: Action
    public var traceID: String?
    public var traceName: String?
    /// What changed, in a few words ("new", "tags: branch:main, ci", "by query tag=branch:x").
    public var detail: String

    public init(id: String = RandomName.make(), atMicros: Int64 = CatalogEntry.nowMicros(), actor: String, action: Action,
                traceID: String?, traceName: String?, detail: String) {
        self.id = id
        self.atMicros = atMicros
        self.actor = actor
        self.action = action
        self.traceID = traceID
        self.traceName = traceName
        self.detail = String(detail.prefix(1000))
    }
}

/// Where a page of the audit trail ends: its last event's time and id (`<micros>.<id>`).
public struct AuditCursor: Sendable, Equatable {
    public var atMicros: Int64
    public var id: String

    public init(after event: AuditEvent) {
        atMicros = event.atMicros
        id = event.id
    }

    public var token: String { "\(atMicros).\(id)" }

    public init?(token: String) {
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]), parts[1].count == 32,
              parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        atMicros = micros
        id = String(parts[1])
    }
}

/// Which audit events a page asks for.
public struct AuditQuery: Sendable, Equatable {
    public var traceID: String?
    public var action: AuditEvent.Action?
    public var actor: String?

    public init(traceID: String? = nil, action: AuditEvent.Action? = nil, actor: String? = nil) {
        self.traceID = traceID
        self.action = action
        self.actor = actor
    }
}

/// People and their changes, kept in the catalog beside the traces: tokens (hashed) and the
/// audit trail.
public protocol AccessCatalog: Sendable {
    /// Stores a new token; false when an unrevoked token already has its name.
    func addToken(_ token: AccessToken) async throws -> Bool

    /// The unrevoked token whose secret hashes to `secretSHA256`.
    func token(secretSHA256: String) async throws -> AccessToken?

    /// Every token, revoked ones too, by name then newest first.
    func tokens() async throws -> [AccessToken]

    /// Revokes the unrevoked token of that name; false when there is none.
    func revokeToken(name: String, at micros: Int64) async throws -> Bool

    func markTokenUsed(id: String, at micros: Int64) async throws

    func recordAudit(_ events: [AuditEvent]) async throws

    /// Events newest first, at most `limit` after `cursor`.
    func auditEvents(_ query: AuditQuery, limit: Int, after cursor: AuditCursor?) async throws -> [AuditEvent]
}

extension CatalogSchema {
    /// Tokens are found by their secret's hash; a name is unique among unrevoked tokens. The
    /// audit trail outlives the traces it names (no foreign key).
    static let accessMigration = Migration(version: 7, name: "tokens and audit", statements: [
        """
        CREATE TABLE access_tokens (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            scopes TEXT NOT NULL,
            secret_sha256 TEXT NOT NULL UNIQUE,
            created_at_us BIGINT NOT NULL,
            last_used_at_us BIGINT,
            revoked_at_us BIGINT
        )
        """,
        "CREATE UNIQUE INDEX access_tokens_unrevoked_name ON access_tokens (name) WHERE revoked_at_us IS NULL",
        """
        CREATE TABLE audit_events (
            id TEXT PRIMARY KEY,
            at_us BIGINT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            trace_id TEXT,
            trace_name TEXT,
            detail TEXT NOT NULL
        )
        """,
        "CREATE INDEX audit_events_newest_first ON audit_events (at_us DESC, id DESC)",
        "CREATE INDEX audit_events_by_trace ON audit_events (trace_id, at_us DESC, id DESC)",
    ])

    static let tokenColumns = "id, name, scopes, secret_sha256, created_at_us, last_used_at_us, revoked_at_us"
    static let auditColumns = "id, at_us, actor, action, trace_id, trace_name, detail"

    /// `WHERE …` of an audit page, with `?` placeholders (SQLite) or `$n` (PostgreSQL), and its values in order.
    static func auditFilter(_ query: AuditQuery, after cursor: AuditCursor?, collate: String = "", placeholder: (Int) -> String) -> (sql: String, values: [SQLValue]) {
        var clauses: [String] = []
        var values: [SQLValue] = []
        func bind(_ value: SQLValue) -> String {
            values.append(value)
            return placeholder(values.count)
        }
        if let traceID = query.traceID { clauses.append("trace_id = \(bind(.text(traceID)))") }
        if let action = query.action { clauses.append("action = \(bind(.text(action.rawValue)))") }
        if let actor = query.actor { clauses.append("actor = \(bind(.text(actor)))") }
        if let cursor {
            let at = bind(.integer(cursor.atMicros))
            let at2 = bind(.integer(cursor.atMicros))
            clauses.append("(at_us < \(at) OR (at_us = \(at2) AND id\(collate) < \(bind(.text(cursor.id)))))")
        }
        return (clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND "), values)
    }
}

extension AccessScope {
    static func list(_ text: String) -> [AccessScope] {
        text.split(separator: ",").compactMap { AccessScope(rawValue: String($0)) }
    }
}
