import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import TraceModel

/// The team catalog: PostgreSQL through postgres-nio, shared by every replica.
///
/// postgres-nio's pool retries an unreachable server without end, so: `probe` opens one plain
/// connection at start (fails in milliseconds with a clear message), every call runs under its
/// own deadline, and `run()` (the pool and the delete listener) belongs in the service group.
/// Deletes are announced with `NOTIFY tracesvc_deleted`; the listener holds one dedicated
/// connection and, after every (re)connect, asks the caches to re-check (`.resync`): what was
/// said while it was disconnected is lost.
public final class PostgresCatalog: Catalog, Service {
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`.
    public struct Location: Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var user: String
        public var database: String
        public var sslMode: String
        /// Never printed: `description` redacts it.
        var password: String?

        /// The password comes from the URL, else `passwordFile` (its first line), else `PGPASSWORD`.
        public init(url text: String, passwordFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
            guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                  let host = components.host, !host.isEmpty
            else { throw StorageConfigurationError("--catalog: expected postgres://USER@HOST:PORT/DATABASE, got \(redactURL(text))") }
            self.host = host
            port = components.port ?? 5432
            user = components.user?.removingPercentEncoding ?? "postgres"
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            database = path.isEmpty ? user : (path.removingPercentEncoding ?? path)
            sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw StorageConfigurationError("--catalog: sslmode must be disable, prefer or require, got \(sslMode)")
            }
            if let given = components.password {
                password = given.removingPercentEncoding ?? given
            } else if let passwordFile {
                guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8),
                      let line = text.split(whereSeparator: \.isNewline).first.map(String.init), !line.isEmpty
                else { throw StorageConfigurationError("--catalog-password-file: cannot read a password from the first line of \(passwordFile)") }
                password = line
            } else {
                password = environment["PGPASSWORD"]
            }
        }

        public var description: String {
            "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
        }

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS = switch sslMode {
            case "disable": .disable
            case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
            configuration.options.connectTimeout = .seconds(2)
            return configuration
        }

        var clientConfiguration: PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS = switch sslMode {
            case "disable": .disable
            case "require": .require(.makeClientConfiguration())
            default: .prefer(.makeClientConfiguration())
            }
            var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
            configuration.options.connectTimeout = .seconds(2)
            configuration.options.maximumConnections = 16
            return configuration
        }
    }

    public static let deleteChannel = "tracesvc_deleted"
    /// Any 64-bit number of our own: migrations take this advisory lock, so replicas starting together wait in turn.
    static let migrationLock: Int64 = 0x7472_6163_6573_7663

    public let location: Location
    public var serviceName: String { "catalog (PostgreSQL)" }
    public let callTimeout: Duration
    /// Open while PostgreSQL is known to be down: calls fail at once (`CircuitBreaker`).
    public let breaker: CircuitBreaker
    let client: PostgresClient
    let logger: Logger
    let changeStream: AsyncStream<CatalogChange>
    let changeContinuation: AsyncStream<CatalogChange>.Continuation

    public init(location: Location, logger: Logger, callTimeout: Duration = .seconds(2)) {
        self.location = location
        self.logger = logger
        self.callTimeout = callTimeout
        breaker = CircuitBreaker(service: "catalog (PostgreSQL)", logger: logger)
        client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
        (changeStream, changeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(10_000))
    }

    /// The pool and the delete listener, until the service group shuts down.
    public func run() async throws {
        // Services stop in reverse order: the HTTP server (started after this) finishes its requests first.
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.client.run() }
                group.addTask { await self.listenForDeletes() }
                await group.next()
                group.cancelAll()
            }
        }
        changeContinuation.finish()
    }

    func listenForDeletes() async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await withDeadline(.seconds(3), service: serviceName) {
                    try await PostgresConnection.connect(configuration: try self.location.connectionConfiguration(), id: 1, logger: self.logger)
                }
                if attempt > 0 { logger.info("catalog: delete listener reconnected") }
                attempt = 0
                do {
                    try await connection.listen(on: Self.deleteChannel) { notifications in
                        // Listening now: whatever was deleted before this point is found by the re-check.
                        changeContinuation.yield(.resync)
                        for try await notification in notifications {
                            changeContinuation.yield(.deleted(id: notification.payload))
                        }
                    }
                } catch {
                    if !Task.isCancelled { logger.warning("catalog: delete listener lost its connection: \(String(reflecting: error))") }
                }
                try? await connection.close()
            } catch {
                if attempt == 0 { logger.warning("catalog: delete listener cannot connect: \(Self.describe(error))") }
            }
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(2000, 200 * attempt)))
        }
    }

    public func changes() -> AsyncStream<CatalogChange> { changeStream }

    public func insert(_ entry: CatalogEntry, measurements: TraceMeasurements?, measuredVersion: Int, within quotas: [TagQuota]) async throws -> (entry: CatalogEntry, isNew: Bool) {
        let inserted: Bool = try await call("insert") {
            try await Self.refusalUnwrapped { try await self.client.withTransaction(logger: self.logger) { connection in
                let rows = try await connection.query("""
                    INSERT INTO traces (\(unescaped: CatalogSchema.columns))
                    VALUES (\(entry.id), \(entry.name), \(entry.app), \(entry.device), \(entry.durationNs), \(entry.sizeBytes), \(entry.sha256),
                            \(entry.sourceFormat), \(Int64(entry.updateCount)), \(entry.run.map(Int32.init)), \(entry.uploadedAtMicros), \(Int32(entry.parserVersion)),
                            \(entry.blobKey))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: self.logger)
                var isNew = false
                for try await _ in rows { isNew = true }
                if isNew {
                    try await Self.checkQuotas(quotas, gaining: entry.tags, bytes: entry.sizeBytes, on: connection, logger: self.logger)
                    for tag in Set(entry.tags) {
                        try await connection.query("""
                            INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes) VALUES (\(entry.id), \(tag), \(entry.uploadedAtMicros), \(entry.sizeBytes))
                            """, logger: self.logger)
                    }
                    try await Self.updateSearchText(connection, id: entry.id, logger: self.logger)
                    if let measurements {
                        try await Self.writeMeasurements(connection, measurements, id: entry.id, version: measuredVersion, logger: self.logger)
                    }
                    var counts = TraceCountChange()
                    counts.count(tags: entry.tags, bytes: entry.sizeBytes)
                    try await Self.record(counts, on: connection, logger: self.logger)
                }
                return isNew
            } }
        }
        if inserted { return (entry, true) }
        guard let existing = try await self.entry(id: entry.id) else {
            // Deleted between the two statements: the row we were told exists is gone; try once more.
            return try await insert(entry, measurements: measurements, measuredVersion: measuredVersion, within: quotas)
        }
        return (existing, false)
    }

    public func entry(id: String) async throws -> CatalogEntry? {
        try await call("get") {
            let rows = try await self.client.query("SELECT \(unescaped: CatalogSchema.columns) FROM traces WHERE id = \(id)", logger: self.logger)
            var entries = try await Self.entries(rows)
            try await self.attachTags(&entries)
            return entries.first
        }
    }

    public func setTags(_ tags: [TraceTag], id: String, within quotas: [TagQuota]) async throws -> CatalogEntry? {
        let found: Bool = try await call("set tags") {
            try await Self.refusalUnwrapped { try await self.client.withTransaction(logger: self.logger) { connection in
                var size: Int64?
                // The row lock orders concurrent edits of one trace's tags.
                for try await bytes in try await connection.query("SELECT size_bytes FROM traces WHERE id = \(id) FOR UPDATE", logger: self.logger).decode(Int64.self) {
                    size = bytes
                }
                guard let size else { return false }
                var earlier: Set<String> = []
                for try await tag in try await connection.query("SELECT tag FROM trace_tags WHERE trace_id = \(id)", logger: self.logger).decode(String.self) {
                    earlier.insert(tag)
                }
                let texts = Set(tags).map(\.text)
                try await Self.checkQuotas(quotas, gaining: Set(texts).subtracting(earlier), bytes: size, on: connection, logger: self.logger)
                var counts = TraceCountChange()
                counts.count(tags: earlier, bytes: size, sign: -1, everyTrace: false)
                try await connection.query("DELETE FROM trace_tags WHERE trace_id = \(id)", logger: self.logger)
                counts.count(tags: texts, bytes: size, everyTrace: false)
                try await connection.query("""
                    INSERT INTO trace_tags (trace_id, tag, uploaded_at_us, size_bytes)
                    SELECT id, UNNEST(\(texts)::text[]), uploaded_at_us, size_bytes FROM traces WHERE id = \(id)
                    """, logger: self.logger)
                try await Self.updateSearchText(connection, id: id, logger: self.logger)
                try await Self.record(counts, on: connection, logger: self.logger)
                return true
            } }
        }
        return found ? try await entry(id: id) : nil
    }

    static func updateSearchText(_ connection: PostgresConnection, id: String, logger: Logger) async throws {
        var binds = PostgresBindings(capacity: 1)
        binds.append(id)
        var source: String?
        for try await text in try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT \(CatalogSchema.searchTextSource(.postgres)) FROM traces WHERE id = $1", binds: binds), logger: logger
        ).decode(String.self) { source = text }
        guard let source else { return }
        try await connection.query("UPDATE traces SET search_text = \(SearchFolding.fold(source)) WHERE id = \(id)", logger: logger)
    }

    public func delete(id: String) async throws -> CatalogEntry? {
        guard let existing = try await entry(id: id) else { return nil }
        let deleted: Bool = try await call("delete") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                // Delivered to every listener when this transaction commits.
                let deleted = try await Self.deleteRows([id], on: connection, logger: self.logger)
                if !deleted.isEmpty { try await connection.query("SELECT pg_notify(\(Self.deleteChannel), \(id))", logger: self.logger) }
                return !deleted.isEmpty
            }
        }
        return deleted ? existing : nil
    }

    /// Deletes the rows of `ids` that exist (their tags, notes and measurements go with them) and
    /// takes them off `trace_counts`, in the caller's transaction; returns the removed rows.
    static func deleteRows(_ ids: [String], on connection: PostgresConnection, logger: Logger) async throws -> [CatalogEntry] {
        // Locked first, as a tag edit locks its trace: no tag is added between counting and deleting.
        try await connection.query("SELECT id FROM traces WHERE id = ANY(\(ids)) ORDER BY id FOR UPDATE", logger: logger)
        var counts = TraceCountChange()
        for try await (tag, size) in try await connection.query(
            "DELETE FROM trace_tags WHERE trace_id = ANY(\(ids)) RETURNING tag, size_bytes", logger: logger
        ).decode((String, Int64).self) {
            counts.count(tags: [tag], bytes: size, sign: -1, everyTrace: false)
        }
        let removed = try await entries(try await connection.query(
            "DELETE FROM traces WHERE id = ANY(\(ids)) RETURNING \(unescaped: CatalogSchema.columns)", logger: logger))
        for row in removed { counts.count(tags: [], bytes: row.sizeBytes, sign: -1) }
        try await record(counts, on: connection, logger: logger)
        return removed
    }

    /// Adds what a write changed to `trace_counts`, as the last statement of its transaction: one
    /// upsert in scope order (every writer locks the counted rows in that order), and nothing
    /// else while it holds them (a scope left empty keeps its row of zeros: readers skip it).
    static func record(_ change: TraceCountChange, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = change.rows
        guard !rows.isEmpty else { return }
        try await connection.query("""
            INSERT INTO trace_counts (scope, traces, bytes)
            SELECT * FROM UNNEST(\(rows.map(\.scope))::text[], \(rows.map(\.traces))::bigint[], \(rows.map(\.bytes))::bigint[]) AS c (scope, traces, bytes)
            ORDER BY scope COLLATE "C"
            ON CONFLICT (scope) DO UPDATE SET traces = trace_counts.traces + EXCLUDED.traces, bytes = trace_counts.bytes + EXCLUDED.bytes
            """, logger: logger)
    }

    public func check() async throws {
        try await breaker.run(probe: { [self] in try await self.selectOne() }) { try await selectOne() }
    }

    /// PostgreSQL answers a query (around the breaker: its probe).
    func selectOne() async throws {
        try await callDirectly("check") {
            for try await _ in try await self.client.query("SELECT 1", logger: self.logger) {}
        }
    }

    /// Runs one call under the deadline unless PostgreSQL is known to be down; a server that is
    /// down or refuses is `.unavailable`.
    func call<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await breaker.run(probe: { [self] in try await self.selectOne() }) { try await callDirectly(what, body) }
    }

    func callDirectly<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await measured(service: serviceName, operation: what) {
                try await withDeadline(callTimeout, service: serviceName, body)
            }
        } catch let error as StorageError {
            throw error
        } catch let refusal as TagQuotaExceeded {
            throw refusal
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("catalog: \(what): \(String(reflecting: error))")
            if let error = error as? PSQLError, error.code == .server {
                throw StorageError.failed(service: serviceName, detail: "\(what): \(error.serverInfo?[.message] ?? "server error")")
            }
            throw StorageError.unavailable(service: serviceName, detail: "\(what): \(Self.describe(error))")
        }
    }

    static func sql() -> CatalogSQL { CatalogSQL(.postgres) }

    static func bindings(_ binds: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case let .text(value): bindings.append(value)
            case let .integer(value): bindings.append(value)
            }
        }
        return bindings
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PostgresTransactionError, let cause = error.closureError ?? error.beginError ?? error.commitError {
            return describe(cause)
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            switch error.code {
            case .connectionError: return "cannot connect"
            case .serverClosedConnection, .clientClosedConnection: return "the connection closed"
            default: return "\(error.code)"
            }
        }
        if let error = error as? StorageError { return error.description }
        return "\(error)"
    }

    static func entries(_ rows: PostgresRowSequence) async throws -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for try await (id, name, app, device, durationNs, sizeBytes, sha256, sourceFormat, updateCount, run, uploadedAt, parserVersion, blobKey) in rows
            .decode((String, String, String, String, Int64, Int64, String, String, Int64, Int32?, Int64, Int32, String?).self) {
            entries.append(CatalogEntry(
                id: id, name: name, app: app, device: device, durationNs: durationNs, sizeBytes: sizeBytes, sha256: sha256,
                sourceFormat: sourceFormat, updateCount: Int(updateCount), run: run.map(Int.init), uploadedAtMicros: uploadedAt,
                parserVersion: Int(parserVersion), blobKey: blobKey
            ))
        }
        return entries
    }

    /// Each entry's tags (a list page reads them in its own statement).
    func attachTags(_ entries: inout [CatalogEntry]) async throws {
        guard !entries.isEmpty else { return }
        var tags: [String: [String]] = [:]
        for try await (id, tag) in try await client.query("SELECT trace_id, tag FROM trace_tags WHERE trace_id = ANY(\(entries.map(\.id))) ORDER BY tag", logger: logger)
            .decode((String, String).self) {
            tags[id, default: []].append(tag)
        }
        for index in entries.indices { entries[index].tags = tags[entries[index].id] ?? [] }
    }
}
