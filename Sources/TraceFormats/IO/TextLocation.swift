import Foundation

/// A problem found at a byte offset of the (decompressed) text. Readers throw this on their
/// fast path and turn it into a `TraceFormatError` only once, so nothing counts newlines
/// while the file is good.
struct OffsetError: Error {
    var offset: Int
    var message: String
    var field: String?
}

enum TextLocation {
    /// Line and column (1-based; the column counts characters, not bytes) of `offset` in the
    /// decompressed contents of `url`, found by reading the file again up to there.
    static func lineAndColumn(of offset: Int, in url: URL) -> (line: Int, column: Int) {
        guard let source = try? ByteSource(url: url) else { return (1, 1) }
        var line = 1
        var column = 1
        var seen = 0
        var chunk: [UInt8] = []
        while seen < offset {
            chunk.removeAll(keepingCapacity: true)
            guard (try? source.read(into: &chunk)) == true else { break }
            for byte in chunk.prefix(offset - seen) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    // UTF-8 continuation bytes belong to the character before them.
                    column += 1
                }
            }
            seen += chunk.count
        }
        return (line, column)
    }

    static func formatError(_ error: OffsetError, url: URL, displayName: String) -> TraceFormatError {
        let (line, column) = lineAndColumn(of: error.offset, in: url)
        return TraceFormatError(file: displayName, line: line, column: column, field: error.field, message: error.message)
    }
}
