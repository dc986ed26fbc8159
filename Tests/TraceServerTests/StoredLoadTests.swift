import Foundation
import Logging
import NIOCore
import Testing
@testable import TraceServer

/// A load of a stored upload reads the bytes whose hash it checks: it opens the blob once, before
/// it waits for memory, and hashes the bytes as the parse reads them. A file renamed over the blob
/// meanwhile is not what is loaded; bytes changed in place are refused as a changed file (409),
/// never loaded as the trace, never kept.
@Suite(.serialized) struct StoredLoadTests {
    private let text = nativeTrace(updates: 30_000, app: "Ledger")  // several read chunks

    /// A store holding the upload, its model evicted: the next request loads it from the blob.
    private func storeWithUpload(_ scratch: Scratch) async throws -> (TraceStore, id: String, blob: URL) {
        let (store, id, blob) = try await TraceServerTests.storeWithUpload(scratch, text)
        #expect(await store.models.evict(id), "the upload's model leaves memory: the next request loads it")
        return (store, id, blob)
    }

    /// Loads `id` while the memory budget is full, does `meanwhile` once the load waits for memory
    /// (it has located and opened the blob), then lets it go on.
    private func load(_ id: String, of store: TraceStore, meanwhile: () throws -> Void) async throws -> Result<Int, StoreError> {
        var held: MemoryBudget.Claim? = store.memory.claimNow(store.memory.limit)
        let load = Task { try await store.trace(id: id).updates.count }
        // Polled with sleeps, not yields: a spin would hold a cooperative thread the other suites need.
        let deadline = ContinuousClock.now + .seconds(120)
        while store.loadsWaitingForMemory == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try meanwhile()
        withExtendedLifetime(held) { held = nil }
        return await load.result.mapError { ($0 as? StoreError) ?? .cancelled }
    }

    @Test func aFileRenamedOverTheBlobWhileTheLoadWaitsIsNotWhatIsLoaded() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (store, id, blob) = try await storeWithUpload(scratch)
        let result = try await load(id, of: store) {
            // Another trace takes the blob's name.
            let replacement = blob.deletingLastPathComponent().appendingPathComponent("replacement")
            try Data(nativeTrace(updates: 20_000, app: "Orchard").utf8).write(to: replacement)
            #expect(rename(replacement.path, blob.path) == 0)
        }
        #expect(try result.get() == 30_000, "the upload's own bytes, opened before the rename")
        // Asked again (out of memory), the blob's bytes are not those of the trace: refused.
        #expect(await store.models.evict(id))
        await #expect(throws: StoreError.fileChanged(id: id)) { _ = try await store.trace(id: id) }
    }

    @Test func bytesChangedInPlaceAreAChangedFileNeverTheTrace() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (store, id, blob) = try await storeWithUpload(scratch)
        let original = Data(text.utf8)
        // A duration near the end read 40000, now 50000: still a trace, not the uploaded one.
        let last = try #require(text.range(of: ",40000,", options: .backwards))
        let duration = text.utf8.distance(from: text.startIndex, to: last.lowerBound)
        #expect(duration > original.count * 9 / 10)
        var changed = original
        changed[duration + 1] = UInt8(ascii: "5")
        #expect(try await load(id, of: store) { try write(changed, inPlaceOf: blob) } == .failure(.fileChanged(id: id)))
        #expect(await !store.isInMemory(id: id), "nothing kept")
        // Bytes that no longer parse are that too, not a parse error.
        var broken = original
        broken[original.count / 2] = UInt8(ascii: "}")
        #expect(try await load(id, of: store) { try write(broken, inPlaceOf: blob) } == .failure(.fileChanged(id: id)))
        // The uploaded bytes back in place: loaded.
        #expect(try await load(id, of: store) { try write(original, inPlaceOf: blob) } == .success(30_000))
    }

    /// Writes `bytes` over the file's own (the same file, not another renamed over it).
    private func write(_ bytes: Data, inPlaceOf file: URL) throws {
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        try handle.write(contentsOf: bytes)
    }
}
