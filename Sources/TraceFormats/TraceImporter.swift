import Foundation
import TraceModel

/// Reads any supported trace file into the model, choosing the reader by content (not by name).
public enum TraceImporter {
    /// Raised when a reader change makes stored traces read differently; the catalog keeps the
    /// version each upload was read with, so such traces can be found and read again. 2: the
    /// layout updates, downstream cost and hang risks of Instruments 27.
    public static let parserVersion = 3

    /// - Parameters:
    ///   - url: the file on disk (plain or gzip-compressed).
    ///   - displayName: the name errors and the trace's metadata use (the uploaded file name).
    ///   - maxBytes: most bytes read (after decompression) before it fails.
    ///   - run: which recording run of an xctrace export to read (nil: run 1); a native trace is one run.
    ///   - growth: the file is still being written (an upload arriving): it is read as it grows.
    ///   - observer: sees the file's bytes the parse reads, as it reads them (`ReadObserver`).
    public static func importTrace(
        at url: URL, displayName: String, maxBytes: Int64 = .max, run: Int? = nil, growth: GrowingFile? = nil, observer: (any ReadObserver)? = nil
    ) throws(TraceFormatError) -> Trace {
        switch try sniff(url: url, displayName: displayName, growth: growth) {
        case .native:
            if let run, run != 1 {
                throw TraceFormatError(file: displayName, line: 1, column: 1, field: "run", message: "a tracesvc trace holds one run; there is no run \(run)")
            }
            return try NativeTraceReader.read(at: url, displayName: displayName, maxBytes: maxBytes, growth: growth, observer: observer)
        case .xctrace:
            return try XCTraceImporter.importTrace(at: url, displayName: displayName, maxBytes: maxBytes, run: run, growth: growth, observer: observer)
        }
    }

    enum Kind { case native, xctrace }

    /// Looks at the first (decompressed) non-blank byte: `{` is our JSON; anything else goes to
    /// the xctrace importer, which alone tells a tar bundle from XML (or neither).
    static func sniff(url: URL, displayName: String, growth: GrowingFile? = nil) throws(TraceFormatError) -> Kind {
        let source = try ByteSource(url: url, displayName: displayName, chunkSize: 64 << 10, growth: growth)
        var head: [UInt8] = []
        while head.count < 512, try source.read(into: &head) {}
        var index = 0
        // Skip a UTF-8 byte order mark and whitespace.
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        var line = 1
        var column = 1
        while index < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[index]) {
            if head[index] == 0x0A { line += 1; column = 1 } else { column += 1 }
            index += 1
        }
        guard index < head.count else {
            throw TraceFormatError(file: displayName, line: line, column: column, message: "the file is empty")
        }
        return head[index] == UInt8(ascii: "{") ? .native : .xctrace
    }
}
