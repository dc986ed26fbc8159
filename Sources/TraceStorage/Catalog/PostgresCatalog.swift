import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle

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
    private let client: PostgresClient
    private let logger: Logger
    private let changeStream: AsyncStream<CatalogChange>
    private let changeContinuation: AsyncStream<CatalogChange>.Continuation

    public init(location: Location, logger: Logger, callTimeout: Duration = .seconds(3)) {
        self.location = location
        self.logger = logger
        self.callTimeout = callTimeout
        client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
        (changeStream, changeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(10_000))
    }

    /// One connection, opened and closed, within `timeout`: the clear, fast failure at start
    /// that the pool would never give. Then runs the migrations that this database lacks, on
    /// that connection, under the advisory lock.
    public static func prepare(_ location: Location, logger: Logger, timeout: Duration = .seconds(5)) async throws {
        let service = "catalog (PostgreSQL)"
        do {
            try await withDeadline(timeout, service: service) {
                let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 0, logger: logger)
                do {
                    try await migrate(connection, logger: logger)
                    try await connection.close()
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        } catch let error as StorageError {
            throw error
        } catch {
            logger.error("catalog: cannot prepare \(location): \(String(reflecting: error))")
            throw StorageError.unavailable(service: service, detail: "cannot connect to \(location): \(Self.describe(error))")
        }
    }

    /// The versions this database has applied, in order (for tests).
    public func appliedVersions() async throws -> [Int] {
        try await call("versions") {
            var versions: [Int] = []
            for try await version in try await self.client.query("SELECT version FROM schema_migrations ORDER BY version", logger: self.logger).decode(Int.self) {
                versions.append(version)
            }
            return versions
        }
    }

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
        do {
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            for migration in CatalogSchema.migrations where !applied.contains(migration.version) {
                try await connection.withTransaction(logger: logger) { connection in
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                }
                logger.info("catalog: applied migration \(migration.version) (\(migration.name))")
            }
            try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
        } catch {
            // Closing the connection releases the lock too; the caller closes it.
            throw error
        }
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

    private func listenForDeletes() async {
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

    public func insert(_ entry: CatalogEntry) async throws -> (entry: CatalogEntry, isNew: Bool) {
        let inserted: Bool = try await call("insert") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                let rows = try await connection.query("""
                    INSERT INTO traces (\(unescaped: CatalogSchema.columns))
                    VALUES (\(entry.id), \(entry.name), \(entry.app), \(entry.device), \(entry.durationNs), \(entry.sizeBytes), \(entry.sha256),
                            \(entry.sourceFormat), \(Int64(entry.updateCount)), \(entry.run.map(Int32.init)), \(entry.uploadedAtMicros), \(Int32(entry.parserVersion)))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: self.logger)
                var isNew = false
                for try await _ in rows { isNew = true }
                if isNew {
                    for tag in Set(entry.tags) {
                        try await connection.query("INSERT INTO trace_tags (trace_id, tag) VALUES (\(entry.id), \(tag))", logger: self.logger)
                    }
                }
                return isNew
            }
        }
        if inserted { return (entry, true) }
        guard let existing = try await self.entry(id: entry.id) else {
            // Deleted between the two statements: the row we were told exists is gone; try once more.
            return try await insert(entry)
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

    public func page(limit: Int, after cursor: CatalogCursor?) async throws -> CatalogPage {
        try await call("list") {
            let rows: PostgresRowSequence
            if let cursor {
                rows = try await self.client.query("""
                    SELECT \(unescaped: CatalogSchema.columns) FROM traces WHERE (uploaded_at_us, id) < (\(cursor.uploadedAtMicros), \(cursor.id))
                    ORDER BY uploaded_at_us DESC, id DESC LIMIT \(Int64(limit + 1))
                    """, logger: self.logger)
            } else {
                rows = try await self.client.query("""
                    SELECT \(unescaped: CatalogSchema.columns) FROM traces ORDER BY uploaded_at_us DESC, id DESC LIMIT \(Int64(limit + 1))
                    """, logger: self.logger)
            }
            let all = try await Self.entries(rows)
            var entries = Array(all.prefix(limit))
            try await self.attachTags(&entries)
            return CatalogPage(entries: entries, next: all.count > limit ? entries.last.map(CatalogCursor.init(after:)) : nil)
        }
    }

    public func delete(id: String) async throws -> CatalogEntry? {
        guard let existing = try await entry(id: id) else { return nil }
        let deleted: Bool = try await call("delete") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                var deleted = false
                for try await _ in try await connection.query("DELETE FROM traces WHERE id = \(id) RETURNING id", logger: self.logger) { deleted = true }
                // Delivered to every listener when this transaction commits.
                if deleted { try await connection.query("SELECT pg_notify(\(Self.deleteChannel), \(id))", logger: self.logger) }
                return deleted
            }
        }
        return deleted ? existing : nil
    }

    public func totals() async throws -> (count: Int, bytes: Int64) {
        try await call("totals") {
            var totals = (count: 0, bytes: Int64(0))
            for try await (count, bytes) in try await self.client.query("SELECT COUNT(*), COALESCE(SUM(size_bytes), 0)::BIGINT FROM traces", logger: self.logger)
                .decode((Int64, Int64).self) {
                totals = (Int(count), bytes)
            }
            return totals
        }
    }

    public func namedBlobs(among keys: [String]) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return try await call("named blobs") {
            var named: Set<String> = []
            for try await key in try await self.client.query("SELECT DISTINCT sha256 FROM traces WHERE sha256 = ANY(\(keys))", logger: self.logger).decode(String.self) {
                named.insert(key)
            }
            return named
        }
    }

    public func claimBlob(_ key: String) async throws {
        let now = CatalogEntry.nowMicros()
        try await call("claim") {
            // Waits on the row lock while a sweep of this key is deleting it; then claims anew.
            _ = try await self.client.query("""
                INSERT INTO blob_claims (sha256, claimed_at_us) VALUES (\(key), \(now))
                ON CONFLICT (sha256) DO UPDATE SET claimed_at_us = EXCLUDED.claimed_at_us
                """, logger: self.logger)
        }
    }

    public func releaseBlob(_ key: String, writtenAt: Int64, cutoff: Int64, remove: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        try await call("release") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                try await connection.query("INSERT INTO blob_claims (sha256, claimed_at_us) VALUES (\(key), \(writtenAt)) ON CONFLICT (sha256) DO NOTHING", logger: self.logger)
                var claimedAt = writtenAt
                // The row lock holds back claims of this key until the blob is gone and this commits.
                for try await value in try await connection.query("SELECT claimed_at_us FROM blob_claims WHERE sha256 = \(key) FOR UPDATE", logger: self.logger).decode(Int64.self) {
                    claimedAt = value
                }
                guard claimedAt < cutoff else { return false }
                // Rows are read to the end: the connection runs the next statement of this transaction after them.
                var named = false
                for try await _ in try await connection.query("SELECT 1 FROM traces WHERE sha256 = \(key) LIMIT 1", logger: self.logger) { named = true }
                guard !named else { return false }
                try await connection.query("DELETE FROM blob_claims WHERE sha256 = \(key)", logger: self.logger)
                try await remove()
                return true
            }
        }
    }

    public func check() async throws {
        try await call("check") {
            for try await _ in try await self.client.query("SELECT 1", logger: self.logger) {}
        }
    }

    /// Runs one call under the deadline; a server that is down or refuses is `.unavailable`.
    private func call<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await measured(service: serviceName, operation: what) {
                try await withDeadline(callTimeout, service: serviceName, body)
            }
        } catch let error as StorageError {
            throw error
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

    static func describe(_ error: any Error) -> String {
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

    private static func entries(_ rows: PostgresRowSequence) async throws -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for try await (id, name, app, device, durationNs, sizeBytes, sha256, sourceFormat, updateCount, run, uploadedAt, parserVersion) in rows
            .decode((String, String, String, String, Int64, Int64, String, String, Int64, Int32?, Int64, Int32).self) {
            entries.append(CatalogEntry(
                id: id, name: name, app: app, device: device, durationNs: durationNs, sizeBytes: sizeBytes, sha256: sha256,
                sourceFormat: sourceFormat, updateCount: Int(updateCount), run: run.map(Int.init), uploadedAtMicros: uploadedAt,
                parserVersion: Int(parserVersion)
            ))
        }
        return entries
    }

    private func attachTags(_ entries: inout [CatalogEntry]) async throws {
        guard !entries.isEmpty else { return }
        var tags: [String: [String]] = [:]
        for try await (id, tag) in try await client.query("SELECT trace_id, tag FROM trace_tags WHERE trace_id = ANY(\(entries.map(\.id))) ORDER BY tag", logger: logger)
            .decode((String, String).self) {
            tags[id, default: []].append(tag)
        }
        for index in entries.indices { entries[index].tags = tags[entries[index].id] ?? [] }
    }
}
