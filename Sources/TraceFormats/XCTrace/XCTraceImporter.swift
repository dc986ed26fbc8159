import Foundation
import TraceModel

/// Reads `xctrace export` XML (one table, several concatenated, or a tar bundle of them as
/// `scripts/export-instruments-trace.sh` makes it), plain or gzip-compressed.
public enum XCTraceImporter {
    /// - Parameter run: the recording run to read when the export holds several; nil reads run 1.
    public static func importTrace(at url: URL, displayName: String, maxBytes: Int64 = .max, run: Int? = nil) throws(TraceFormatError) -> Trace {
        let source = try ByteSource(url: url, displayName: displayName, maxBytes: maxBytes)
        return try importTrace(from: ByteChunks(source), displayName: displayName, run: run)
    }

    /// Reads from any byte stream (already decompressed).
    static func importTrace(from chunks: ByteChunks, displayName: String, run: Int? = nil) throws(TraceFormatError) -> Trace {
        let assembler = XCTraceAssembler(metadata: TraceMetadata(name: traceName(displayName), sourceFormat: "xctrace-export"), run: run)
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
            } else if ZippedRecording.isZip(head) {
                throw XCTraceValueError(offset: 0, message: ZippedRecording.message(head: head, displayName: displayName))
            } else {
                guard head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "<") else {
                    throw XCTraceValueError(
                        offset: 0,
                        message: "not a trace file: expected a tracesvc JSON trace ('{'), `xctrace export` XML ('<') or a tar of XML exports"
                    )
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
