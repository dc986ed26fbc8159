import Crypto
import Foundation
import TraceStorage

/// A trace's stored bytes, opened once: the check against their hash reads this descriptor, and
/// so does the answer, so a file renamed over the path in between is never what goes out. A change
/// in place (the same file, other bytes) after the check is caught as the bytes go out: they are
/// hashed again, and the answer is cut off before its end when they differ (a client never sees it
/// complete). Reading the bytes again would cost the same; keeping a copy would cost the disk.
public final class OpenedTraceFile: Sendable {
    private let handle: FileHandle
    /// Bytes to send: the size when opened (bytes appended later are not read).
    public let size: Int64
    /// The SHA-256 the bytes must have (nil: a sample, or a private copy checked as it arrived).
    let sha256: String?
    /// A copy (from the object store) deleted once closed.
    let temporaryURL: URL?

    init(opening url: URL, sha256: String?, isTemporary: Bool) throws {
        handle = try FileHandle(forReadingFrom: url)
        size = Int64(try handle.seekToEnd())
        try handle.seek(toOffset: 0)
        self.sha256 = sha256
        temporaryURL = isTemporary ? url : nil
    }

    /// The SHA-256 of the first `size` bytes, read from the start; leaves the file at its start.
    func hashFromStart() throws -> String {
        try handle.seek(toOffset: 0)
        var hasher = SHA256()
        try forEachChunk { hasher.update(data: $0) }
        try handle.seek(toOffset: 0)
        return SigV4.hex(hasher.finalize())
    }

    /// Reads the first `size` bytes from where the file is, in chunks; throws when fewer are there.
    private func forEachChunk(_ body: (Data) throws -> Void) throws {
        var remaining = size
        while remaining > 0 {
            guard let chunk = try handle.read(upToCount: Int(min(remaining, 256 << 10))), !chunk.isEmpty else { throw Changed() }
            remaining -= Int64(chunk.count)
            try body(chunk)
        }
    }

    /// Calls `send` with each chunk of the bytes, the last one only once they all hashed as they
    /// should: throws `Changed` instead when they did not (or when the file shrank).
    func send(_ send: (Data) async throws -> Void) async throws {
        var hasher = SHA256()
        var remaining = size
        var held: Data?
        while remaining > 0 {
            guard let chunk = try handle.read(upToCount: Int(min(remaining, 256 << 10))), !chunk.isEmpty else { throw Changed() }
            remaining -= Int64(chunk.count)
            hasher.update(data: chunk)
            if let held { try await send(held) }
            held = chunk
        }
        if let sha256, SigV4.hex(hasher.finalize()) != sha256 { throw Changed() }
        if let held { try await send(held) }
    }

    /// Closed (and a copy deleted) when the last reference goes: after the answer, or with it when
    /// it is never sent.
    deinit {
        try? handle.close()
        if let temporaryURL { try? FileManager.default.removeItem(at: temporaryURL) }
    }

    /// The bytes changed while they were being sent.
    struct Changed: Error {}
}
