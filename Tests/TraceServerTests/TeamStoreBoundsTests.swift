import Foundation
import Logging
import Synchronization
import Testing
@testable import TraceServer
import TraceStorage

/// Bounds of the store's background work and memory: the sweep's schedule (`--sweep-grace-minutes 0`,
/// sweep anything unnamed at once, must not list the blob store without pause) and the part
/// buffers of uploads streamed to an object store (counted in `--memory-budget-mb`).
@Suite struct TeamStoreBoundsTests {
    /// The data directory's blobs, counting how often the sweep lists them.
    final class CountingBlobs: BlobStore {
        let files: FileBlobStore
        let lists = Atomic(0)
        var serviceName: String { files.serviceName }

        init(directory: URL) throws { files = try FileBlobStore(directory: directory) }

        func put(key: String, file: URL, size: Int64) async throws -> Bool { try await files.put(key: key, file: file, size: size) }
        func localFile(key: String, sha256: String, scratch: URL) async throws -> BlobFile {
            try await files.localFile(key: key, sha256: sha256, scratch: scratch)
        }
        func delete(key: String) async throws { try await files.delete(key: key) }
        func list() async throws -> [StoredBlob] {
            lists.add(1, ordering: .relaxed)
            return try await files.list()
        }
        func check() async throws { try await files.check() }
    }

    @Test func aGraceOfZeroSweepsOncePerMinuteNotWithoutPause() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let blobs = try CountingBlobs(directory: scratch.dataDirectory.appendingPathComponent("blobs", isDirectory: true))
        let storage = TraceStore.Storage(
            catalog: try SQLiteCatalog(file: scratch.dataDirectory.appendingPathComponent("catalog.sqlite")), blobs: blobs, isShared: false
        )
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30, storage: storage, sweepGrace: .zero),
            logger: Logger(label: "test")
        )
        let maintenance = Task { await store.maintain() }
        // One sweep at the start (waited for: a busy machine may start it late)...
        let deadline = ContinuousClock.now + .seconds(60)
        while blobs.lists.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // ...and the next a minute later: the loop without pause listed 123,684 times in a second.
        try await Task.sleep(for: .seconds(1))
        maintenance.cancel()
        await maintenance.value
        #expect(blobs.lists.load(ordering: .relaxed) == 1)
    }

    @Test func theIntervalFollowsTheGraceWithinOneToTenMinutes() {
        #expect(TraceStore.sweepInterval(grace: .zero) == .seconds(60))
        #expect(TraceStore.sweepInterval(grace: .seconds(300)) == .seconds(300))
        #expect(TraceStore.sweepInterval(grace: .seconds(3600)) == .seconds(600))
    }

    @Test func thePartBuffersOfStreamedUploadsAreHeldFromTheMemoryBudget() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let catalog = try SQLiteCatalog(file: scratch.dataDirectory.appendingPathComponent("catalog.sqlite"))
        // An object store nobody listens on: opening the store asks nothing of it.
        let blobs = S3BlobStore(location: try .init(url: "s3://traces?endpoint=http://127.0.0.1:9&region=us-east-1"),
                                credentials: .init(accessKeyID: "k", secretAccessKey: "s"), logger: Logger(label: "test"),
                                partBytes: 8 << 20, partBuffers: 3)
        let team = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30,
                  storage: .init(catalog: catalog, blobs: blobs, isShared: true)),
            logger: Logger(label: "test")
        )
        #expect(team.memoryInUse == 3 * (8 << 20))
        // Files written when whole take no buffers: nothing held.
        let other = try Scratch()
        defer { other.remove() }
        let embedded = try await TraceStore.open(.init(dataDirectory: other.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30),
                                                 logger: Logger(label: "test"))
        #expect(embedded.memoryInUse == 0)
    }
}
