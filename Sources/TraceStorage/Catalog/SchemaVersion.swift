/// The catalog records the migrations it ran (`schema_migrations` in PostgreSQL, GRDB's table in
/// SQLite); a tracesvc that finds one it does not know was made by a newer release, and refuses to
/// start rather than read or write rows whose meaning it does not know.
extension CatalogSchema {
    /// The newest migration this tracesvc knows: its schema version.
    public static var version: Int { migrations.map(\.version).max() ?? 0 }

    /// Throws when `applied` holds a migration newer than this tracesvc knows.
    static func refuseNewer(applied: some Sequence<Int>, service: String) throws {
        guard let newest = applied.max(), newest > version else { return }
        throw StorageError.failed(service: service, detail: """
            its schema is at version \(newest), newer than this tracesvc knows (\(version)): a newer release upgraded it. \
            Run that release or a newer one; an older one could misread or damage its rows.
            """)
    }
}
