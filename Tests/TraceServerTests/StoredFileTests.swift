import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing
@testable import TraceServer

/// Issue 39: embedded `/file` checked the stored file's hash by path, then opened it again to
/// send it, so bytes changed in between went out as the trace. It now opens the file once, checks
/// that descriptor's bytes, and sends from it, hashing again as they go.
@Suite struct StoredFileTests {

    @Test func aFileRenamedOverTheStoredOneAfterTheCheckIsNotWhatGoesOut() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let text = nativeTrace(updates: 30_000, app: "Ledger")  // several chunks
        let (store, id, blob) = try await storeWithUpload(scratch, text)
        #expect(FileManager.default.fileExists(atPath: blob.path))
        let opened = try await store.file(id: id)
        // Between the check and the answer: another file (one byte changed, the size kept) replaces it.
        var other = Data(text.utf8)
        other[other.count / 2] ^= 0x20
        let replacement = blob.deletingLastPathComponent().appendingPathComponent("replacement")
        try other.write(to: replacement)
        #expect(rename(replacement.path, blob.path) == 0)
        let sent = BodyCollector()
        try await fileBody(opened).write(sent)
        #expect(sent.finished && sent.bytes == Data(text.utf8), "the checked bytes, whole")
        // Asked again, the replaced file is refused.
        await #expect(throws: StoreError.fileChanged(id: id)) { _ = try await store.file(id: id) }
    }

    @Test func aFileChangedInPlaceAfterTheCheckIsCutOffBeforeItsEnd() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let text = nativeTrace(updates: 30_000, app: "Ledger")
        let (store, id, blob) = try await storeWithUpload(scratch, text)
        let opened = try await store.file(id: id)
        #expect(opened.size == Int64(text.utf8.count) && opened.size > 256 << 10)
        // The same file, one byte near its end changed through another descriptor.
        let writer = try FileHandle(forUpdating: blob)
        try writer.seek(toOffset: UInt64(text.utf8.count - 10))
        try writer.write(contentsOf: Data("X".utf8))
        try writer.close()
        let sent = BodyCollector()
        await #expect(throws: APIError.self) { try await fileBody(opened).write(sent) }
        #expect(!sent.finished && sent.bytes.count < text.utf8.count, "\(sent.bytes.count) of \(text.utf8.count) bytes sent, never the end")
    }
}

/// Keeps what a response body writes, and whether it finished.
private final class BodyCollector: ResponseBodyWriter, Sendable {
    private let state = Mutex((bytes: Data(), finished: false))

    var bytes: Data { state.withLock { $0.bytes } }
    var finished: Bool { state.withLock { $0.finished } }

    func write(_ buffer: ByteBuffer) async throws {
        state.withLock { $0.bytes.append(contentsOf: buffer.readableBytesView) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {
        state.withLock { $0.finished = true }
    }
}

/// A store holding one upload of `text` (a native trace): the store, the trace's id and its blob.
func storeWithUpload(_ scratch: Scratch, _ text: String) async throws -> (TraceStore, id: String, blob: URL) {
    let store = try await TraceStore.open(
        .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30), logger: Logger(label: "test")
    )
    let file = try IncomingFile(in: store.incomingDirectory)
    try file.write(ByteBuffer(string: text))
    let sha256 = try file.finish()
    let added = try await store.add(ReceivedUpload(file: file.url, id: String(sha256.prefix(32)), sha256: sha256, size: file.written, name: "ledger.json"))
    return (store, added.record.id, scratch.dataDirectory.appendingPathComponent("blobs/\(sha256)"))
}
