// `]` and `[` on the timeline: every long update, in time order, one step at a time, whatever the
// zoom (the drawn marks merge at a zoom-out; this does not look at them).

extension Trace {
    /// The long update (of any long lane) after update `after` when `forward`, before it otherwise,
    /// in update order (update ids are rows sorted by start, so this is time order with ties by id).
    /// Without `after`: the first one starting at or after `time` (forward), or the last one starting
    /// at or before it (backward). nil when there is none. A binary search in each long lane.
    public func longUpdate(forward: Bool, after: Int?, time: Nanoseconds) -> Int? {
        var best: Int?
        for lane in [Lane.longViewBody, .longRepresentable, .longOther] {
            let rows = indexes.updatesByLane[lane] ?? []
            let starts = updates.start
            // Rows of a lane are ascending, and so are their starts: `beyond` is monotone over them.
            let beyond: (UInt32) -> Bool = switch (forward, after) {
            case (true, let update?): { Int($0) > update }
            case (true, nil): { starts[Int($0)] >= time }
            case (false, let update?): { Int($0) >= update }
            case (false, nil): { starts[Int($0)] > time }
            }
            var low = 0, high = rows.count
            while low < high {
                let mid = (low + high) / 2
                if beyond(rows[mid]) { high = mid } else { low = mid + 1 }
            }
            if forward, low < rows.count {
                best = Swift.min(best ?? .max, Int(rows[low]))
            } else if !forward, low > 0 {
                best = Swift.max(best ?? .min, Int(rows[low - 1]))
            }
        }
        return best
    }
}
