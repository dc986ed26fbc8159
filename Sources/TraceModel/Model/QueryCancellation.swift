/// Long queries stop early when the task running them is cancelled: the request they answer is
/// gone (its client disconnected, or the server is stopping), so their answer would be thrown
/// away. A query that stops returns a partial answer; whoever cancelled it never uses it (the
/// server checks for cancellation after the query and answers nothing).
public enum QueryCancellation {
    /// Whether the query should stop, checked every 4096th `iteration` (reading the task's state
    /// costs a few nanoseconds; the loops polled here cost more than that per 4096 iterations).
    @inline(__always)
    public static func requested(at iteration: Int) -> Bool {
        iteration & 0xFFF == 0 && Task.isCancelled
    }
}

/// A loop whose steps differ in size (a source of a million edges is one step of a graph walk)
/// checks for cancellation before a step once some 4096 units of work were done since the last
/// check, and before its first step.
struct CancellationCheck {
    private var workSinceCheck = 4096

    /// Whether to stop before a step of `work` units.
    @inline(__always)
    mutating func due(adding work: Int) -> Bool {
        // A step of no work still counts one: a million empty steps are checked too.
        guard workSinceCheck >= 4096 else {
            workSinceCheck += work + 1
            return false
        }
        workSinceCheck = work + 1
        return Task.isCancelled
    }
}
