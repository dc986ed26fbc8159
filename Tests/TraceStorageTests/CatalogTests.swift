import Foundation
import Logging
import ServiceLifecycle
import Testing
@testable import TraceStorage

/// One contract, both engines: the embedded SQLite catalog and PostgreSQL (scripts/team-up.sh);
/// `CatalogContractTests` runs it on each.
enum CatalogContract {
    static func entry(_ n: Int, at micros: Int64, blob: String? = nil, tags: [String] = []) -> CatalogEntry {
        let id = String(format: "%032x", n)
        return CatalogEntry(
            id: id, name: "Recipes-\(n).trace", app: "Recipes", device: "iPad Pro", durationNs: 1_000_000 * Int64(n), sizeBytes: Int64(1000 + n),
            sha256: blob ?? String(repeating: "0", count: 32) + id, sourceFormat: "xctrace-xml", updateCount: n, run: n % 3 == 0 ? 2 : nil,
            uploadedAtMicros: micros, tags: tags, parserVersion: 1
        )
    }

    static func check(_ catalog: some Catalog) async throws {
        let first = entry(1, at: 1_000, tags: ["ci", "main"])
        #expect(try await catalog.insert(first) == (first, true))
        // The same id again keeps the stored row.
        var changed = first
        changed.name = "renamed"
        let again = try await catalog.insert(changed)
        #expect(again.isNew == false)
        #expect(again.entry == first)
        #expect(try await catalog.entry(id: first.id) == first)
        #expect(try await catalog.entry(id: String(repeating: "f", count: 32)) == nil)

        // 25 more, three sharing one upload time: the cursor must not skip or repeat ties.
        let shared = String(repeating: "ab", count: 32)
        for n in 2...26 {
            _ = try await catalog.insert(entry(n, at: n <= 4 ? 5_000 : Int64(n) * 1_000, blob: n <= 3 ? shared : nil))
        }
        var seen: [String] = []
        var cursor: CatalogCursor?
        var pages = 0
        repeat {
            let page = try await catalog.page(limit: 7, after: cursor)
            #expect(page.entries.count <= 7)
            seen += page.entries.map(\.id)
            cursor = page.next
            pages += 1
        } while cursor != nil
        #expect(pages == 4)
        #expect(seen.count == 26)
        #expect(Set(seen).count == 26)
        let all = try await catalog.all()
        #expect(all.map(\.id) == seen)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.uploadedAtMicros > $1.uploadedAtMicros || ($0.uploadedAtMicros == $1.uploadedAtMicros && $0.id > $1.id) })
        #expect(all.last?.tags == ["ci", "main"])

        let totals = try await catalog.totals()
        #expect(totals.count == 26)
        #expect(totals.bytes == (1...26).reduce(0) { $0 + Int64(1000 + $1) })

        let unnamed = String(repeating: "cd", count: 32)
        #expect(try await catalog.namedBlobs(among: [shared, unnamed]) == [shared])

        #expect(try await catalog.delete(id: first.id) == first)
        #expect(try await catalog.delete(id: first.id) == nil)
        #expect(try await catalog.entry(id: first.id) == nil)
        // The shared blob is still named by the other rows.
        _ = try await catalog.delete(id: entry(2, at: 0).id)
        #expect(try await catalog.namedBlobs(among: [shared]) == [shared])
        try await catalog.check()

        // The sweep: a named blob stays, a recently claimed one stays, an old unnamed one goes.
        let removed = RemovedKeys()
        let now = CatalogEntry.nowMicros()
        let hour: Int64 = 3_600_000_000
        #expect(try await catalog.releaseBlob(shared, writtenAt: 0, cutoff: now, remove: { await removed.add(shared) }) == false)
        let claimed = String(repeating: "ef", count: 32)
        try await catalog.claimBlob(claimed)
        #expect(try await catalog.releaseBlob(claimed, writtenAt: 0, cutoff: now - hour, remove: { await removed.add(claimed) }) == false)
        #expect(try await catalog.releaseBlob(unnamed, writtenAt: now - 2 * hour, cutoff: now - hour, remove: { await removed.add(unnamed) }) == true)
        #expect(try await catalog.releaseBlob(claimed, writtenAt: 0, cutoff: now + hour, remove: { await removed.add(claimed) }) == true)
        #expect(await removed.keys == [unnamed, claimed])

        // A row whose blob was streamed under a key of its own names that key, not its content hash;
        // rows written before blob keys (NULL) name their hash, as the ones above.
        let content = String(repeating: "5a", count: 32)
        var streamed = entry(40, at: 40_000, blob: content)
        streamed.blobKey = "up-" + String(repeating: "7", count: 32)
        #expect(try await catalog.blobKey(ofContent: content) == nil)
        #expect(try await catalog.insert(streamed) == (streamed, true))
        #expect(try await catalog.entry(id: streamed.id)?.storedBlobKey == streamed.blobKey)
        #expect(try await catalog.entry(id: entry(5, at: 0).id)?.blobKey == nil)
        #expect(try await catalog.blobKey(ofContent: content) == streamed.blobKey)
        #expect(try await catalog.blobKey(ofContent: entry(5, at: 0).sha256) == entry(5, at: 0).sha256)
        #expect(try await catalog.namedBlobs(among: [content, streamed.storedBlobKey, shared]) == [streamed.storedBlobKey, shared])
        #expect(try await catalog.releaseBlob(streamed.storedBlobKey, writtenAt: 0, cutoff: now, remove: { await removed.add("streamed") }) == false)
        #expect(try await catalog.releaseBlob(content, writtenAt: 0, cutoff: now, remove: { await removed.add(content) }) == true)
        _ = try await catalog.delete(id: streamed.id)
        #expect(try await catalog.releaseBlob(streamed.storedBlobKey, writtenAt: 0, cutoff: now, remove: { await removed.add("streamed") }) == true)
        #expect(await removed.keys == [unnamed, claimed, content, "streamed"])
    }
}

