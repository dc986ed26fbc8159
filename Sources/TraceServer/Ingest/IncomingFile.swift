import Crypto
import Foundation
import NIOCore
import TraceFormats
import TraceStorage

/// An upload being written to the store's incoming directory under a random name, hashed as it
/// is written, and read by the importer as it grows (`growth`). Plain system calls, so a failure
/// keeps its errno (`SystemFailure`), and the file descriptor is closed exactly once.
final class IncomingFile {
    let url: URL
    /// Tells a reader following the file how far it is written, and whether it is whole.
    let growth = GrowingFile()
    /// The blob store's copy being sent while the file is written (team mode), if any.
    var streamed: StreamedBlob?
    private var descriptor: Int32
    private var hasher = SHA256()
    private(set) var written: Int64 = 0
    /// Bytes already handed to the disk's writeback (`DurableFiles.startWriteback`).
    private var writebackStarted: Int64 = 0
    /// A local blob is synced right after the last byte: the bytes before it are sent to the
    /// disk while the rest arrives, in steps of this, so that sync waits for the last step only.
    static let writebackStep: Int64 = 8 << 20

    init(in directory: URL) throws(SystemFailure) {
        url = directory.appendingPathComponent("\(RandomName.make()).part")
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .lastError("create an incoming upload file") }
    }

    deinit {
        if descriptor >= 0 {
            growth.abandon()
            streamed?.abandon()
            close(descriptor)
        }
    }

    func write(_ buffer: ByteBuffer) throws(SystemFailure) {
        let failure: Int32 = buffer.withUnsafeReadableBytes { bytes in
            hasher.update(bufferPointer: bytes)
            return writeAll(descriptor, bytes)
        }
        guard failure == 0 else { throw SystemFailure(code: failure, action: "write an incoming upload file") }
        written += Int64(buffer.readableBytes)
        growth.grew(to: written)
        streamed?.grew(to: written)
        // A body streamed to the object store (team mode) is never synced here.
        if streamed == nil, written - writebackStarted >= Self.writebackStep {
            DurableFiles.startWriteback(descriptor, offset: writebackStarted, count: written - writebackStarted)
            writebackStarted = written
        }
    }

    /// Closes the file; returns the lowercase hex SHA-256 of what was written (its blob's key;
    /// the first 32 digits are the upload's content id).
    func finish() throws(SystemFailure) -> String {
        let result = close(descriptor)
        descriptor = -1
        guard result == 0 else {
            growth.abandon()
            streamed?.abandon()
            throw .lastError("close an incoming upload file")
        }
        growth.end()
        streamed?.finish(length: written)
        return SigV4.hex(hasher.finalize())
    }

    /// Closes (if still open) and deletes the file.
    func discard() {
        growth.abandon()
        streamed?.abandon()
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(url.path)
    }
}

