import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
@testable import TraceServer
import TraceStorage

/// The sweep aborts only streamed uploads nobody is sending any more (issue 39: a live upload
/// slower than the grace period was aborted under its sender, who got a 502 after 152 s).
@Suite struct SweepLiveUploadTests {
    /// An object store in memory whose multipart uploads all began an hour ago (longer than any grace here).
    final class SlowClockBlobs: StreamingBlobStore {
        let files: FileBlobStore
        let partBytes = 64 << 10
        let partBuffers = PartBuffers(count: 2, bytes: 64 << 10)
        private let uploads = Mutex<[String: (key: String, parts: [Int: Data])]>([:])
        /// When each upload's newest part arrived (as ListParts tells); a test may age one.
        let lastPart = Mutex<[String: Date]>([:])
        let aborted = Mutex<[String]>([])
        var serviceName: String { "object store" }

        init(directory: URL) throws { files = try FileBlobStore(directory: directory) }

        func put(key: String, file: URL, size: Int64) async throws -> Bool { try await files.put(key: key, file: file, size: size) }
        func localFile(key: String, sha256: String, scratch: URL) async throws -> BlobFile {
            try await files.localFile(key: key, sha256: sha256, scratch: scratch)
        }
        func delete(key: String) async throws { try await files.delete(key: key) }
        func list() async throws -> [StoredBlob] { try await files.list() }
        func check() async throws {}

        func createMultipartUpload(key: String) async throws -> String {
            let id = UUID().uuidString
            uploads.withLock { $0[id] = (key, [:]) }
            return id
        }
        func uploadPart(key: String, uploadID: String, number: Int, bytes: ByteBuffer) async throws -> String {
            try uploads.withLock { uploads throws in
                guard uploads[uploadID] != nil else { throw CancellationError() }
                uploads[uploadID]?.parts[number] = Data(bytes.readableBytesView)
            }
            lastPart.withLock { $0[uploadID] = Date() }
            return "part-\(number)"
        }
        func completeMultipartUpload(key: String, uploadID: String, partTags: [String]) async throws {
            guard let upload = uploads.withLock({ $0.removeValue(forKey: uploadID) }) else { throw CancellationError() }
            let whole = upload.parts.sorted { $0.key < $1.key }.reduce(into: Data()) { $0 += $1.value }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("part-\(UUID().uuidString)")
            try whole.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await files.put(key: key, file: file, size: Int64(whole.count))
        }
        func abortMultipartUpload(key: String, uploadID: String) async throws {
            guard uploads.withLock({ $0.removeValue(forKey: uploadID) }) != nil else { return }
            aborted.withLock { $0.append(key) }
        }
        func pendingUploads() async throws -> [PendingUpload] {
            uploads.withLock { $0.map { PendingUpload(key: $0.value.key, uploadID: $0.key, initiated: Date() - 3600) } }
        }
        func lastPartUploaded(key: String, uploadID: String) async throws -> Date? {
            lastPart.withLock { $0[uploadID] }
        }
    }

    @Test func aSlowUploadStillArrivingSurvivesTheSweepAndAnAbandonedOneDoesNot() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let blobs = try SlowClockBlobs(directory: scratch.dataDirectory.appendingPathComponent("blobs", isDirectory: true))
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30,
                  storage: .init(catalog: try SQLiteCatalog(file: scratch.dataDirectory.appendingPathComponent("catalog.sqlite")), blobs: blobs, isShared: true),
                  sweepGrace: .seconds(60)),
            logger: Logger(label: "test")
        )
        // A replica died mid-upload: nobody sends its parts any more.
        let dead = makeStreamedBlobKey()
        _ = try await blobs.createMultipartUpload(key: dead)

        // An upload arriving slowly: one part now, the rest after the sweep.
        let file = scratch.dataDirectory.appendingPathComponent("incoming-slow")
        let bytes = Data((0..<(3 * blobs.partBytes + 100)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.prefix(blobs.partBytes).write(to: file)
        let streamed = try #require(store.beginStreamedBlob(file: file, declaredLength: Int64(bytes.count)))
        streamed.grew(to: Int64(blobs.partBytes))
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !blobs.pendingUploads().contains(where: { $0.key == streamed.key }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }

        #expect(await store.sweepUnnamedBlobs() == 1)
        #expect(blobs.aborted.withLock { $0 } == [dead], "only the abandoned upload is aborted")

        try bytes.write(to: file)
        streamed.finish(length: Int64(bytes.count))
        try await streamed.complete()
        let stored = try await blobs.localFile(key: streamed.key, sha256: "", scratch: scratch.dataDirectory)
        #expect(try Data(contentsOf: stored.url) == bytes, "the slow upload is stored whole")
        // Once it is over, nothing of it is kept from a later sweep.
        #expect(!StreamedBlob.isInProgress(streamed.key))
    }

    @Test func anUploadAnotherReplicaIsStillSendingSurvivesThisReplicasSweep() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let blobs = try SlowClockBlobs(directory: scratch.dataDirectory.appendingPathComponent("blobs", isDirectory: true))
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30,
                  storage: .init(catalog: try SQLiteCatalog(file: scratch.dataDirectory.appendingPathComponent("catalog.sqlite")), blobs: blobs, isShared: true),
                  sweepGrace: .seconds(60)),
            logger: Logger(label: "test")
        )
        // Two uploads begun an hour ago by another replica (nothing of them is in progress here):
        // one sent its last part just now, the other's last part is as old as its start.
        let live = makeStreamedBlobKey(), stalled = makeStreamedBlobKey()
        let liveID = try await blobs.createMultipartUpload(key: live)
        _ = try await blobs.uploadPart(key: live, uploadID: liveID, number: 1, bytes: ByteBuffer(repeating: 7, count: blobs.partBytes))
        let stalledID = try await blobs.createMultipartUpload(key: stalled)
        _ = try await blobs.uploadPart(key: stalled, uploadID: stalledID, number: 1, bytes: ByteBuffer(repeating: 9, count: blobs.partBytes))
        blobs.lastPart.withLock { $0[stalledID] = Date() - 3600 }
        #expect(!StreamedBlob.isInProgress(live) && !StreamedBlob.isInProgress(stalled))

        #expect(await store.sweepUnnamedBlobs() == 1)
        #expect(blobs.aborted.withLock { $0 } == [stalled], "only the upload whose parts stopped is aborted")
        #expect(try await blobs.pendingUploads().map(\.key) == [live])
    }
}
