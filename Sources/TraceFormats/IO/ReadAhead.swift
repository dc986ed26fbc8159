import Foundation

extension ByteChunks {
    /// A file's chunks read (and gunzipped) on a thread of their own, a few chunks ahead of the
    /// parser, so reading and inflating overlap parsing on a second core. Errors arrive in
    /// stream order: the chunks before a failure first, then the failure.
    static func readingAhead(_ source: ByteSource, depth: Int = 3) -> ByteChunks {
        let reader = ReadAhead(source: source, depth: depth)
        let owner = ReadAhead.Owner(reader)
        Thread.detachNewThread { reader.produce() }
        return ByteChunks { chunk in
            var used: [UInt8] = []
            swap(&used, &chunk)
            guard let next = try owner.reader.chunks.next(recycling: consume used) else { return false }
            chunk = next
            return true
        }
    }
}

/// Chunks handed from the reading thread to the parser; `source` is used by the reading thread only.
private final class ReadAhead: @unchecked Sendable {
    /// Held by the parser's side: when the parser lets go (done, or failed), reading stops.
    final class Owner {
        let reader: ReadAhead
        init(_ reader: ReadAhead) { self.reader = reader }
        deinit { reader.chunks.stop() }
    }

    private let source: ByteSource
    let chunks: Handoff<[UInt8], any Error>

    init(source: ByteSource, depth: Int) {
        self.source = source
        chunks = Handoff(depth: depth)
    }

    func produce() {
        // Buffers the parser is done with come back, so no chunk is allocated twice.
        var buffer: [UInt8] = []
        while true {
            do {
                guard try source.readChunk(into: &buffer) else { break }
                buffer = try chunks.send(buffer) ?? []
            } catch is HandoffStopped {
                break
            } catch {
                chunks.finish(error)
                return
            }
        }
        chunks.finish(nil)
    }
}
