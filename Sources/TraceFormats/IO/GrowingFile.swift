import Foundation

/// A file still being written (an upload as it arrives), read by a reader at the same time: at
/// the file's current end the reader waits for the writer instead of taking it for the end of
/// the trace. The writer says how far it has written, then that the file is whole (`end`) or
/// that it never will be (`abandon`: the reader then fails, whatever it was waiting for).
public final class GrowingFile: @unchecked Sendable {
    private let condition = NSCondition()
    private var length: Int64 = 0
    private var ended = false
    private var abandoned = false

    public init() {}

    /// The writer has written `length` bytes in all.
    public func grew(to length: Int64) {
        condition.lock()
        self.length = length
        condition.broadcast()
        condition.unlock()
    }

    /// The file is whole: readers read to its end and stop there.
    public func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The file will never be whole (the upload failed): readers stop with an error.
    public func abandon() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until more than `offset` bytes are written or the file is whole; returns false when
    /// it is whole with at most `offset` bytes (the reader is at the end).
    func waitForBytes(beyond offset: Int64, displayName: String) throws(TraceFormatError) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while length <= offset, !ended, !abandoned { condition.wait() }
        if abandoned { throw TraceFormatError(file: displayName, line: 1, column: 1, message: "the upload stopped before its end") }
        return length > offset
    }
}
