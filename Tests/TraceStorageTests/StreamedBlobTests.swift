import Foundation
import Testing
@testable import TraceStorage

/// A blob sent to a real SeaweedFS (scripts/team-up.sh) while its file is still being written:
/// S3 multipart upload in parts read back from the growing file.
struct StreamedBlobTests {
    static let partBytes = 5 << 20

    /// Bytes no two runs share, in 1 MB chunks of a pattern that differs per chunk.
    static func chunk(_ index: Int, seed: UInt64) -> Data {
        var state = seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        for position in stride(from: 0, to: bytes.count, by: 8) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            withUnsafeBytes(of: state.bigEndian) { word in
                for offset in 0..<8 { bytes[position + offset] = word[offset] }
            }
        }
        return Data(bytes)
    }

    /// Writes `megabytes` MB (plus `tail` bytes) to a new file, telling `streamed` as it grows.
    static func write(megabytes: Int, tail: Int, to streamed: (URL) -> StreamedBlob) throws -> (StreamedBlob, URL, Data) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let blob = streamed(url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var all = Data()
        let seed = UInt64.random(in: 1...UInt64.max)
        for index in 0..<megabytes {
            let data = chunk(index, seed: seed)
            try handle.write(contentsOf: data)
            all.append(data)
            blob.grew(to: Int64(all.count))
        }
        let last = chunk(megabytes, seed: seed).prefix(tail)
        try handle.write(contentsOf: last)
        all.append(last)
        return (blob, url, all)
    }

    @Test func aBodyOfSeveralPartsRoundTripsByteExact() async throws {
        let store = try TeamEngines.blobStore(partBytes: Self.partBytes)
        // 5 whole parts and a short last one.
        let (streamed, file, content) = try Self.write(megabytes: 26, tail: 12_345) { StreamedBlob(store: store, file: $0, logger: TeamEngines.logger) }
        defer { try? FileManager.default.removeItem(at: file) }
        // Nothing is visible under the key before the upload completes.
        #expect(try await store.exists(key: streamed.key) == false)
        streamed.finish(length: Int64(content.count))
        try await streamed.complete()
        #expect(try await store.pendingUploads().contains { $0.key == streamed.key } == false)
        let (sha256, size) = try sha256OfFile(file)
        #expect(size == Int64(content.count))
        let fetched = try await store.localFile(key: streamed.key, sha256: sha256, scratch: FileManager.default.temporaryDirectory)
        defer { try? FileManager.default.removeItem(at: fetched.url) }
        #expect(try Data(contentsOf: fetched.url) == content)
        #expect(try await store.list().contains { $0.key == streamed.key && $0.size == size })
        // Read back against another hash, the same bytes are refused.
        await #expect(throws: StorageError.corruptBlob(key: streamed.key)) {
            try await store.localFile(key: streamed.key, sha256: String(repeating: "0", count: 64), scratch: FileManager.default.temporaryDirectory)
        }
        try await store.delete(key: streamed.key)
        #expect(try await store.exists(key: streamed.key) == false)
    }

    @Test func uploadsAtOnceShareTheStoresPartBuffersAndAllComplete() async throws {
        // One buffer for two uploads of several parts each: they take turns, neither waits for ever.
        let store = try TeamEngines.blobStore(partBytes: Self.partBytes, partBuffers: 1)
        let first = try Self.write(megabytes: 16, tail: 100) { StreamedBlob(store: store, file: $0, logger: TeamEngines.logger) }
        let second = try Self.write(megabytes: 16, tail: 200) { StreamedBlob(store: store, file: $0, logger: TeamEngines.logger) }
        defer { for file in [first.1, second.1] { try? FileManager.default.removeItem(at: file) } }
        for (streamed, _, content) in [first, second] { streamed.finish(length: Int64(content.count)) }
        try await first.0.complete()
        try await second.0.complete()
        #expect(store.partBuffers.peakInUse == 1)
        for (streamed, file, _) in [first, second] {
            let (sha256, size) = try sha256OfFile(file)
            #expect(try await store.list().contains { $0.key == streamed.key && $0.size == size })
            let fetched = try await store.localFile(key: streamed.key, sha256: sha256, scratch: FileManager.default.temporaryDirectory)
            try? FileManager.default.removeItem(at: fetched.url)
            try await store.delete(key: streamed.key)
        }
    }

    @Test func aFileAbandonedMidStreamLeavesNoObjectAndNoUpload() async throws {
        let store = try TeamEngines.blobStore(partBytes: Self.partBytes)
        let (streamed, file, _) = try Self.write(megabytes: 12, tail: 0) { StreamedBlob(store: store, file: $0, logger: TeamEngines.logger) }
        defer { try? FileManager.default.removeItem(at: file) }
        streamed.abandon()
        await #expect(throws: (any Error).self) { try await streamed.partsSent() }
        await streamed.abort()
        #expect(try await store.pendingUploads().contains { $0.key == streamed.key } == false)
        #expect(try await store.exists(key: streamed.key) == false)
        // Aborting again, or completing after the abort, stores nothing.
        await streamed.abort()
        await #expect(throws: (any Error).self) { try await streamed.complete() }
        #expect(try await store.exists(key: streamed.key) == false)
    }

    @Test func aPartIsExactlyItsRegionOfTheFileAndARegionPastItsEndFailsAtOnce() async throws {
        let store = try TeamEngines.blobStore(partBytes: Self.partBytes)
        let directory = FileManager.default.temporaryDirectory
        let file = directory.appendingPathComponent("region-\(UUID().uuidString)")
        let middle = directory.appendingPathComponent("region-middle-\(UUID().uuidString)")
        defer { for url in [file, middle] { try? FileManager.default.removeItem(at: url) } }
        let seed = UInt64.random(in: 1...UInt64.max)
        try (0..<3).map { Self.chunk($0, seed: seed) }.reduce(Data(), +).write(to: file)
        try Self.chunk(1, seed: seed).write(to: middle)
        let key = makeStreamedBlobKey()
        let uploadID = try await store.createMultipartUpload(key: key)
        // Sent from the file (sendfile over plain HTTP), a region reaching past the end would send
        // nothing and stall until the deadline: it is refused before anything is sent.
        let started = ContinuousClock.now
        await #expect(throws: SystemFailure.self) {
            try await store.uploadPart(key: key, uploadID: uploadID, number: 1, file: file, offset: 2 << 20, length: 2 << 20)
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        // The second megabyte alone: the blob holds those bytes, verified by their hash.
        let tag = try await store.uploadPart(key: key, uploadID: uploadID, number: 1, file: file, offset: 1 << 20, length: 1 << 20)
        try await store.completeMultipartUpload(key: key, uploadID: uploadID, partTags: [tag])
        let (sha256, _) = try sha256OfFile(middle)
        let fetched = try await store.localFile(key: key, sha256: sha256, scratch: directory)
        defer { try? FileManager.default.removeItem(at: fetched.url) }
        #expect(try Data(contentsOf: fetched.url) == Self.chunk(1, seed: seed))
        try await store.delete(key: key)
    }

    @Test func anUploadWhoseProcessDiedIsListedForTheSweep() async throws {
        let store = try TeamEngines.blobStore(partBytes: Self.partBytes)
        let key = makeStreamedBlobKey()
        let uploadID = try await store.createMultipartUpload(key: key)
        _ = try await store.uploadPart(key: key, uploadID: uploadID, number: 1, bytes: .init(bytes: Self.chunk(0, seed: 7)))
        let pending = try await store.pendingUploads().filter { $0.key == key }
        #expect(pending.map(\.uploadID) == [uploadID])
        #expect(pending.first.map { abs($0.initiated.timeIntervalSinceNow) < 300 } == true)
        try await store.abortMultipartUpload(key: key, uploadID: uploadID)
        #expect(try await store.pendingUploads().contains { $0.key == key } == false)
        #expect(try await store.exists(key: key) == false)
    }

    @Test func streamedKeysAreBlobKeysThatCannotWalkAPath() {
        let key = makeStreamedBlobKey()
        #expect(isBlobKey(key) && isStreamedBlobKey(key))
        #expect(!isStreamedBlobKey(String(repeating: "a", count: 64)) && isBlobKey(String(repeating: "a", count: 64)))
        #expect(!isBlobKey("up-../../etc/passwd-0000000000000"))
        #expect(!isBlobKey("up-" + String(repeating: "A", count: 32)))
    }
}
