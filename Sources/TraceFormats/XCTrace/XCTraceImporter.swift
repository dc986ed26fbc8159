import Foundation
import TraceModel

/// Reads `xctrace export` XML (one table, several concatenated, or a tar bundle of them as
/// `scripts/export-instruments-trace.sh` makes it), plain or gzip-compressed.
public enum XCTraceImporter {
    public static func importTrace(at url: URL, displayName: String, maxBytes: Int64 = .max) throws(TraceFormatError) -> Trace {
        let source = try ByteSource(url: url, displayName: displayName, maxBytes: maxBytes)
        return try importTrace(from: ByteChunks(source), displayName: displayName)
    }

    /// Reads from any byte stream (already decompressed).
    static func importTrace(from chunks: ByteChunks, displayName: String) throws(TraceFormatError) -> Trace {
        let assembler = XCTraceAssembler(metadata: TraceMetadata(name: traceName(displayName), sourceFormat: "xctrace-export"))
        let stream = ByteStream(chunks)
        var location = displayName
        var reader: XCTraceReader?
        do {
            let head = try stream.peek(512)
            if TarArchive.isTarHeader(head) {
                var members = 0
                while let member = try TarArchive.nextMember(in: stream) {
                    // "._x.xml" files are macOS metadata (AppleDouble), not exports.
                    let fileName = member.name.split(separator: "/").last ?? ""
                    guard fileName.hasSuffix(".xml"), !fileName.hasPrefix("._") else {
                        try stream.skip(member.size)
                        try TarArchive.skipPadding(after: member.size, in: stream)
                        continue
                    }
                    members += 1
                    location = "\(displayName)/\(member.name)"
                    reader = XCTraceReader(source: stream.chunks(limit: member.size))
                    try reader!.run(into: assembler)
                    reader = nil
                    location = displayName
                    try TarArchive.skipPadding(after: member.size, in: stream)
                }
                if members == 0 {
                    throw XCTraceValueError(offset: 0, message: "the archive holds no .xml export")
                }
                location = displayName
                reader = nil
            } else {
                guard head.contains(UInt8(ascii: "<")) else {
                    throw XCTraceValueError(offset: 0, message: "not an xctrace export: expected XML or a tar bundle")
                }
                reader = XCTraceReader(source: stream.chunks(limit: .max))
                try reader!.run(into: assembler)
                reader = nil
            }
            return try assembler.finish()
        } catch let error as XMLSyntaxError {
            throw formatError(location, reader, offset: error.offset, table: reader?.schema?.name, field: nil, message: error.message)
        } catch let error as XCTraceValueError {
            throw formatError(location, reader, offset: error.offset, table: error.table, field: error.field, message: error.message)
        } catch let error as TraceFormatError {
            throw error
        } catch {
            throw TraceFormatError(file: location, line: 1, column: 1, message: "cannot read the file: \(error)")
        }
    }

    private static func formatError(
        _ file: String, _ reader: XCTraceReader?, offset: Int, table: String?, field: String?, message: String
    ) -> TraceFormatError {
        let (line, column) = reader?.tokenizer.location(ofOffset: offset) ?? (1, 1)
        return TraceFormatError(file: file, line: line, column: column, table: table, field: field, message: message)
    }

    /// "Run.xctrace.tar.gz" -> "Run", "swiftui-updates.xml" -> "swiftui-updates".
    static func traceName(_ displayName: String) -> String {
        var name = (displayName as NSString).lastPathComponent
        for suffix in [".gz", ".tgz", ".tar", ".xml", ".xctrace"] where name.lowercased().hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        return name.isEmpty ? displayName : name
    }
}

extension ByteChunks {
    /// A file's bytes, gunzipped on the way when it is compressed.
    init(_ source: ByteSource) {
        self.init { chunk in
            chunk.removeAll(keepingCapacity: true)
            return try source.read(into: &chunk)
        }
    }
}

/// Buffered reads over chunks: exact-length reads for tar headers, and limited sub-streams
/// for tar members.
final class ByteStream {
    private let source: ByteChunks
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var ended = false

    init(_ source: ByteChunks) { self.source = source }

    private var available: Int { pending.count - pendingStart }

