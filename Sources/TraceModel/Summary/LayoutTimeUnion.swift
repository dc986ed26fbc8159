/// Layout time with nested passes counted once. SwiftUI runs a layout pass inside another (a
/// `LazyVStack` sizeThatFits asks each `TripCard` for its size, depth 1 inside depth 0), so the
/// passes' durations overlap: a thread spent the outer pass's time once, however many passes it
/// holds. A total of layout time over a scope (a view row, a module, a process, the trace) is the
/// union of its passes' intervals per thread. Passes on two threads at once are two threads' time
/// and both count. Rows must be added in start order (an update lane's order); then the end of
/// the scope's passes so far on that thread is all the union needs.
struct LayoutTimeUnion<Scope: Hashable> {
    private struct Key: Hashable { var scope: Scope, thread: Int32 }
    private var coveredUntil: [Key: Nanoseconds] = [:]

    /// The part of [start, end) on `thread` not yet covered by an earlier pass of `scope`.
    mutating func add(start: Nanoseconds, end: Nanoseconds, scope: Scope, thread: Int32) -> Nanoseconds {
        let key = Key(scope: scope, thread: thread)
        guard let covered = coveredUntil[key] else {
            coveredUntil[key] = end
            return end - start
        }
        if end <= covered { return 0 }
        coveredUntil[key] = end
        return end - max(start, covered)
    }
}
