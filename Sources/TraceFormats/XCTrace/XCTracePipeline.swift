import Foundation

/// Hands batches of rows from the reading thread (tokens and values) to the assembling one, so
/// an import uses two cores (`Handoff`: at most `depth` batches ahead, emptied batches reused),
/// and the assembler's answer to each table back. The assembler, failing, stops the reader.
final class XCTracePipeline: @unchecked Sendable {
    private let batches: Handoff<XCTraceRowBatch, TraceFormatError>
    /// Whether to read each table's rows: one answer per `beginTable` event.
    private let answers = Handoff<Bool, Never>(depth: 1)

    init(depth: Int = 4) {
        batches = Handoff(depth: depth)
    }

    // MARK: The reading thread

    /// Queues `batch` and returns an empty one to fill next.
    func send(_ batch: XCTraceRowBatch) throws(HandoffStopped) -> XCTraceRowBatch {
        try batches.send(batch) ?? XCTraceRowBatch()
    }

    /// The assembler's answer to the `beginTable` event just sent.
    func tableAnswer() throws(HandoffStopped) -> Bool {
        guard let wanted = answers.next(recycling: nil) else { throw HandoffStopped() }
        return wanted
    }

    func checkStopped() throws(HandoffStopped) {
        try batches.checkStopped()
    }

    /// The reader's last call: after the batches already sent, the assembler sees the end of
    /// the input, or `failure`.
    func readerFinished(_ failure: TraceFormatError?) {
        batches.finish(failure)
    }

    // MARK: The assembling thread

    /// The next batch, in the order sent (`used` goes back to the reader); nil at the end.
    func next(recycling used: consuming XCTraceRowBatch?) throws(TraceFormatError) -> XCTraceRowBatch? {
        // Emptied here, off the reader's thread, keeping the capacity the reader grew.
        used?.removeAll()
        return try batches.next(recycling: used.take())
    }

    func answer(_ wanted: Bool) {
        // Never waits: the reader takes each answer before it asks again.
        _ = try? answers.send(wanted)
    }

    /// Stops the reader (the assembler failed, or is done) and waits until it has let go of the input.
    func stop() {
        batches.stop()
        answers.finish(nil)
        batches.waitUntilFinished()
    }
}

/// The reading half of an import, on a thread of its own: tar members, tokens and values, into
/// batches of rows. Its own errors (malformed XML, a `ref` to nothing) are located here, where
/// the bytes still are, and reach the assembler after the rows before them. (Unchecked: the
/// input goes to the new thread and only it reads it.)
struct XCTraceReadingThread: @unchecked Sendable {
    private let chunks: ByteChunks
    private let displayName: String
    private let pipeline: XCTracePipeline

    /// Starts reading `chunks` into `pipeline`.
    static func start(_ chunks: ByteChunks, displayName: String, into pipeline: XCTracePipeline) {
        let thread = XCTraceReadingThread(chunks: chunks, displayName: displayName, pipeline: pipeline)
        Thread.detachNewThread { thread.run() }
    }

    private func run() {
        var failure: TraceFormatError?
        do { try read() } catch { failure = error }
        pipeline.readerFinished(failure)
    }

    private func read() throws(TraceFormatError) {
        let pipeline = self.pipeline
        let source = chunks
        // Once the assembler has stopped (an error in an earlier row), reading stops at the next chunk.
        let stream = ByteStream(ByteChunks { chunk in
            try pipeline.checkStopped()
            return try source.next(&chunk)
        })
        var location = displayName
        var reader: XCTraceReader?
        do {
            let head = try stream.peek(512)
            if TarArchive.isTarHeader(head) {
                var members = 0
                var recording: String?
                while let member = try TarArchive.nextMember(in: stream) {
                    // "._x.xml" files are macOS metadata (AppleDouble), not exports.
                    let fileName = member.name.split(separator: "/").last ?? ""
                    guard fileName.hasSuffix(".xml"), !fileName.hasPrefix("._") else {
                        recording = recording ?? ZippedRecording.recordingFolder(ofMember: member.name)
                        try stream.skip(member.size)
                        try TarArchive.skipPadding(after: member.size, in: stream)
                        continue
                    }
                    members += 1
                    location = "\(displayName)/\(member.name)"
                    let document = XCTraceDocument(location: location, start: stream.offset)
                    reader = XCTraceReader(source: stream.chunks(limit: member.size))
                    try reader!.run(document, into: pipeline)
                    reader = nil
                    location = displayName
                    try TarArchive.skipPadding(after: member.size, in: stream)
                }
                if members == 0 {
                    // A tarred .trace bundle: the recording itself, not its export.
                    throw XCTraceValueError(offset: 0, message: ZippedRecording.tarMessage(recording: recording, displayName: displayName))
                }
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
                try reader!.run(XCTraceDocument(location: location, start: 0), into: pipeline)
                reader = nil
            }
        } catch is HandoffStopped {
            return
        } catch let error as XMLSyntaxError {
            throw Self.formatError(location, reader, offset: error.offset, table: reader?.schema?.name, field: nil, message: error.message)
        } catch let error as XCTraceValueError {
            throw Self.formatError(location, reader, offset: error.offset, table: error.table, field: error.field, message: error.message)
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
}
