import Foundation
import Logging
import Testing
@testable import TraceServer
import TraceStorage

/// A cold load from an object store parses the copy while it arrives (`FetchingBlobStore`), and
/// keeps the trace only when the whole copy was good.
struct ArrivingLoadTests {
    /// Files handed out in small pieces, as a network transfer arrives, failing as told.
    final class TrickleBlobs: FetchingBlobStore {
        enum Fault: Sendable { case none, damagedAtTheEnd, cutAfter(Int) }
        let files: FileBlobStore
        let fault: Fault
        var serviceName: String { "object store (test)" }

        init(files: FileBlobStore, fault: Fault) {
            self.files = files
            self.fault = fault
        }

        func fetch(key: String, sha256: String, into target: URL, arrived: @escaping @Sendable (Int64) -> Void) async throws {
            let bytes = try Data(contentsOf: try await files.localFile(key: key, sha256: sha256, scratch: target.deletingLastPathComponent()).url)
            let handle = try FileHandle(forWritingTo: target)
            defer { try? handle.close() }
            for start in stride(from: 0, to: bytes.count, by: 1000) {
                if case let .cutAfter(limit) = fault, start >= limit { throw StorageError.unavailable(service: serviceName, detail: "GET \(key): cut off") }
                try handle.write(contentsOf: bytes[start..<min(bytes.count, start + 1000)])
                arrived(Int64(min(bytes.count, start + 1000)))
                try await Task.sleep(for: .milliseconds(1))
            }
            if case .damagedAtTheEnd = fault { throw StorageError.corruptBlob(key: key) }
        }

        func put(key: String, file: URL, size: Int64) async throws -> Bool { try await files.put(key: key, file: file, size: size) }
        func localFile(key: String, sha256: String, scratch: URL) async throws -> BlobFile { try await files.localFile(key: key, sha256: sha256, scratch: scratch) }
        func delete(key: String) async throws { try await files.delete(key: key) }
        func list() async throws -> [StoredBlob] { try await files.list() }
        func check() async throws {}
    }

    @Test func aColdLoadReadsTheCopyAsItArrivesAndKeepsOnlyAWholeGoodOne() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // A trace of another app, stored as an upload is: its blob, then its row.
        let file = scratch.root.appendingPathComponent("trips.json")
        try Data(nativeTrace(updates: 400, app: "Trips").utf8).write(to: file)
        let (sha256, size) = try sha256OfFile(file)
        let files = try FileBlobStore(directory: scratch.root.appendingPathComponent("bucket"))
        _ = try await files.put(key: sha256, file: file, size: size)
        let catalog = try SQLiteCatalog(file: scratch.root.appendingPathComponent("catalog.sqlite"))
        let id = String(sha256.prefix(32))
        _ = try await catalog.insert(CatalogEntry(id: id, name: "trips.json", app: "Trips", device: "iPhone", durationNs: 1, sizeBytes: size,
                                                  sha256: sha256, sourceFormat: "native", updateCount: 400, run: nil, uploadedAtMicros: 1, parserVersion: 1))

        func replica(_ fault: TrickleBlobs.Fault) async throws -> TraceStore {
            let data = scratch.root.appendingPathComponent("replica-\(UUID().uuidString)")
            return try await TraceStore.open(.init(dataDirectory: data, samplesDirectory: nil, memoryBudgetBytes: 1 << 30,
                                                   storage: .init(catalog: catalog, blobs: TrickleBlobs(files: files, fault: fault), isShared: true)),
                                             logger: Logger(label: "test"))
        }
        let good = try await replica(.none)
        let loaded = try await good.loaded(id: id).trace
        #expect(loaded.updates.count == 400 && loaded.metadata.app == "Trips")
        // The scratch copy is gone once read.
        #expect(try FileManager.default.contentsOfDirectory(atPath: good.scratchDirectory.path).isEmpty)

        // Bytes that did not hash to their key: the parse of them is thrown away, and nothing is kept.
        let damaged = try await replica(.damagedAtTheEnd)
        await #expect(throws: StoreError.service(.corruptBlob(key: sha256))) { try await damaged.loaded(id: id) }
        await #expect(throws: StoreError.service(.corruptBlob(key: sha256))) { try await damaged.loaded(id: id) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: damaged.scratchDirectory.path).isEmpty)
        // A transfer cut off half-way is the store's failure, not a malformed trace.
        let cut = try await replica(.cutAfter(Int(size / 2)))
        await #expect(throws: StoreError.service(.unavailable(service: "object store (test)", detail: "GET \(sha256): cut off"))) {
            try await cut.loaded(id: id)
        }
    }
}
