import Foundation

extension ByteChunks {
    /// A file's chunks read (and gunzipped) on a thread of their own, a few chunks ahead of the
    /// parser, so reading and inflating overlap parsing on a second core. Errors arrive in
    /// stream order: the chunks before a failure first, then the failure.
    static func readingAhead(_ source: ByteSource, depth: Int = 3) -> ByteChunks {
        let reader = ReadAhead(source: source, depth: depth)
        let owner = ReadAhead.Owner(reader)
        Thread.detachNewThread { reader.produce() }
        return ByteChunks { chunk in try owner.reader.next(&chunk) }
    }
}

/// Chunks handed from the reading thread to the parser. `source` is used by the reading
/// thread only; everything else is guarded by `condition`.
private final class ReadAhead: @unchecked Sendable {
    /// Held by the parser's side: when the parser lets go (done, or failed), reading stops.
    final class Owner {
        let reader: ReadAhead
        init(_ reader: ReadAhead) { self.reader = reader }
        deinit { reader.stop() }
    }

    private let source: ByteSource
    private let depth: Int
    private let condition = NSCondition()
    private var ready: [[UInt8]] = []
    /// Buffers the parser is done with, reused so that no chunk is allocated twice.
    private var spare: [[UInt8]] = []
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false

    init(source: ByteSource, depth: Int) {
        self.source = source
        self.depth = max(1, depth)
    }

    func produce() {
        while true {
            condition.lock()
            while ready.count >= depth, !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            var buffer = spare.popLast() ?? []
            condition.unlock()
            buffer.removeAll(keepingCapacity: true)
            let more: Bool
            var error: (any Error)?
            do { more = try source.read(into: &buffer) } catch let thrown {
                more = false
                error = thrown
            }
            condition.lock()
            if more { ready.append(buffer) } else { ended = true; failure = error }
            condition.broadcast()
            condition.unlock()
            if !more { return }
        }
    }

    func next(_ chunk: inout [UInt8]) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty, !ended { condition.wait() }
        guard !ready.isEmpty else {
            if let failure { throw failure }
            return false
        }
        spare.append(chunk)
        chunk = ready.removeFirst()
        condition.broadcast()
        return true
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
