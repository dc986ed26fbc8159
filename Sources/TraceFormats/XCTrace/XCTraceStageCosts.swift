import Foundation

/// What the stages of an xctrace import cost alone (`bench-xctrace --stages`): a pipeline that
/// splits them over two cores is bounded by its slowest stage.
public enum XCTraceStageCosts {
    /// Tokens only (with the file read ahead on its own thread), nothing resolved.
    public static func tokenize(at url: URL) throws -> Int {
        let source = try ByteSource(url: url, displayName: url.lastPathComponent, maxBytes: .max)
        let tokenizer = XMLTokenizer(source: .readingAhead(source))
        var tokens = 0
        while true {
            let token = try tokenizer.next()
            if token == .endOfInput { break }
            tokens += 1
        }
        return tokens
    }

    private final class NullSink: XCTraceTableSink {
        var rows = 0
        func beginTable(_ schema: TableSchema, reader: XCTraceReader) throws -> Bool { true }
        func row(_ cells: [ValueRef], reader: XCTraceReader) throws { rows += 1 }
        func endTable(reader: XCTraceReader) throws {}
        func tableOfContents(_ toc: TableOfContents) throws {}
    }

    /// Tokens and resolved rows, no assembling.
    public static func readRows(at url: URL) throws -> Int {
        let source = try ByteSource(url: url, displayName: url.lastPathComponent, maxBytes: .max)
        let reader = XCTraceReader(source: .readingAhead(source))
        let sink = NullSink()
        try reader.run(into: sink)
        return sink.rows
    }
}
