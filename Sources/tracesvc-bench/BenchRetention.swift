import ArgumentParser
import Foundation
import Logging
import Synchronization
import TraceServer
import TraceStorage

/// The retention sweep at scale (issue 44's target: 10,000 expired traces swept within a minute
/// without stalling reads; the list's p99 within 50 ms at 50,000 traces): a catalog of `--traces`
/// rows, `--expired` of them past a `branch=*:30d` rule, swept while a reader pages the list; the
/// reader's latencies during the sweep are compared with the same reads with no sweep running.
struct BenchRetention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Sweep expired traces out of a big catalog while the list is read; the reads' p50/p99 against the same reads idle.",
        discussion: "Embedded SQLite by default; --catalog postgres://… for team mode's catalog (a database of its own: it is filled)."
    )

    @Option(help: "Traces in the catalog.")
    var traces = 50_000

    @Option(help: "Of them, expired under the policy (uploaded 40 days ago, tagged branch:feature-N).")
    var expired = 10_000

    @Option(help: "List pages read idle (the baseline).")
    var reads = 300

    @Option(help: ArgumentHelp("Team mode's catalog (an empty database), instead of a temporary SQLite file.", valueName: "url"))
    var catalog: String?

    func validate() throws {
        guard traces > 0, (0...traces).contains(expired), reads > 0 else { throw ValidationError("need traces > 0, 0 <= expired <= traces, reads > 0") }
    }

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-bench-retention-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var running: Task<Void, any Error>?
        let storage: TraceStore.Storage
        if let catalog {
            let location = try PostgresCatalog.Location(url: catalog)
            try await PostgresCatalog.prepare(location, logger: logger)
            let postgres = PostgresCatalog(location: location, logger: logger, callTimeout: .seconds(60))
            running = Task { try await postgres.run() }
            storage = TraceStore.Storage(catalog: postgres, blobs: try FileBlobStore(directory: directory.appendingPathComponent("blobs")), isShared: true)
        } else {
            storage = try TraceStore.Storage.embedded(in: directory)
        }
        defer { running?.cancel() }
        let store = try await TraceStore.open(.init(dataDirectory: directory, samplesDirectory: nil, memoryBudgetBytes: 64 << 20, storage: storage), logger: logger)
        print("catalog: \(storage.catalog.serviceName), \(traces) traces, \(expired) expired under branch=main:forever, branch=*:30d")

        let filling = ContinuousClock.now
        try await fill(storage, blobs: catalog == nil)
        print("filled in \(seconds(ContinuousClock.now - filling)) s")

        let policy = RetentionPolicy(rules: try ["branch=main:forever", "branch=*:30d"].map(RetentionRule.init(parsing:)))
        let tagged = CatalogQuery(tags: [try TraceTag(parsing: "branch:main")])
        // The floor, read between the lists: one round trip to the catalog that does no work (the
        // readiness check: SELECT 1 in PostgreSQL). What it takes at its p99 is the machine's
        // scheduling, not the list's queries.
        var idle = Latencies(), idleTagged = Latencies(), floor = Latencies()
        for _ in 0..<reads {
            idle.add(try await timed { _ = try await store.page(CatalogQuery(), limit: 50, cursor: nil) })
            floor.add(try await timed { try await storage.catalog.check() })
            idleTagged.add(try await timed { _ = try await store.page(tagged, limit: 50, cursor: nil) })
        }
        print("list (limit=50), idle at \(traces) traces:                 \(idle)")
        print("list (tag=branch:main, limit=50), idle at \(traces) traces: \(idleTagged)")
        // A page far down the list, reached by its cursor (the list's keyset pagination).
        let deep = try await cursor(store, CatalogQuery(), depth: traces * 2 / 5)
        let deepTagged = try await cursor(store, tagged, depth: (traces - expired) / 4)
        var idleDeep = Latencies(), idleDeepTagged = Latencies()
        for _ in 0..<reads {
            idleDeep.add(try await timed { _ = try await store.page(CatalogQuery(), limit: 50, cursor: deep.cursor) })
            floor.add(try await timed { try await storage.catalog.check() })
            idleDeepTagged.add(try await timed { _ = try await store.page(tagged, limit: 50, cursor: deepTagged.cursor) })
        }
        print("list (limit=50) after \(deep.depth) rows, by cursor:                 \(idleDeep)")
        print("list (tag=branch:main, limit=50) after \(deepTagged.depth) rows, by cursor: \(idleDeepTagged)")
        print("floor: a catalog round trip doing no work, between the reads:     \(floor)")
        print(String(format: "p99 / the floor's p99: list %.1fx, tagged %.1fx, deep %.1fx, deep tagged %.1fx", idle.p(0.99) / floor.p(0.99),
                     idleTagged.p(0.99) / floor.p(0.99), idleDeep.p(0.99) / floor.p(0.99), idleDeepTagged.p(0.99) / floor.p(0.99)))

        let dryRunStart = ContinuousClock.now
        let candidates = try await store.retentionCandidates(policy)
        print("dry run: \(candidates.count) expired found in \(seconds(ContinuousClock.now - dryRunStart)) s")

        let sweepStart = ContinuousClock.now
        let finished = SweepFinished()
        let sweep = Task {
            let deleted = await store.applyRetention(policy)
            finished.flag.withLock { $0 = true }
            return deleted
        }
        var during = Latencies()
        // The reader goes on until the sweep ends.
        while !finished.flag.withLock({ $0 }) {
            during.add(try await timed { _ = try await store.page(CatalogQuery(), limit: 50, cursor: nil) })
        }
        let deleted = await sweep.value
        let sweepTime = ContinuousClock.now - sweepStart
        print("sweep: \(deleted) traces deleted in \(seconds(sweepTime)) s (\(Int(Double(deleted) / max(0.001, sweepTime.seconds))) a second)")
        print("list (limit=50) during the sweep:          \(during)")
        print(String(format: "during/idle: p50 %.2fx, p99 %.2fx", during.p(0.5) / idle.p(0.5), during.p(0.99) / idle.p(0.99)))
        let left = try await storage.catalog.totals().count
        print("left: \(left) traces (expected \(traces - expired))")
    }

    /// The cursor after about `depth` rows of `query`'s list (fewer when it is shorter).
    private func cursor(_ store: TraceStore, _ query: CatalogQuery, depth: Int) async throws -> (cursor: CatalogCursor?, depth: Int) {
        var cursor: CatalogCursor?
        var read = 0
        while read < depth {
            let page = try await store.page(query, limit: min(1000, depth - read), cursor: cursor)
            read += page.records.count
            guard let next = page.next else { break }
            cursor = next
        }
        return (cursor, read)
    }

    private func fill(_ storage: TraceStore.Storage, blobs: Bool) async throws {
        let now = CatalogEntry.nowMicros()
        let day: Int64 = 86_400_000_000
        let catalog = storage.catalog
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-bench-blob-\(getpid())")
        try Data("bench".utf8).write(to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let total = traces, expiredCount = expired
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for n in stride(from: worker, to: total, by: 8) {
                        let isExpired = n < expiredCount
                        let id = String(format: "%032x", n + 1), sha = String(format: "%064x", n + 1)
                        // Expired: feature branches 40 days old. Kept: main (forever) or features of yesterday.
                        let tags = isExpired ? ["branch:feature-\(n % 50)", "scenario:scroll"] : n % 2 == 0 ? ["branch:main"] : ["branch:feature-\(n % 50)"]
                        if blobs && isExpired { _ = try await storage.blobs.put(key: sha, file: scratch, size: 5) }
                        _ = try await catalog.insert(CatalogEntry(
                            id: id, name: "Pantry-\(n).json", app: "Pantry", device: "iPhone 16", durationNs: 1_000_000, sizeBytes: 5, sha256: sha,
                            sourceFormat: "native", updateCount: 100, run: nil, uploadedAtMicros: now - (isExpired ? 40 * day : day) + Int64(n),
                            tags: tags, parserVersion: 1))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

private final class SweepFinished: Sendable {
    let flag = Mutex(false)
}

private func timed(_ body: () async throws -> Void) async throws -> Duration {
    let start = ContinuousClock.now
    try await body()
    return ContinuousClock.now - start
}

private func seconds(_ duration: Duration) -> String { String(format: "%.1f", duration.seconds) }

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Latencies of one kind of read, in milliseconds.
private struct Latencies: CustomStringConvertible {
    var values: [Double] = []

    mutating func add(_ duration: Duration) { values.append(duration.seconds * 1000) }

    func p(_ quantile: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * quantile).rounded(.up)) - 1)]
    }

    var description: String {
        String(format: "%d reads, p50 %.2f ms, p99 %.2f ms, max %.2f ms", values.count, p(0.5), p(0.99), values.max() ?? 0)
    }
}
