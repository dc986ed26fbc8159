import Foundation
import NIOCore
import Testing
@testable import TraceStorage

/// Every engine against one contract, as Thanos's objstore acceptance test runs one test over
/// every bucket: a catalog is SQLite or PostgreSQL, a blob store files or S3 (SeaweedFS), and
/// the server cannot tell them apart. The team engines come from scripts/team-up.sh
/// (`TeamEngines`: exported by scripts/test.sh, else started here).
enum CatalogEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A fresh, empty catalog of this engine, and what stops it.
    func open(_ name: String) async throws -> (catalog: any Catalog, stop: @Sendable () -> Void) {
        switch self {
        case .sqlite:
            return (try SQLiteCatalog(file: try SQLiteCatalogTests.temporaryFile()), {})
        case .postgres:
            let (catalog, running) = try await PostgresCatalogTests.catalog(try TeamEngines.freshDatabase(name))
            return (catalog, { running.cancel() })
        }
    }
}

/// Not in the deadline run of scripts/test.sh: PostgresCatalogTests stops the shared server there.
@Suite struct CatalogContractTests {
    @Test(arguments: CatalogEngine.allCases) func keepsTheContract(_ engine: CatalogEngine) async throws {
        let (catalog, stop) = try await engine.open("contract")
        defer { stop() }
        try await CatalogContract.check(catalog)
    }

    @Test(arguments: CatalogEngine.allCases) func keepsTagQuotasUnderConcurrentInserts(_ engine: CatalogEngine) async throws {
        let (catalog, stop) = try await engine.open("quota")
        defer { stop() }
        try await TagQuotaContract.check(catalog)
    }

    @Test(arguments: CatalogEngine.allCases) func keepsItsCountsExact(_ engine: CatalogEngine) async throws {
        let (catalog, stop) = try await engine.open("counts")
        defer { stop() }
        try await TraceCountsContract.check(catalog)
    }

    @Test(arguments: CatalogEngine.allCases) func repairsCountsAnOlderReplicaLeftWrong(_ engine: CatalogEngine) async throws {
        let (catalog, stop) = try await engine.open("recount")
        defer { stop() }
        try await TraceCountsContract.checkRecount(catalog)
    }

    @Test(arguments: CatalogEngine.allCases) func foldsEveryLettersCaseInSearches(_ engine: CatalogEngine) async throws {
        let (catalog, stop) = try await engine.open("folding")
        defer { stop() }
        try await CatalogContract.checkUnicodeWords(catalog)
    }

    @Test(arguments: CatalogEngine.allCases) func keepsTheHistoryContract(_ engine: CatalogEngine) async throws {
        let (catalog, stop) = try await engine.open("history")
        defer { stop() }
        try await CatalogHistoryContract.check(catalog)
    }
}

enum BlobEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case files, s3

    var testDescription: String { rawValue }

    /// Deadlines well above the server's: the contract is about answers, not speed, and runs
    /// beside the whole suite on two cores.
    func open() throws -> any BlobStore {
        switch self {
        case .files:
            return try FileBlobStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("blob-contract-\(UUID().uuidString)"))
        case .s3:
            return try TeamEngines.blobStore(timeout: .seconds(30), partBytes: 5 << 20)
        }
    }
}

@Suite struct BlobStoreContractTests {
    static let scratch = FileManager.default.temporaryDirectory

    /// A file of content no other run shares (another app's trace text), with its key.
    static func contentFile(_ text: String) throws -> (url: URL, key: String, size: Int64) {
        let url = scratch.appendingPathComponent("blob-contract-\(UUID().uuidString)")
        try Data("\(text) \(UUID())".utf8).write(to: url)
        let (key, size) = try sha256OfFile(url)
        return (url, key, size)
    }

    @Test(arguments: BlobEngine.allCases) func putIsIdempotentAndAReadGivesTheBytesVerified(_ engine: BlobEngine) async throws {
        let store = try engine.open()
        let (file, key, size) = try Self.contentFile("Pantry's trace")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = Date()

        #expect(try await store.put(key: key, file: file, size: size) == true)
        #expect(try await store.put(key: key, file: file, size: size) == false)
        // The caller's file stays where it was.
        #expect(FileManager.default.fileExists(atPath: file.path))

        let fetched = try await store.localFile(key: key, sha256: key, scratch: Self.scratch)
        #expect(try Data(contentsOf: fetched.url) == Data(contentsOf: file))
        if fetched.isTemporary {
            try FileManager.default.removeItem(at: fetched.url)
            // A copy is checked while it arrives: read against another hash, it is refused.
            await #expect(throws: StorageError.corruptBlob(key: key)) {
                try await store.localFile(key: key, sha256: String(repeating: "0", count: 64), scratch: Self.scratch)
            }
        } else {
            // The stored file itself: the caller checks it against the row's hash before parsing
            // (TraceStore's load); it must hold the content its key names.
            #expect(try sha256OfFile(fetched.url).hex == key)
        }