/// One folder for this test process's catalogs, removed when it exits.
private let catalogFilesRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-catalog-tests-\(getpid())")
    atexit { try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-catalog-tests-\(getpid())")) }
    return root
}()

struct SQLiteCatalogTests {
    static func temporaryFile() throws -> URL {
        let folder = catalogFilesRoot.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("catalog.sqlite")
    }

    @Test func isInWALModeWithVersionedMigrations() async throws {
        let file = try Self.temporaryFile()
        let catalog = try SQLiteCatalog(file: file)
        #expect(try await catalog.journalMode == "wal")
        #expect(try await catalog.appliedMigrations() == ["v1 traces and tags", "v10 trace counts", "v2 blob claims", "v3 history", "v4 blob keys", "v5 search text", "v6 trigram indexes", "v7 tokens and audit", "v8 tags in upload order", "v9 unicode search text"])
        _ = try await catalog.insert(CatalogContract.entry(1, at: 1))
        // Opening again migrates nothing and keeps the rows.
        let reopened = try SQLiteCatalog(file: file)
        #expect(try await reopened.totals().count == 1)
    }

    /// A catalog made before the search text (migrations 1-4), with rows: opened now, `q=` finds them.
    @Test func migratesACatalogWithoutTheSearchText() async throws {
        let file = try Self.temporaryFile()
        try await SQLiteCatalog(file: file, through: 4).execute((1...3).flatMap { n in
            let entry = CatalogContract.entry(n, at: Int64(n))
            return [
                """
                INSERT INTO traces (\(CatalogSchema.columns)) VALUES ('\(entry.id)', '\(entry.name)', 'Recipes', 'iPad Pro', 1, 1, '\(entry.sha256)',
                    'xctrace-xml', 1, NULL, \(n), 1, NULL)
                """,
                "INSERT INTO trace_tags (trace_id, tag) VALUES ('\(entry.id)', 'build:\(n)'), ('\(entry.id)', 'Nightly'), ('\(entry.id)', 'scenario:old')",
            ]
        })
        let catalog = try SQLiteCatalog(file: file)
        let ids = (1...3).map { CatalogContract.entry($0, at: 0).id }
        #expect(try await catalog.page(CatalogQuery(words: ["recipes-2.TRACE"]), limit: 10, after: nil).entries.map(\.id) == [ids[1]])
        #expect(try await catalog.page(CatalogQuery(words: ["nightly", "BUILD:3"]), limit: 10, after: nil).entries.map(\.id) == [ids[2]])
        #expect(try await catalog.page(CatalogQuery(words: ["ipad", "re"]), limit: 2, after: nil).total == 3)
        // Their tags got their upload times (migration 8): a tag's list is in upload order.
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "scenario:old")]), limit: 10, after: nil).entries.map(\.id) == ids.reversed())
        // The rows stored before are counted (migration 10): the totals, a list's and a tag's.
        #expect(try await catalog.totals() == (3, 3))
        #expect(try await catalog.page(CatalogQuery(), limit: 1, after: nil).total == 3)
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "scenario:old")]), limit: 1, after: nil).total == 3)
        #expect(try await catalog.usage(of: ["build:2", "scenario:old"]) == ["build:2": TagUsage(traces: 1, bytes: 1), "scenario:old": TagUsage(traces: 3, bytes: 3)])
    }
}

