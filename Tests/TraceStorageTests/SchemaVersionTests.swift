import Foundation
import Testing
@testable import TraceStorage

/// A tracesvc older than its catalog's schema refuses to open it, naming both versions.
struct SchemaVersionTests {
    @Test func anEmbeddedCatalogMigratedByANewerReleaseIsRefusedNamingBothVersions() async throws {
        let file = try SQLiteCatalogTests.temporaryFile()
        let catalog = try SQLiteCatalog(file: file)
        _ = try await catalog.insert(CatalogContract.entry(1, at: 1))
        let newer = CatalogSchema.version + 1
        try await catalog.execute(["INSERT INTO grdb_migrations (identifier) VALUES ('v\(newer) a newer release')"])
        do {
            _ = try SQLiteCatalog(file: file)
            Issue.record("an older tracesvc opened a newer schema")
        } catch let StorageError.failed(service, detail) {
            #expect(service == "catalog (SQLite)")
            #expect(detail.contains("its schema is at version \(newer), newer than this tracesvc knows (\(CatalogSchema.version))"), "\(detail)")
        }
        // Its own version opens as before, rows kept.
        try await catalog.execute(["DELETE FROM grdb_migrations WHERE identifier = 'v\(newer) a newer release'"])
        #expect(try await SQLiteCatalog(file: file).totals().count == 1)
    }

    /// Rows stored before `q=` folded every letter's case are folded by the migration that began it.
    @Test func theUnicodeSearchMigrationFoldsStoredRows() async throws {
        let file = try SQLiteCatalogTests.temporaryFile()
        let older = try SQLiteCatalog(file: file, through: 7)
        // Today's insert also keeps the counts of migration 10; they are made again by it below.
        try await older.execute(["CREATE TABLE trace_counts (scope TEXT PRIMARY KEY, traces BIGINT NOT NULL, bytes BIGINT NOT NULL)"])
        var entry = CatalogContract.entry(1, at: 1)
        entry.name = "Straße Éclair"
        _ = try await older.insert(entry)
        // As the search text was stored before: unfolded.
        try await older.execute(["UPDATE traces SET search_text = name || char(10) || app || char(10) || device"])
        #expect(try await older.page(CatalogQuery(words: ["ÉCLAIR"]), limit: 10, after: nil).entries.isEmpty)
        try await older.execute(["DROP TABLE trace_counts"])
        let current = try SQLiteCatalog(file: file)
        #expect(try await current.page(CatalogQuery(words: ["ÉCLAIR", "STRASSE"]), limit: 10, after: nil).entries.map(\.id) == [entry.id])
    }
}
