import Foundation
import Logging
import NIOCore
import Synchronization

/// A blob store that can take a blob while its bytes still arrive (an S3 multipart upload), under
/// a key of its own (`makeStreamedBlobKey`): the content hash is known only at the end.
public protocol StreamingBlobStore: BlobStore {
    /// Bytes of every part but the last; a body of at most this many is not worth streaming.
    var partBytes: Int { get }
    /// The buffers every streamed upload to this store reads its parts into, bounded together.
    var partBuffers: PartBuffers { get }
    /// Starts an upload to `key`; returns its id.
    func createMultipartUpload(key: String) async throws -> String
    /// Sends part `number` (from 1); returns its tag for the completion.
    func uploadPart(key: String, uploadID: String, number: Int, bytes: ByteBuffer) async throws -> String
    /// Sends part `number` of `length` bytes of `file` from `offset`; returns its tag. By default
    /// they are read into a buffer and sent as `bytes`; a store may send them from the file itself.
    func uploadPart(key: String, uploadID: String, number: Int, file: URL, offset: Int64, length: Int) async throws -> String
    /// Makes the blob of the parts, in order; until then nothing is visible under `key`.
    func completeMultipartUpload(key: String, uploadID: String, partTags: [String]) async throws
    /// Drops the parts sent; the blob never appears.
    func abortMultipartUpload(key: String, uploadID: String) async throws
    /// Uploads started and neither completed nor aborted (the sweep aborts old ones).
    func pendingUploads() async throws -> [PendingUpload]
    /// When the upload's newest part arrived (S3 ListParts); nil when it has none, or is gone.
    /// Any replica can tell by it that another replica is still sending an upload.
    func lastPartUploaded(key: String, uploadID: String) async throws -> Date?
}

extension StreamingBlobStore {
    public func uploadPart(key: String, uploadID: String, number: Int, file: URL, offset: Int64, length: Int) async throws -> String {
        try await uploadPart(key: key, uploadID: uploadID, number: number, bytes: readPart(file, offset: offset, length: length))
    }
}

/// `length` bytes of `file` from `offset`, read with pread into one buffer.
func readPart(_ file: URL, offset: Int64, length: Int) throws -> ByteBuffer {
    let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw SystemFailure.lastError("open an incoming upload to send it") }
    defer { close(descriptor) }
    var buffer = ByteBufferAllocator().buffer(capacity: length)
    var done = 0
    while done < length {
        let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length - done) { target -> Int in
            while true {
                let count = pread(descriptor, target.baseAddress!, length - done, off_t(offset + Int64(done)))
                if count >= 0 { return count }
                if errno != EINTR { throw SystemFailure.lastError("read an incoming upload to send it") }
            }
        }
        guard count > 0 else { throw SystemFailure(code: EIO, action: "read an incoming upload to send it: it is shorter than written") }
        done += count
    }
    return buffer
}

public struct PendingUpload: Sendable, Equatable {
    public var key: String
    public var uploadID: String
    public var initiated: Date

    public init(key: String, uploadID: String, initiated: Date) {
        self.key = key
        self.uploadID = uploadID
        self.initiated = initiated
    }
}

/// The part buffers of every streamed upload of the process: a part is read from its file only
/// once it holds one of `count` buffers (of `bytes` each, the store's part size) and gives it back
/// once sent, so parts take at most `totalBytes` of memory however many uploads arrive at once
/// (the trace store reserves that much of its memory budget). Buffers go first come, first served;
/// a holder gives its buffer back within its call's deadline, so a waiter never waits for ever.
public final class PartBuffers: Sendable {
    public let count: Int
    public let bytes: Int
    public var totalBytes: Int { count * bytes }
    private let state: Mutex<State>

    private struct State {
        var free: Int
        var inUse = 0
        var peakInUse = 0
        var nextWaiter = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []

        mutating func take() {
            inUse += 1
            peakInUse = max(peakInUse, inUse)
        }
    }

    public init(count: Int, bytes: Int) {
        precondition(count > 0)
        self.count = count
        self.bytes = bytes
        state = Mutex(State(free: count))
    }

    /// Most buffers held at once so far (tests).
    var peakInUse: Int { state.withLock { $0.peakInUse } }