    private func fill(_ count: Int) throws {
        while available < count, !ended {
            var chunk: [UInt8] = []
            if try source.next(&chunk) {
                if pendingStart > 0 {
                    pending.removeFirst(pendingStart)
                    pendingStart = 0
                }
                pending.append(contentsOf: chunk)
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
        defer { pendingStart += count }
        return Array(pending[pendingStart..<(pendingStart + count)])
    }

    func skip(_ count: Int) throws {
        var left = count
        while left > 0 {
            try fill(1)
            guard available > 0 else { throw XCTraceValueError(offset: 0, message: "the archive ends inside a member") }
            let step = min(left, available)
            pendingStart += step
            left -= step
        }
    }

    /// The next `limit` bytes as chunks (the rest of the stream when `limit` is `.max`).
    func chunks(limit: Int) -> ByteChunks {
        var left = limit
        return ByteChunks { [self] chunk in
            guard left > 0 else { return false }
            if available == 0 {
                pending.removeAll(keepingCapacity: true)
                pendingStart = 0
                try fill(1)
            }
            guard available > 0 else {
                if limit != .max { throw XCTraceValueError(offset: 0, message: "the archive ends inside a member") }
                return false
            }
            let step = min(left, available)
            chunk = Array(pending[pendingStart..<(pendingStart + step)])
            pendingStart += step
            if limit != .max { left -= step }
            return true
        }
    }
}

/// The ustar subset `tar czf` writes: 512-byte headers, sizes in octal, GNU long names.
enum TarArchive {
    struct Member {
        var name: String
        var size: Int
    }

    static func isTarHeader(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 512 && Array(bytes[257..<262]) == Array("ustar".utf8)
    }

    static func nextMember(in stream: ByteStream) throws -> Member? {
        var longName: String?
        while true {
            guard let header = try stream.read(512) else { return nil }
            if header.allSatisfy({ $0 == 0 }) { return nil }
            guard isTarHeader(header) else { throw XCTraceValueError(offset: 0, message: "a damaged tar header") }
            let size = octal(header[124..<136])
            let type = header[156]
            var name = text(header[0..<100])
            let prefix = text(header[345..<500])
            if !prefix.isEmpty { name = prefix + "/" + name }
            if type == UInt8(ascii: "L") {
                // GNU long name: the next member's name is this member's content.
                guard size <= 64 << 10 else { throw XCTraceValueError(offset: 0, message: "a damaged tar header (a file name of \(size) bytes)") }
                guard let content = try stream.read(size) else { return nil }
                try skipPadding(after: size, in: stream)
                longName = text(content[...])
                continue
            }
            if let longName { name = longName }
            longName = nil
            if type == UInt8(ascii: "0") || type == 0 {
                return Member(name: name, size: size)
            }
            try stream.skip(size)
            try skipPadding(after: size, in: stream)
        }
    }

    static func skipPadding(after size: Int, in stream: ByteStream) throws {
        let padding = (512 - size % 512) % 512
        if padding > 0 { try stream.skip(padding) }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func octal(_ bytes: ArraySlice<UInt8>) -> Int {
        var value = 0
        for byte in bytes where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "7") {
            value = value * 8 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// A ustar archive of the given files (what the export script packs), for the exporter and tests.
    static func archive(_ files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for file in files {
            out += header(name: file.name, size: file.bytes.count)
            out += file.bytes
            out += [UInt8](repeating: 0, count: (512 - file.bytes.count % 512) % 512)
        }
        out += [UInt8](repeating: 0, count: 1024)
        return out
    }

    static func header(name: String, size: Int) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) {
            for (i, byte) in text.utf8.enumerated() { header[offset + i] = byte }
        }
        put(String(name.prefix(99)), at: 0)
        put("0000644", at: 100)
        put("0000000", at: 108)
        put("0000000", at: 116)
        put(String(String(size, radix: 8).leftPadded(to: 11)), at: 124)
        put("00000000000", at: 136)
        header[156] = UInt8(ascii: "0")
        put("ustar", at: 257)
        put("00", at: 263)
        put("        ", at: 148)
        let checksum = header.reduce(0) { $0 + Int($1) }
        put(String(String(checksum, radix: 8).leftPadded(to: 6)), at: 148)
        header[154] = 0
        header[155] = UInt8(ascii: " ")
        return header
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
