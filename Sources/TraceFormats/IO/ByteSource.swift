import CompressNIO
import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.pread
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.pread
#endif

/// Reads a file in chunks, gunzipping it on the fly when it starts with the gzip magic, so a
/// reader's memory does not grow with the file. Readers decide what the bytes are; this only
/// delivers them.
public final class ByteSource {
    /// The name errors use (the uploaded file name, not the temp path).
    public let displayName: String
    /// True when the file is gzip-compressed (its bytes are delivered decompressed).
    public let isGzip: Bool
    /// Decompressed bytes delivered so far.
    public private(set) var bytesDelivered = 0

    private let descriptor: Int32
    /// Where plain reads land before they are appended to the caller's buffer.
    private let scratch: UnsafeMutableRawPointer
    private let chunkSize: Int
    private var decompressor: ZlibDecompressor?
    /// Compressed bytes read from disk and not yet inflated.
    private var compressed: ByteBuffer
    private var inflated: ByteBuffer
    private var fileAtEnd = false
    private var gzipMemberEnded = false
    /// Most (decompressed) bytes delivered before reading fails: a small gzip file can inflate
    /// a thousandfold, and the model built from it grows with what it inflates to.
    private let maxBytes: Int64
    /// Set while the file is still being written: its end is waited for, not taken as the end.
    private let growth: GrowingFile?
    /// Bytes read from the file so far (compressed ones for gzip): where the next read starts
    /// (reads name their offset, so sources of one opened file never move each other).
    private var fileOffset: Int64 = 0
    private let observer: (any ReadObserver)?