    /// Waits for a free buffer; throws when cancelled meanwhile.
    func acquire() async throws {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = state.withLock { state -> Bool? in
                    if state.free > 0, state.waiters.isEmpty {
                        state.free -= 1
                        state.take()
                        return true
                    }
                    if Task.isCancelled { return false }
                    state.waiters.append((id, continuation))
                    return nil
                }
                switch granted {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives a buffer back: to the longest waiter, if any.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.inUse -= 1
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            state.take()
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}

/// A file being written (an upload as it arrives) sent to a `StreamingBlobStore` at the same time,
/// in parts of `partBytes` read back from the file as soon as each is on disk: memory holds at
/// most the parts in flight (`partsInFlight`, each in one of the store's `PartBuffers`), whatever
/// the file's size. The writer says how far it wrote
/// (`grew`), then `finish` or `abandon`; the caller then `complete`s or `abort`s. Any failure
/// leaves the upload to `abort` (nothing stored); an upload neither completed nor aborted (the
/// process died) is aborted by the sweep.
public final class StreamedBlob: Sendable {
    /// The key the blob will have once completed.
    public let key: String
    private let store: any StreamingBlobStore
    private let file: URL
    private let logger: Logger
    private let parts: AsyncStream<Step>.Continuation
    private let sending: Task<[String], any Error>
    private let state: Box
    /// Parts sent at the same time: one reads from disk while the other is on the wire.
    static let partsInFlight = 2

    private enum Step: Sendable {
        case part(number: Int, offset: Int64, length: Int)
        case end
    }

    private struct State {
        var nextPartOffset: Int64 = 0
        var nextPartNumber = 1
        var uploadID: String?
        var isAborted = false
        var isCompleted = false
    }

    private final class Box: Sendable {
        let mutex = Mutex(State())
        func withLock<T>(_ body: (inout State) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    /// The keys of this process's streamed uploads that are neither completed, aborted nor dropped:
    /// their bodies may still be arriving however long ago they began, so the sweep leaves them be.
    private static let inProgress = Mutex<Set<String>>([])

    /// Whether `key` is a streamed upload of this process still under way.
    public static func isInProgress(_ key: String) -> Bool {
        inProgress.withLock { $0.contains(key) }
    }

    /// Starts the upload; `file` is the file being written.
    public init(store: any StreamingBlobStore, file: URL, logger: Logger) {
        let key = makeStreamedBlobKey()
        Self.inProgress.withLock { _ = $0.insert(key) }
        self.key = key
        self.store = store
        self.file = file
        self.logger = logger
        let (stream, continuation) = AsyncStream<Step>.makeStream()
        parts = continuation
        let state = Box()
        self.state = state
        sending = Task {
            let uploadID = try await store.createMultipartUpload(key: key)
            state.withLock { $0.uploadID = uploadID }
            let (tags, ended) = try await withThrowingTaskGroup(of: (number: Int, tag: String).self) { group in
                var tags: [(number: Int, tag: String)] = []
                var ended = false
                var running = 0
                for await step in stream {
                    guard case let .part(number, offset, length) = step else {
                        ended = true
                        break
                    }
                    if running == StreamedBlob.partsInFlight, let sent = try await group.next() {
                        tags.append(sent)
                        running -= 1
                    }
                    group.addTask {
                        try await store.partBuffers.acquire()
                        defer { store.partBuffers.release() }
                        return (number, try await store.uploadPart(key: key, uploadID: uploadID, number: number, file: file, offset: offset, length: length))
                    }
                    running += 1
                }
                while let sent = try await group.next() { tags.append(sent) }
                return (tags, ended)
            }
            // The stream ends without `.end` when the file was abandoned or this was cancelled.
            guard ended else { throw CancellationError() }
            return tags.sorted { $0.number < $1.number }.map(\.tag)
        }
    }

    /// The writer has written `length` bytes in all: every whole part among them is sent.
    public func grew(to length: Int64) {
        let partBytes = Int64(store.partBytes)
        state.withLock { state in
            while length - state.nextPartOffset >= partBytes {
                parts.yield(.part(number: state.nextPartNumber, offset: state.nextPartOffset, length: Int(partBytes)))
                state.nextPartOffset += partBytes
                state.nextPartNumber += 1
            }
        }
    }

    /// The file is whole at `length` bytes: the rest is the last part.
    public func finish(length: Int64) {
        grew(to: length)
        state.withLock { state in
            // An upload needs a part: an empty file (fewer bytes than declared) sends an empty one.
            if length > state.nextPartOffset || state.nextPartNumber == 1 {
                parts.yield(.part(number: state.nextPartNumber, offset: state.nextPartOffset, length: Int(length - state.nextPartOffset)))
                state.nextPartOffset = length
                state.nextPartNumber += 1
            }
        }
        parts.yield(.end)
        parts.finish()
    }

    /// The file will never be whole: sending stops (`abort` drops what was sent).
    public func abandon() {
        parts.finish()
    }

    /// Waits until every part is sent; throws what stopped them.
    public func partsSent() async throws {
        _ = try await sending.value
    }

    /// Makes the blob under `key` of the parts sent (after `finish`).
    public func complete() async throws {
        let tags = try await sending.value
        let uploadID = state.withLock { $0.uploadID } ?? ""
        try await store.completeMultipartUpload(key: key, uploadID: uploadID, partTags: tags)
        state.withLock { $0.isCompleted = true }
        Self.inProgress.withLock { _ = $0.remove(key) }
    }

    deinit {
        Self.inProgress.withLock { _ = $0.remove(key) }
    }

    /// Stops sending and drops the parts sent, so nothing is stored (idempotent; a no-op once
    /// completed). Runs apart from the caller's task, so a cancelled caller still aborts; a
    /// failure is logged and left to the sweep.
    public func abort() async {
        abandon()
        // Parts on the wire are cancelled, but not the upload's creation: its id is what the
        // abort needs (it answers within its deadline).
        if state.withLock({ $0.uploadID != nil }) { sending.cancel() }
        _ = try? await sending.value
        let uploadID: String? = state.withLock { state in
            guard !state.isAborted, !state.isCompleted else { return nil }
            state.isAborted = true
            return state.uploadID
        }
        Self.inProgress.withLock { _ = $0.remove(self.key) }
        guard let uploadID else { return }
        let (store, key, logger) = (store, key, logger)
        await Task.detached {
            do {
                try await store.abortMultipartUpload(key: key, uploadID: uploadID)
            } catch {
                logger.warning("object store: cannot abort the upload of \(key) (the sweep will): \(error)")
            }
        }.value
    }
}