/// Against the shared PostgreSQL cluster; serialized because one test stops the server.
@Suite(.serialized) struct PostgresCatalogTests {
    /// Deadlines well above the server's defaults: the whole suite runs at once on two cores
    /// (a load average near 18 here), and 5 s to connect and migrate was missed there. The
    /// outage test gives its own short one.
    static func catalog(_ url: String, timeout: Duration = .seconds(20)) async throws -> (PostgresCatalog, Task<Void, any Error>) {
        let location = try PostgresCatalog.Location(url: url)
        try await PostgresCatalog.prepare(location, logger: TeamEngines.logger, timeout: .seconds(30))
        let catalog = PostgresCatalog(location: location, logger: TeamEngines.logger, callTimeout: timeout)
        let running = Task { try await catalog.run() }
        return (catalog, running)
    }

    @Test func replicasStartingTogetherMigrateOnce() async throws {
        let url = try TeamEngines.freshDatabase("migrate")
        let location = try PostgresCatalog.Location(url: url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresCatalog.prepare(location, logger: TeamEngines.logger, timeout: .seconds(30)) } }
            try await group.waitForAll()
        }
        let (catalog, running) = try await Self.catalog(url)
        defer { running.cancel() }
        #expect(try await catalog.appliedVersions() == CatalogSchema.migrations.map(\.version))
    }

    /// A team catalog made before the search text (migrations 1-4), with rows: the next start
    /// fills every row's search text and builds the trigram indexes; `q=` finds the old rows.
    @Test func migratesACatalogWithoutTheSearchTextAndItsIndexes() async throws {
        let url = try TeamEngines.freshDatabase("search")
        let location = try PostgresCatalog.Location(url: url)
        try await PostgresCatalog.prepare(location, logger: TeamEngines.logger, through: 4)
        try await PostgresCatalog.execute((1...3).flatMap { n in
            let entry = CatalogContract.entry(n, at: Int64(n))
            return [
                """
                INSERT INTO traces (\(CatalogSchema.columns)) VALUES ('\(entry.id)', '\(entry.name)', 'Recipes', 'iPad Pro', 1, 1, '\(entry.sha256)',
                    'xctrace-xml', 1, NULL, \(n), 1, NULL)
                """,
                "INSERT INTO trace_tags (trace_id, tag) VALUES ('\(entry.id)', 'build:\(n)'), ('\(entry.id)', 'Nightly'), ('\(entry.id)', 'scenario:old')",
            ]
        }, at: location, logger: TeamEngines.logger)
        let (catalog, running) = try await Self.catalog(url)
        defer { running.cancel() }
        #expect(try await catalog.appliedVersions() == CatalogSchema.migrations.map(\.version))
        #expect(try await catalog.indexesOfTraces().isSuperset(of: ["traces_search_trigrams", "traces_name_trigrams"]))
        let ids = (1...3).map { CatalogContract.entry($0, at: 0).id }
        #expect(try await catalog.page(CatalogQuery(words: ["recipes-2.TRACE"]), limit: 10, after: nil).entries.map(\.id) == [ids[1]])
        #expect(try await catalog.page(CatalogQuery(words: ["nightly", "BUILD:3"]), limit: 10, after: nil).entries.map(\.id) == [ids[2]])
        #expect(try await catalog.page(CatalogQuery(words: ["ipad", "re"]), limit: 2, after: nil).total == 3)
        // Their tags got their upload times (migration 8): a tag's list is in upload order.
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "scenario:old")]), limit: 10, after: nil).entries.map(\.id) == ids.reversed())
        // The rows stored before are counted (migration 10): the totals, a list's and a tag's.
        #expect(try await catalog.totals() == (3, 3))
        #expect(try await catalog.page(CatalogQuery(), limit: 1, after: nil).total == 3)
        #expect(try await catalog.page(CatalogQuery(tags: [try TraceTag(parsing: "scenario:old")]), limit: 1, after: nil).total == 3)
        #expect(try await catalog.usage(of: ["build:2", "scenario:old"]) == ["build:2": TagUsage(traces: 1, bytes: 1), "scenario:old": TagUsage(traces: 3, bytes: 3)])
    }

    /// A role that may not create extensions: the catalog starts without the trigram indexes
    /// (a warning says so), `q=` still finds by scanning, and the next start with the privilege
    /// builds them. (Few calls, each with room: the whole test run loads this machine heavily.)
    @Test func startsAndSearchesWithoutPgTrgm() async throws {
        let url = try TeamEngines.freshDatabase("notrgm")
        let location = try PostgresCatalog.Location(url: url)
        let role = "tracesvc_\(UInt32.random(in: 0...UInt32.max))"
        try await PostgresCatalog.execute(["CREATE ROLE \(role) LOGIN", "GRANT CREATE ON SCHEMA public TO \(role)"], at: location, logger: TeamEngines.logger)
        let limited = try PostgresCatalog.Location(url: url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@"))
        try await PostgresCatalog.prepare(limited, logger: TeamEngines.logger, timeout: .seconds(30))
        // Opened without a start of its own (as the superuser, that start would create the extension).
        let catalog = PostgresCatalog(location: location, logger: TeamEngines.logger, callTimeout: .seconds(60))
        let running = Task { try await catalog.run() }
        defer { running.cancel() }
        #expect(try await catalog.appliedVersions() == CatalogSchema.migrations.map(\.version).filter { $0 != 6 })
        #expect(try await catalog.indexesOfTraces().isDisjoint(with: ["traces_search_trigrams", "traces_name_trigrams"]))
        var ids: [String] = []
        for n in 1...3 { ids.append(try await catalog.insert(CatalogContract.entry(n, at: Int64(n), tags: ["build:\(n)"])).entry.id) }
        // Sparse, every trace, too short for a trigram: found by scanning.
        #expect(try await catalog.page(CatalogQuery(words: ["BUILD:2"]), limit: 10, after: nil).entries.map(\.id) == [ids[1]])
        #expect(try await catalog.page(CatalogQuery(words: ["recipes"]), limit: 2, after: nil).total == 3)
        #expect(try await catalog.page(CatalogQuery(words: ["3."]), limit: 10, after: nil).entries.map(\.id) == [ids[2]])

        try await PostgresCatalog.execute(["GRANT CREATE ON DATABASE \(location.database) TO \(role)"], at: location, logger: TeamEngines.logger)
        try await PostgresCatalog.prepare(limited, logger: TeamEngines.logger, timeout: .seconds(30))
        #expect(try await catalog.appliedVersions() == CatalogSchema.migrations.map(\.version))
        #expect(try await catalog.indexesOfTraces().isSuperset(of: ["traces_search_trigrams", "traces_name_trigrams"]))
        #expect(try await catalog.page(CatalogQuery(words: ["BUILD:2"]), limit: 10, after: nil).entries.map(\.id) == [ids[1]])
    }

    @Test func aDeleteReachesTheOtherReplica() async throws {
        let url = try TeamEngines.freshDatabase("notify")
        let (a, runningA) = try await Self.catalog(url)
        let (b, runningB) = try await Self.catalog(url)
        defer { runningA.cancel(); runningB.cancel() }
        let entry = CatalogContract.entry(7, at: 7)
        _ = try await a.insert(entry)
        let changes = ChangeLog(b)
        // The listener says it is listening (and asks for a re-check) before anything else.
        #expect(await changes.wait(for: .resync, within: .seconds(5)))
        _ = try await a.delete(id: entry.id)
        // Within a second end to end: Tests/Team; here with room for a busy test run.
        #expect(await changes.wait(for: .deleted(id: entry.id), within: .seconds(10)))
    }

    @Test func aStoppedServerIsUnavailableAndRecoversWithoutRestart() async throws {
        let url = try TeamEngines.freshDatabase("outage")
        let (catalog, running) = try await Self.catalog(url, timeout: .seconds(2))
        defer { running.cancel() }
        let changes = ChangeLog(catalog)
        #expect(await changes.wait(for: .resync, within: .seconds(5)))
        await changes.clear()
        _ = try await catalog.insert(CatalogContract.entry(1, at: 1))

        try TeamEngines.stopPostgres()
        do {
            // The wall-clock bound is checked end to end in Tests/Team (other suites may hold the cooperative threads here).
            do {
                _ = try await catalog.page(limit: 10, after: nil)
                Issue.record("a stopped server answered")
            } catch let StorageError.unavailable(service, _) {
                #expect(service == "catalog (PostgreSQL)")
            }
            // A fresh start fails fast and says what it could not reach.
            let location = try PostgresCatalog.Location(url: url)
            await #expect(throws: StorageError.self) { try await PostgresCatalog.prepare(location, logger: TeamEngines.logger, timeout: .seconds(2)) }
        } catch {
            try? TeamEngines.startPostgres()
            throw error
        }
        try TeamEngines.startPostgres()

        // Back without restarting the catalog: queries answer again, the listener reconnects and asks for a re-check.
        var recovered = false
        for _ in 0..<50 where !recovered {
            recovered = (try? await catalog.page(limit: 10, after: nil).entries.count) == 1
            if !recovered { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recovered)
        #expect(await changes.wait(for: .resync, within: .seconds(10)))
    }

    @Test func passwordsAreNeverPrinted() throws {
        let inURL = try PostgresCatalog.Location(url: "postgres://app:s3cr3t@db.example:5433/traces", environment: [:])
        #expect("\(inURL)" == "postgres://app:***@db.example:5433/traces")
        #expect(!String(reflecting: inURL).contains("s3cr3t"))
        let fromEnvironment = try PostgresCatalog.Location(url: "postgres://app@db/traces", environment: ["PGPASSWORD": "hunter2"])
        #expect(fromEnvironment.password == "hunter2")
        #expect(!"\(fromEnvironment)".contains("hunter2"))
        #expect(throws: StorageConfigurationError.self) { try PostgresCatalog.Location(url: "mysql://x@y/z") }
    }
}

actor RemovedKeys {
    var keys: [String] = []
    func add(_ key: String) { keys.append(key) }
}

/// Collects a catalog's changes as they come, for tests to wait on.
actor ChangeLog {
    private var seen: [CatalogChange] = []
    private var reader: Task<Void, Never>?

    init(_ catalog: some Catalog) {
        let stream = catalog.changes()
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncStream<CatalogChange>) {
        reader = Task { for await change in stream { self.append(change) } }
    }

    private func append(_ change: CatalogChange) { seen.append(change) }

    func clear() { seen.removeAll() }

    func wait(for change: CatalogChange, within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if seen.contains(change) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return seen.contains(change)
    }

    deinit { reader?.cancel() }
}

extension CatalogContract {
    /// `q=` ignores the case of every letter, not only ASCII's, and both engines alike (issue 39:
    /// SQLite's LIKE folded ASCII only). Other apps' names: French, German, Greek, Turkish.
    static func checkUnicodeWords(_ catalog: some Catalog) async throws {
        let named: [(name: String, app: String, device: String)] = [
            ("Éclair au chocolat", "Pâtisserie", "iPhone 16"),
            ("Straße der Pariser Kommune", "Stadtplan", "iPad Pro"),
            ("ΟΔΥΣΣΕΥΣ scroll", "Ταξίδι", "iPhone 15"),
            ("İstanbul map", "Harita", "ÅLAND TEST DEVICE"),
            ("plain ascii", "Recipes", "iPad"),
        ]
        var ids: [String] = []
        for (n, item) in named.enumerated() {
            var entry = entry(n + 1, at: Int64(1_000 * (n + 1)))
            (entry.name, entry.app, entry.device) = item
            _ = try await catalog.insert(entry)
            ids.append(entry.id)
        }
        let cases: [(words: [String], found: [Int])] = [
            (["ÉCLAIR"], [0]), (["éclair"], [0]), (["PÂTISSERIE"], [0]), (["CHOCOLAT"], [0]),
            (["STRASSE"], [1]), (["strasse"], [1]), (["straße"], [1]), (["STRAẞE"], [1]),
            (["οδυσσευς"], [2]), (["Οδυσσεύς"], []), (["ταξίδι"], [2]), (["ΤΑΞΊΔΙ"], [2]),
            (["åland"], [3]), (["ÅLAND", "harita"], [3]),
            (["ASCII"], [4]), (["MAP"], [3]), (["e"], [0, 1, 2, 3, 4]),
        ]
        for (words, found) in cases {
            let expected = found.sorted(by: >).map { ids[$0] }
            let page = try await catalog.page(CatalogQuery(words: words), limit: 10, after: nil)
            #expect(page.entries.map(\.id) == expected, "q=\(words.joined(separator: " "))")
        }
    }
}
