import Foundation
import Logging
import NIOCore
import Testing
@testable import TraceServer

@Suite struct TraceStoreTests {
    private func inMemory(_ store: TraceStore, _ ids: [String]) async -> [Bool] {
        var result: [Bool] = []
        for id in ids { result.append(await store.isInMemory(id: id)) }
        return result
    }

    private func store(_ scratch: Scratch, budget: Int) async throws -> TraceStore {
        try Data(nativeTrace(updates: 40, app: "Second").utf8).write(to: scratch.samples.appendingPathComponent("second.json"))
        return try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: scratch.samples, memoryBudgetBytes: budget),
            logger: Logger(label: "test")
        )
    }

    @Test func leastRecentlyUsedTraceIsEvictedAndReloadedOnDemand() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // A budget smaller than one trace keeps exactly the last one used.
        let store = try await store(scratch, budget: 1)
        let ids = try await store.list().map(\.id)
        #expect(ids.count == 2)
        let first = try await store.trace(id: ids[0])
        #expect(await inMemory(store, ids) == [true, false])
        _ = try await store.trace(id: ids[1])
        #expect(await inMemory(store, ids) == [false, true])
        let reloaded = try await store.trace(id: ids[0])
        #expect(reloaded.updates.count == first.updates.count)
        #expect(await inMemory(store, ids) == [true, false])
    }

    @Test func budgetLargeEnoughKeepsEverything() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await store(scratch, budget: 1 << 30)
        let ids = try await store.list().map(\.id)
        for id in ids { _ = try await store.trace(id: id) }
        // Checked after loading them all: each load could have evicted the ones before.
        for id in ids { #expect(await store.isInMemory(id: id)) }
    }

    @Test func concurrentRequestsShareOneLoad() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await store(scratch, budget: 1)
        let ids = try await store.list().map(\.id)
        _ = try await store.trace(id: ids[1])  // evicts ids[0]
        let loadsBefore = await store.loadsStarted
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await store.trace(id: ids[0]).updates.count } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.count == 8 && Set(counts).count == 1)
        #expect(await store.loadsStarted == loadsBefore + 1, "eight requests, one load")
        #expect(await store.isInMemory(id: ids[0]))
    }

    @Test func unknownIdIs404() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await store(scratch, budget: 1 << 30)
        await #expect(throws: StoreError.unknownTrace(id: "nope")) { try await store.trace(id: "nope") }
    }

    @Test func interruptedUploadsAndUncommittedFilesAreDiscardedAtStart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let traces = scratch.dataDirectory.appendingPathComponent("traces")
        let incoming = scratch.dataDirectory.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        try Data("half".utf8).write(to: incoming.appendingPathComponent("x.part"))
        try Data(nativeTrace().utf8).write(to: traces.appendingPathComponent("0123456789abcdef0123456789abcdef.trace"))
        let store = try await store(scratch, budget: 1 << 30)
        #expect(try await store.list().allSatisfy(\.isSample))
        #expect(try FileManager.default.contentsOfDirectory(atPath: incoming.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: traces.path), "the unexplained file went to quarantine/, the emptied folder away")
    }

    /// The blob is written while the upload is read; one that is not a trace must leave nothing.
    @Test func anUploadThatIsNotATraceLeavesNoBlobWhileATraceIsStored() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30), logger: Logger(label: "test"))
        func upload(_ text: String, name: String) async throws -> ReceivedUpload {
            let file = try IncomingFile(in: store.incomingDirectory)
            try file.write(ByteBuffer(string: text))
            let sha256 = try file.finish()
            return ReceivedUpload(file: file.url, id: String(sha256.prefix(32)), sha256: sha256, size: file.written, name: name)
        }
        let broken = String(nativeTrace(updates: 2_000, app: "Pantry").dropLast(40))
        await #expect(throws: StoreError.self) { try await store.add(try await upload(broken, name: "cut.json")) }
        let blobs = scratch.dataDirectory.appendingPathComponent("blobs")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? []).isEmpty, "the refused upload's bytes are gone")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.incomingDirectory.path)) ?? []).isEmpty)
        let pantry = try await upload(nativeTrace(updates: 2_000, app: "Pantry"), name: "pantry.json")
        let added = try await store.add(pantry)
        #expect(added.isNew)
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path) == [pantry.sha256])
        #expect(try await store.trace(id: added.record.id).updates.count == 2_000)
    }

    @Test func deletingATraceRemovesItsBytesAndTheSweepTakesBlobsNoRowNames() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let blobs = scratch.dataDirectory.appendingPathComponent("blobs")
        let id = try await scratch.withServer { client in try await client.uploadedID(nativeTrace(updates: 25, app: "Recipes")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).count == 1)
        // A blob left by a crash between its write and its row: no row names it.
        let orphan = String(repeating: "ab", count: 32)
        try Data("left behind".utf8).write(to: blobs.appendingPathComponent(orphan))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: blobs.appendingPathComponent(orphan).path)
        let store = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30), logger: Logger(label: "test"))
        #expect(await store.sweepUnnamedBlobs() == 1)
        #expect(!FileManager.default.fileExists(atPath: blobs.appendingPathComponent(orphan).path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).count == 1, "the named blob stays")
        try await store.delete(id: id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path).isEmpty)
        await #expect(throws: StoreError.unknownTrace(id: id)) { try await store.trace(id: id) }
    }
}
