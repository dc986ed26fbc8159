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
