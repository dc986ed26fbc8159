/// Layout time with nested passes counted once. SwiftUI runs a layout pass inside another (a
/// `LazyVStack` sizeThatFits asks each `TripCard` for its size, depth 1 inside depth 0), so the
/// passes' durations overlap: a thread spent the outer pass's time once, however many passes it
/// holds. A total of layout time over a scope (a view row, a module, a process, the trace) is the
/// union of its passes' intervals per thread. Passes on two threads at once are two threads' time
/// and both count. Rows must be added in start order (an update lane's order); then the end of
/// the scope's passes so far on that thread is all the union needs.
///
/// Scopes are dense indexes. A scope's passes nearly always run on one thread: its first
/// thread's end is kept in arrays (no hashing per pass, which summary queries over a million
/// updates would feel); other threads' in a dictionary.
struct LayoutTimeUnion {
    private struct Key: Hashable { var scope: Int, thread: Int32 }
    private var firstThread: [Int32] = []
    private var coveredUntil: [Nanoseconds] = []
    private var otherThreads: [Key: Nanoseconds] = [:]
    private static let unseen = Int32.min

    /// The part of [start, end) on `thread` not yet covered by an earlier pass of `scope`.
    mutating func add(start: Nanoseconds, end: Nanoseconds, scope: Int, thread: Int32) -> Nanoseconds {
        if scope >= firstThread.count {
            let missing = scope + 1 - firstThread.count
            firstThread.append(contentsOf: repeatElement(Self.unseen, count: missing))
            coveredUntil.append(contentsOf: repeatElement(0, count: missing))
        }
        let covered: Nanoseconds?
        if firstThread[scope] == Self.unseen {
            firstThread[scope] = thread
            covered = nil
        } else if firstThread[scope] == thread {
            covered = coveredUntil[scope]
        } else {
            covered = otherThreads[Key(scope: scope, thread: thread)]
        }
        let newEnd = max(end, covered ?? end)
        if firstThread[scope] == thread { coveredUntil[scope] = newEnd } else { otherThreads[Key(scope: scope, thread: thread)] = newEnd }
        guard let covered else { return end - start }
        return end <= covered ? 0 : end - max(start, covered)
    }
}
