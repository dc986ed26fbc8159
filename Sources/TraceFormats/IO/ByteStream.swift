import Foundation

/// Where the tokenizer gets its bytes: each call replaces `chunk` with the next bytes and
/// returns false at the end. Lets the same tokenizer read a file, a gunzip stream, a tar
/// member or an in-memory buffer.
struct ByteChunks {
    let next: (inout [UInt8]) throws -> Bool
    /// The same bytes again from the start, when the source can be read twice: an error found
    /// after its bytes have left the buffer is located by counting lines in a second read.
    var restart: (() throws -> ByteChunks)?

    init(next: @escaping (inout [UInt8]) throws -> Bool) {
        self.next = next
    }

    static func memory(_ bytes: [UInt8], chunkSize: Int = 1 << 16) -> ByteChunks {
        var offset = 0
        var chunks = ByteChunks { chunk in
            guard offset < bytes.count else { return false }
            let end = min(bytes.count, offset + chunkSize)
            chunk = Array(bytes[offset..<end])
            offset = end
            return true
        }
        chunks.restart = { .memory(bytes, chunkSize: chunkSize) }
        return chunks
    }
}

extension ByteChunks {
    /// A file's bytes, gunzipped on the way when it is compressed.
    init(_ source: ByteSource) {
        self.init { chunk in try source.readChunk(into: &chunk) }
    }
}

/// Buffered reads over chunks: exact-length reads for tar headers, and limited sub-streams
/// for tar members.
final class ByteStream {
    private let source: ByteChunks
    private var pending: [UInt8] = []
    /// Where the source writes its next chunk; buffers are swapped, not copied or reallocated.
    private var spare: [UInt8] = []
    private var pendingStart = 0
    private var ended = false
    /// Bytes handed out so far (read, skipped or passed on as chunks).
    private(set) var offset = 0

    init(_ source: ByteChunks) { self.source = source }

    private var available: Int { pending.count - pendingStart }

    private func fill(_ count: Int) throws {
        while available < count, !ended {
            if try source.next(&spare) {
                if available == 0 {
                    // Nothing held: take the chunk as it is instead of copying it.
                    swap(&pending, &spare)
                    pendingStart = 0
                    continue
                }
                if pendingStart > 0 {
                    pending.removeFirst(pendingStart)
                    pendingStart = 0
                }
                pending.append(contentsOf: spare)
            } else {
                ended = true
            }
        }
    }

    /// Up to `count` bytes without consuming them.
    func peek(_ count: Int) throws -> [UInt8] {
        try fill(count)
        return Array(pending[pendingStart..<(pendingStart + min(count, available))])
    }

    /// Exactly `count` bytes, or nil at the end of the stream.
    func read(_ count: Int) throws -> [UInt8]? {
        try fill(count)
        guard available >= count else { return nil }
        defer {
            pendingStart += count
            offset += count
        }
        return Array(pending[pendingStart..<(pendingStart + count)])
    }

    func skip(_ count: Int) throws {
        var left = count
        while left > 0 {
            try fill(1)
            guard available > 0 else { throw XCTraceValueError(offset: 0, message: "the archive ends inside a member") }
            let step = min(left, available)
            pendingStart += step
            offset += step
            left -= step
        }
    }

    /// The next `limit` bytes as chunks (the rest of the stream when `limit` is `.max`).
    func chunks(limit: Int) -> ByteChunks {
        var left = limit
        return ByteChunks { [self] chunk in
            guard left > 0 else { return false }
            if available == 0 { try fill(1) }
            guard available > 0 else {
                if limit != .max { throw XCTraceValueError(offset: 0, message: "the archive ends inside a member") }
                return false
            }
            let step = min(left, available)
            if pendingStart == 0, step == pending.count {
                // The whole held chunk goes out: hand it over without copying (and reuse the
                // caller's). The caller's stays whole, all of it read, until the next chunk
                // replaces it: the source then reads into it without clearing or zeroing it.
                swap(&chunk, &pending)
                pendingStart = pending.count
            } else {
                chunk = Array(pending[pendingStart..<(pendingStart + step)])
                pendingStart += step
            }
            if limit != .max { left -= step }
            offset += step
            return true
        }
    }
}
