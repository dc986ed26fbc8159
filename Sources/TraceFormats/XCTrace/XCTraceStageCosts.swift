import Foundation

/// What the stages of an xctrace import cost alone (`tracesvc-bench xctrace --stages`): the import runs
/// the reader (tokens, values, batches) and the assembler on two threads, so its pace is that
/// of the slower one.
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

    /// The reading thread alone: tokens, resolved rows and their batches, which are dropped
    /// as they arrive instead of being assembled.
    public static func readRows(at url: URL) throws -> Int {
        let source = try ByteSource(url: url, displayName: url.lastPathComponent, maxBytes: .max)
        let pipeline = XCTracePipeline()
        XCTraceReadingThread.start(.readingAhead(source), displayName: url.lastPathComponent, into: pipeline)
        defer { pipeline.stop() }
        var rows = 0
        var used: XCTraceRowBatch?
        while let next = try pipeline.next(recycling: consume used) {
            rows += next.rows.count
            for event in next.events {
                if case .beginTable = event { pipeline.answer(true) }
            }
            used = next
        }
        return rows
    }
}
