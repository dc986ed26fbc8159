import Foundation

/// The ustar subset `tar czf` writes: 512-byte headers, sizes in octal, and the two ways long
/// names are written: GNU `L` members and pax `x` extended headers (`path`, `size`), as GNU tar
/// --format=pax, bsdtar and Python's tarfile write them.
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
        var sizeOverride: Int?
        while true {
            guard let header = try stream.read(512) else { return nil }
            if header.allSatisfy({ $0 == 0 }) { return nil }
            guard isTarHeader(header) else { throw XCTraceValueError(offset: 0, message: "a damaged tar header") }
            let size = octal(header[124..<136])
            let type = header[156]
            var name = text(header[0..<100])
            let prefix = text(header[345..<500])
            if !prefix.isEmpty { name = prefix + "/" + name }
            if type == UInt8(ascii: "L") || type == UInt8(ascii: "x") {
                // The next member's name: a GNU long name is this member's content; a pax
                // extended header holds "LENGTH key=value\n" records.
                guard size <= 64 << 10 else { throw XCTraceValueError(offset: 0, message: "a damaged tar header (an extended header of \(size) bytes)") }
                guard let content = try stream.read(size) else { return nil }
                try skipPadding(after: size, in: stream)
                if type == UInt8(ascii: "L") {
                    longName = text(content[...])
                } else {
                    let records = paxRecords(content)
                    if let path = records["path"] { longName = path }
                    if let text = records["size"], let value = Int(text), value >= 0 { sizeOverride = value }
                }
                continue
            }
            if let longName { name = longName }
            longName = nil
            let memberSize = sizeOverride ?? size
            sizeOverride = nil
            if type == UInt8(ascii: "0") || type == 0 {
                return Member(name: name, size: memberSize)
            }
            try stream.skip(memberSize)
            try skipPadding(after: memberSize, in: stream)
        }
    }

    /// pax records: "LENGTH key=value\n", LENGTH counting the whole record in bytes.
    static func paxRecords(_ content: [UInt8]) -> [String: String] {
        var records: [String: String] = [:]
        var start = 0
        while start < content.count {
            guard let space = content[start...].firstIndex(of: UInt8(ascii: " ")),
                  let length = Int(String(decoding: content[start..<space], as: UTF8.self)), length > 0,
                  start + length <= content.count
            else { break }
            let record = content[(space + 1)..<(start + length)]
            if let equals = record.firstIndex(of: UInt8(ascii: "=")) {
                let key = String(decoding: record[record.startIndex..<equals], as: UTF8.self)
                let value = String(decoding: record[(equals + 1)...].dropLast(record.last == 0x0A ? 1 : 0), as: UTF8.self)
                records[key] = value
            }
            start += length
        }
        return records
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

    static func header(name: String, size: Int, type: UInt8 = UInt8(ascii: "0")) -> [UInt8] {
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
        header[156] = type
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