        // Listed with its size and when it was written (the sweep's grace is counted from it).
        let listed = try await store.list().first { $0.key == key }
        #expect(listed?.size == size)
        #expect(listed.map { abs($0.modified.timeIntervalSince(written)) < 300 } == true)

        try await store.delete(key: key)
        #expect(try await store.list().contains { $0.key == key } == false)
        await #expect(throws: StorageError.missingBlob(key: key)) { try await store.localFile(key: key, sha256: key, scratch: Self.scratch) }
        // Deleting what is not there is not an error (the sweep and a delete may cross).
        try await store.delete(key: key)
        try await store.check()
    }

    /// Files are written whole (an upload arrives on the same disk, and is linked in); S3 takes
    /// an upload in parts while it arrives. Either way: the whole upload completes under its own
    /// key, an abandoned one leaves neither an object nor an unfinished upload.
    @Test(arguments: BlobEngine.allCases) func aStreamedUploadCompletesWholeAndAnAbortedOneLeavesNothing(_ engine: BlobEngine) async throws {
        let store = try engine.open()
        guard let streaming = store as? any StreamingBlobStore else {
            #expect(engine == .files, "\(engine) must take uploads in parts")
            return
        }
        let (completed, file, content) = try StreamedBlobTests.write(megabytes: 11, tail: 777) {
            StreamedBlob(store: streaming, file: $0, logger: TeamEngines.logger)
        }
        defer { try? FileManager.default.removeItem(at: file) }
        completed.finish(length: Int64(content.count))
        try await completed.complete()
        let (sha256, size) = try sha256OfFile(file)
        let fetched = try await store.localFile(key: completed.key, sha256: sha256, scratch: Self.scratch)
        defer { if fetched.isTemporary { try? FileManager.default.removeItem(at: fetched.url) } }
        #expect(try Data(contentsOf: fetched.url) == content)
        #expect(try await store.list().contains { $0.key == completed.key && $0.size == size })
        #expect(try await streaming.pendingUploads().contains { $0.key == completed.key } == false)
        try await store.delete(key: completed.key)

        let (aborted, abortedFile, _) = try StreamedBlobTests.write(megabytes: 6, tail: 0) {
            StreamedBlob(store: streaming, file: $0, logger: TeamEngines.logger)
        }
        defer { try? FileManager.default.removeItem(at: abortedFile) }
        await aborted.abort()
        #expect(try await store.list().contains { $0.key == aborted.key } == false)
        #expect(try await streaming.pendingUploads().contains { $0.key == aborted.key } == false)
    }

    /// The sweep of any replica tells an upload still being sent (by another replica) by its newest part.
    @Test(arguments: BlobEngine.allCases) func anUnfinishedUploadTellsWhenItsLastPartArrived(_ engine: BlobEngine) async throws {
        guard let streaming = try engine.open() as? any StreamingBlobStore else { return }
        let key = makeStreamedBlobKey()
        let id = try await streaming.createMultipartUpload(key: key)
        #expect(try await streaming.lastPartUploaded(key: key, uploadID: id) == nil, "no part yet")
        let before = Date()
        _ = try await streaming.uploadPart(key: key, uploadID: id, number: 1, bytes: ByteBuffer(repeating: 3, count: streaming.partBytes))
        _ = try await streaming.uploadPart(key: key, uploadID: id, number: 2, bytes: ByteBuffer(repeating: 4, count: 1000))
        let last = try #require(try await streaming.lastPartUploaded(key: key, uploadID: id))
        // The store's clock, to the second: within a minute of this one.
        #expect(abs(last.timeIntervalSince(before)) < 60, "\(last) vs \(before)")
        try await streaming.abortMultipartUpload(key: key, uploadID: id)
        #expect(try await streaming.lastPartUploaded(key: key, uploadID: id) == nil, "an aborted upload has no parts")
    }
}