    /// - Parameter growth: the file is still being written (an upload arriving); reads wait for it.
    /// - Parameter observer: sees each run of the file's bytes as they are read, in order.
    public init(
        url: URL, displayName: String? = nil, chunkSize: Int = 1 << 20, maxBytes: Int64 = .max, growth: GrowingFile? = nil,
        observer: (any ReadObserver)? = nil
    ) throws(TraceFormatError) {
        let name = displayName ?? url.lastPathComponent
        self.displayName = name
        self.growth = growth
        self.observer = observer
        self.chunkSize = max(chunkSize, 1)
        self.maxBytes = maxBytes
        let fd = open(url.path, O_RDONLY)
        if fd < 0 {
            let code = errno
            throw TraceFormatError(file: name, line: 1, column: 1, message: "cannot open file: \(String(cString: strerror(code)))", systemError: code)
        }
        descriptor = fd
        scratch = .allocate(byteCount: self.chunkSize, alignment: 16)
        compressed = ByteBuffer()
        inflated = ByteBuffer()
        var magic = [UInt8](repeating: 0, count: 2)
        // The gzip magic decides how the file is read: wait for it to arrive.
        if let growth {
            do { _ = try growth.waitForBytes(beyond: 1, displayName: name) } catch {
                close(fd)
                scratch.deallocate()
                throw error
            }
        }
        let count = magic.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 2, 0) }
        isGzip = count == 2 && magic[0] == 0x1f && magic[1] == 0x8b
        if isGzip {
            do {
                decompressor = try ZlibDecompressor(algorithm: .gzip)
            } catch {
                // Every stored property is set, so deinit runs and closes the file.
                throw TraceFormatError(file: name, line: 1, column: 1, message: "cannot start gzip decompression: \(error)")
            }
            compressed = ByteBufferAllocator().buffer(capacity: self.chunkSize)
            inflated = ByteBufferAllocator().buffer(capacity: self.chunkSize)
        }
    }

    deinit {
        close(descriptor)
        scratch.deallocate()
    }

    /// Appends the next chunk of (decompressed) bytes to `buffer`; false when the file has ended.
    public func read(into buffer: inout [UInt8]) throws(TraceFormatError) -> Bool {
        let added = isGzip ? try readInflated(into: &buffer) : try readPlain(into: &buffer)
        try countDelivered(added)
        return added > 0
    }

    /// Replaces `buffer` with the next chunk of (decompressed) bytes; false when the file has
    /// ended. A plain file is read straight into the buffer's storage, not through `scratch`: a
    /// buffer handed back by the reader keeps its length, so no byte is copied or zeroed twice.
    public func readChunk(into buffer: inout [UInt8]) throws(TraceFormatError) -> Bool {
        guard !isGzip else {
            buffer.removeAll(keepingCapacity: true)
            return try read(into: &buffer)
        }
        if buffer.count < chunkSize { buffer.append(contentsOf: repeatElement(0, count: chunkSize - buffer.count)) }
        let read = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(TraceFormatError) in try readPlain(into: bytes.baseAddress!, capacity: chunkSize) }
        }
        let added = try read.get()
        buffer.removeLast(buffer.count - added)
        try countDelivered(added)
        return added > 0
    }

    private func countDelivered(_ added: Int) throws(TraceFormatError) {
        bytesDelivered += added
        if Int64(bytesDelivered) > maxBytes {
            let limit = maxBytes >= 1 << 20 ? "\(maxBytes >> 20) MB" : "\(maxBytes >> 10) KB"
            throw TraceFormatError(file: displayName, line: 1, column: 1, message: isGzip
                ? "decompresses to more than \(limit), the most this server reads of one trace"
                : "is larger than \(limit), the most this server reads of one trace")
        }
    }

    private func readPlain(into buffer: inout [UInt8]) throws(TraceFormatError) -> Int {
        let total = try readPlain(into: scratch, capacity: chunkSize)
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: total))
        return total
    }

    /// Up to `capacity` bytes of the file into `destination` (fewer only at its current end).
    private func readPlain(into destination: UnsafeMutableRawPointer, capacity: Int) throws(TraceFormatError) -> Int {
        var total = 0
        while total < capacity {
            let n = systemRead(descriptor, destination + total, capacity - total, off_t(fileOffset))
            if n < 0 {
                if errno == EINTR { continue }
                throw readError(errno)
            }
            fileOffset += Int64(n)
            if n > 0 { observer?.read(UnsafeRawBufferPointer(start: destination + total, count: n)) }
            if n == 0 {
                // A file still arriving: hand on what there is, else wait for more.
                guard total == 0, let growth, try growth.waitForBytes(beyond: fileOffset, displayName: displayName) else { break }
                continue
            }
            total += n
        }
        return total
    }

    /// Fills `compressed` from the file when it is empty; false at the end of the file.
    private func refillCompressed() throws(TraceFormatError) -> Bool {
        if compressed.readableBytes > 0 { return true }
        if fileAtEnd { return false }
        compressed.clear()
        while true {
            var failure: Int32 = 0
            let offset = fileOffset
            let n = compressed.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { raw in
                while true {
                    let n = systemRead(descriptor, raw.baseAddress, raw.count, off_t(offset))
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno; return 0 }
                    if n > 0 { observer?.read(UnsafeRawBufferPointer(rebasing: raw[..<n])) }
                    return n
                }
            }
            if failure != 0 { throw readError(failure) }
            fileOffset += Int64(n)
            // A file still arriving: wait for more before calling this its end.
            if n == 0, let growth, try growth.waitForBytes(beyond: fileOffset, displayName: displayName) { continue }
            if n == 0 { fileAtEnd = true }
            return n > 0
        }
    }

    private func readInflated(into buffer: inout [UInt8]) throws(TraceFormatError) -> Int {
        guard let decompressor else { return 0 }
        inflated.clear()
        while inflated.readableBytes == 0 {
            guard try refillCompressed() else {
                if !gzipMemberEnded {
                    // Data ran out inside a gzip member: the file was cut short.
                    throw gzipError("the gzip stream is truncated")
                }
                return 0
            }
            if gzipMemberEnded {
                // Concatenated gzip members form one stream (what `cat a.gz b.gz` makes).
                do { try decompressor.reset() } catch { throw gzipError("\(error)") }
                gzipMemberEnded = false
            }
            var returnedWithoutError = false
            do {
                try decompressor.inflate(from: &compressed, to: &inflated)
                returnedWithoutError = true
            } catch let error as CompressNIOError where error == .bufferOverflow {
                // Output chunk is full; the rest stays in `compressed` for the next call.
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                // Needs more input than this chunk had; the loop reads more.
            } catch let error as CompressNIOError where error == .corruptData {
                throw gzipError("the gzip data is corrupt")
            } catch {
                throw gzipError("gzip: \(error)")
            }
            if returnedWithoutError {
                // Input left over means the member ended before the chunk did.
                gzipMemberEnded = compressed.readableBytes > 0 ? true : try memberEndedAfterConsumingAllInput()
            }
        }
        let count = inflated.readableBytes
        inflated.withUnsafeReadableBytes { buffer.append(contentsOf: $0) }
        return count
    }

    /// zlib reports "member ended" and "needs more input" alike when an inflate call used up
    /// its input exactly. With more file data the next inflate call tells (an ended member
    /// takes none of it); at the end of the file a probe tells.
    private func memberEndedAfterConsumingAllInput() throws(TraceFormatError) -> Bool {
        if try refillCompressed() { return false }
        return probeEnded()
    }

    /// Probes whether the current member has ended by offering zlib a single byte: at the end
    /// of a member it takes nothing.
    private func probeEnded() -> Bool {
        guard let decompressor else { return true }
        var probe = ByteBufferAllocator().buffer(capacity: 1)
        probe.writeInteger(UInt8(0x1f))
        var sink = ByteBufferAllocator().buffer(capacity: 64)
        do {
            try decompressor.inflate(from: &probe, to: &sink)
        } catch {
            return false
        }
        return probe.readableBytes == 1 && sink.readableBytes == 0
    }

    private func readError(_ code: Int32) -> TraceFormatError {
        TraceFormatError(file: displayName, line: 1, column: 1, message: "cannot read file: \(String(cString: strerror(code)))", systemError: code)
    }

    private func gzipError(_ message: String) -> TraceFormatError {
        TraceFormatError(file: displayName, line: 1, column: 1, message: message)
    }
}
