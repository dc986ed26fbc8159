import Crypto
import Foundation
import Synchronization
import TraceFormats
import TraceModel
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
        try forEachChunk(size) { hasher.update(data: $0) }
        try handle.seek(toOffset: 0)
        return SigV4.hex(hasher.finalize())
    }

    /// Reads `count` bytes from where the file is, in chunks; throws when fewer are there.
    private func forEachChunk(_ count: Int64, _ body: (Data) throws -> Void) throws {
        var remaining = count
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

extension OpenedTraceFile {
    /// The trace these bytes hold, read through this descriptor (whatever the path names by now)
    /// and checked against their hash as the parse reads them, the rest after it: throws `Changed`
    /// when they are not the bytes of `sha256` (changed in place, grown, damaged), also when the
    /// parse failed on them (the change is the news, not the parse error). The bytes are read
    /// once, by the parse: nothing is kept beside the model it builds.
    func importTrace(displayName: String, run: Int?) throws -> Trace {
        let hashing = sha256 == nil ? nil : HashingObserver()
        let parsed: Result<Trace, any Error>
        do {
            parsed = .success(try TraceImporter.importTrace(at: descriptorURL, displayName: displayName, run: run, observer: hashing))
        } catch {
            parsed = .failure(error)
        }
        if let sha256, let hashing, try hashing.finish(hashRest) != sha256 { throw Changed() }
        return try parsed.get()
    }

    /// The file by its descriptor: every read of an import (the sniff, the parse, an error's
    /// line) opens this file, never another renamed over its path.
    var descriptorURL: URL {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/fd/\(handle.fileDescriptor)")
        #else
        URL(fileURLWithPath: "/dev/fd/\(handle.fileDescriptor)")
        #endif
    }

    /// The SHA-256 of the first `size` bytes: the `hashed` ones the parse read (from the start),
    /// then the rest read here; nil when more were read (the file grew: other bytes than stored).
    private func hashRest(_ hasher: inout SHA256, hashed: Int64) throws -> String? {
        guard hashed <= size else { return nil }
        try handle.seek(toOffset: UInt64(hashed))
        try forEachChunk(size - hashed) { hasher.update(data: $0) }
        return SigV4.hex(hasher.finalize())
    }
}

/// Hashes the bytes a parse reads until `finish`: what a reading thread still reads after the
/// parse ended (a read-ahead stopping) built nothing.
private final class HashingObserver: ReadObserver {
    private let state = Mutex((hasher: SHA256(), count: Int64(0), finished: false))

    func read(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { state in
            guard !state.finished else { return }
            state.hasher.update(bufferPointer: bytes)
            state.count += Int64(bytes.count)
        }
    }

    /// Stops hashing; `rest` ends the hash, given the bytes hashed so far and how many they were.
    func finish(_ rest: (inout SHA256, Int64) throws -> String?) throws -> String? {
        try state.withLock { state in
            state.finished = true
            return try rest(&state.hasher, state.count)
        }
    }
}
