import Foundation
import TraceModel

/// Reads `xctrace export` XML (one table, several concatenated, or a tar bundle of them as
/// `scripts/export-instruments-trace.sh` makes it), plain or gzip-compressed.
public enum XCTraceImporter {
    /// - Parameter run: the recording run to read when the export holds several; nil reads run 1.
    /// - Parameter growth: the file is still being written (an upload arriving): it is read as it grows.
    /// - Parameter observer: sees the file's bytes as they are read (`ReadObserver`); not those read again to locate an error.
    public static func importTrace(
        at url: URL, displayName: String, maxBytes: Int64 = .max, run: Int? = nil, growth: GrowingFile? = nil, observer: (any ReadObserver)? = nil
    ) throws(TraceFormatError) -> Trace {
        let source = try ByteSource(url: url, displayName: displayName, maxBytes: maxBytes, growth: growth, observer: observer)
        // Reading and gunzipping run on their own thread, ahead of the parser.
        var chunks = ByteChunks.readingAhead(source)
        chunks.restart = { ByteChunks(try ByteSource(url: url, displayName: displayName, maxBytes: maxBytes)) }
        return try importTrace(from: chunks, displayName: displayName, run: run)
    }

    /// Reads from any byte stream (already decompressed): the rows are read on a thread of
    /// their own (`XCTraceReadingThread`) while this one assembles them.
    static func importTrace(from chunks: ByteChunks, displayName: String, run: Int? = nil) throws(TraceFormatError) -> Trace {
        let assembler = XCTraceAssembler(metadata: TraceMetadata(name: traceName(displayName), sourceFormat: "xctrace-export"), run: run)
        let pipeline = XCTracePipeline()
        XCTraceReadingThread.start(chunks, displayName: displayName, into: pipeline)
        // However this ends, the reading thread stops and lets go of the input first.
        defer { pipeline.stop() }
        try assemble(from: pipeline, into: assembler, restart: chunks.restart)
        do {
            return try assembler.finish()
        } catch let error as XCTraceValueError {
            throw TraceFormatError(file: displayName, line: 1, column: 1, table: error.table, field: error.field, message: error.message)
        } catch let error as TraceFormatError {
            throw error
        } catch {
            throw TraceFormatError(file: displayName, line: 1, column: 1, message: "cannot read the file: \(error)")
        }
    }

    /// Replays the reader's events into the assembler, in order.
    private static func assemble(
        from pipeline: XCTracePipeline, into assembler: XCTraceAssembler, restart: (() throws -> ByteChunks)?
    ) throws(TraceFormatError) {
        let values = assembler.values
        var document = XCTraceDocument(location: "", start: 0)
        var used: XCTraceRowBatch?
        do {
            while let next = try pipeline.next(recycling: consume used) {
                used = values.swapBatch(next)
                for event in values.batch.events {
                    switch event {
                    case let .document(started, kept):
                        document = started
                        values.beginDocument(kept: kept)
                        assembler.beginDocument()
                    case let .node(kept):
                        values.beginNode(kept: kept)
                    case let .tableOfContents(toc):
                        assembler.tableOfContents(toc)
                    case let .beginTable(schema):
                        pipeline.answer(assembler.beginTable(schema))
                    case let .rows(rows):
                        for row in rows {
                            values.load(row: row)
                            try assembler.row()
                        }
                    case .endTable:
                        assembler.endTable()
                    }
                }
            }
        } catch let error as XCTraceValueError {
            // The row's bytes are long gone from the reader's buffer: its line is found by reading
            // the input again, once the reader has let go of it.
            pipeline.stop()
            let (line, column) = locate(error.offset, in: document, restart: restart)
            throw TraceFormatError(file: document.location, line: line, column: column, table: error.table, field: error.field, message: error.message)
        } catch let error as TraceFormatError {
            throw error
        } catch {
            throw TraceFormatError(file: document.location, line: 1, column: 1, message: "cannot read the file: \(error)")
        }
    }

    /// 1-based line and byte column of `offset` in `document`, counted in a fresh read of the
    /// input: only an error pays for counting lines.
    static func locate(_ offset: Int, in document: XCTraceDocument, restart: (() throws -> ByteChunks)?) -> (line: Int, column: Int) {
        guard let restart, let chunks = try? restart() else { return (1, 1) }
        let end = document.start + offset
        var line = 1
        var lineStart = document.start
        var position = 0
        var chunk: [UInt8] = []
        while position < end, (try? chunks.next(&chunk)) == true {
            let from = max(document.start - position, 0)
            let to = min(end - position, chunk.count)
            if from < to {
                for index in from..<to where chunk[index] == UInt8(ascii: "\n") {
                    line += 1
                    lineStart = position + index + 1
                }
            }
            position += chunk.count
        }
        return (line, end - lineStart + 1)
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
