import Foundation
import Logging
import PostgresNIO
import TraceModel

/// Opening the first connection and running the migrations this database lacks.
extension PostgresCatalog {
    /// One connection, opened within `timeout`: the clear, fast failure at start that the pool
    /// would never give. Then runs the migrations that this database lacks, on that connection,
    /// under the advisory lock, within `migrationTimeout` (they scale with the catalog: filling a
    /// column or building an index of 100,000 traces takes seconds; and replicas starting
    /// together wait for each other's).
    public static func prepare(_ location: Location, logger: Logger, timeout: Duration = .seconds(5), migrationTimeout: Duration = .seconds(600)) async throws {
        try await prepare(location, logger: logger, timeout: timeout, workTimeout: migrationTimeout) { connection in
            try await migrate(connection, logger: logger)
        }
    }

    /// Runs `work` on one connection of its own, opened within `timeout` (tests: older catalogs, raw SQL).
    static func prepare(_ location: Location, logger: Logger, timeout: Duration = .seconds(5), workTimeout: Duration,
                        _ work: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        let service = "catalog (PostgreSQL)"
        do {
            let connecting = Task { try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 0, logger: logger) }
            let connection: PostgresConnection
            do {
                connection = try await withDeadline(timeout, service: service) { try await connecting.value }
            } catch {
                // A connection that opens after the deadline is closed, never dropped open.
                connecting.cancel()
                Task { try? await connecting.value.close() }
                throw error
            }
            try await withDeadline(workTimeout, service: service) {
                do {
                    try await work(connection)
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

    /// Tests: `statements` in order on one connection of their own.
    static func execute(_ statements: [String], at location: Location, logger: Logger) async throws {
        try await prepare(location, logger: logger, timeout: .seconds(30), workTimeout: .seconds(60)) { connection in
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }
    }

    /// Tests: the migrations up to `lastVersion` only (a catalog made by an older tracesvc).
    static func prepare(_ location: Location, logger: Logger, through lastVersion: Int) async throws {
        try await prepare(location, logger: logger, timeout: .seconds(30), workTimeout: .seconds(60)) { connection in
            try await migrate(connection, logger: logger, through: lastVersion)
        }
    }

    /// Names of the indexes of `traces` (tests).
    func indexesOfTraces() async throws -> Set<String> {
        try await call("indexes") {
            var names: Set<String> = []
            for try await name in try await self.client.query("SELECT indexname FROM pg_indexes WHERE tablename = 'traces'", logger: self.logger).decode(String.self) {
                names.insert(name)
            }
            return names
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

    /// The migrations this database lacks, up to `lastVersion` (tests build older catalogs).
    static func migrate(_ connection: PostgresConnection, logger: Logger, through lastVersion: Int? = nil) async throws {
        try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
        do {
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) { applied.insert(version) }
            try CatalogSchema.refuseNewer(applied: applied, service: "catalog (PostgreSQL)")
            for migration in CatalogSchema.migrations where !applied.contains(migration.version) && migration.version <= (lastVersion ?? .max) {
                do {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in migration.statements(for: .postgres) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        if migration.refoldsSearchText {
                            var ids: [String] = []
                            for try await id in try await connection.query("SELECT id FROM traces", logger: logger).decode(String.self) { ids.append(id) }
                            for id in ids { try await updateSearchText(connection, id: id, logger: logger) }
                        }
                        try await connection.query("INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                    }
                } catch where migration.isOptional {
                    logger.warning("""
                        catalog: migration \(migration.version) (\(migration.name)) not applied, the catalog works without it: \(describe(error)). \
                        Free-text search (q=) and the name filter scan every trace. Fix: the database owner runs CREATE EXTENSION pg_trgm \
                        (or install postgresql-contrib); tried again at the next start.
                        """)
                    continue
                }
                logger.info("catalog: applied migration \(migration.version) (\(migration.name))")
            }
            try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
        } catch {
            // Closing the connection releases the lock too; the caller closes it.
            throw error
        }
    }
}
