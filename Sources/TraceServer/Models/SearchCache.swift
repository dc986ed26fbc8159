import Synchronization
import TraceModel

/// The matches of the last few timeline searches of one trace, kept with it: typing in the find
/// box and stepping with `]` ask the same query again and again, and each scan reads every
/// description. Bounded by entries (each holds at most two row indexes per update and signpost).
final class SearchCache: Sendable {
    static let maxEntries = 8
    /// Most recently used last.
    private let entries = Mutex<[TimelineMatches]>([])

    func matches(_ query: TimelineSearchQuery, in trace: Trace) -> TimelineMatches {
        if let hit = entries.withLock({ entries -> TimelineMatches? in
            guard let index = entries.firstIndex(where: { $0.query == query }) else { return nil }
            let hit = entries.remove(at: index)
            entries.append(hit)
            return hit
        }) { return hit }
        // Scanned outside the lock: another query of the trace is not held up meanwhile.
        let made = trace.matches(query)
        entries.withLock { entries in
            guard !entries.contains(where: { $0.query == query }) else { return }
            if entries.count >= Self.maxEntries { entries.removeFirst() }
            entries.append(made)
        }
        return made
    }
}
