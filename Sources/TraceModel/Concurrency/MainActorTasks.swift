// Who ran on the Main Actor when, who created a task, who waited for whom, and which task wrote a
// state change: the relations the findings, the budgets and the cause graph read from the Swift
// Tasks data. docs/cause-graph.md ("Swift tasks") documents the rules.

/// How sure the link from a state change to the task that wrote it is.
public enum TaskWriteBasis: String, Sendable, Equatable, Encodable {
    /// The change was written on the thread the task ran on, while it ran.
    case thread
    /// The change's backtrace holds the task's resume function.
    case backtrace
    /// The export names no thread for the change and its backtrace does not settle it: the one
    /// task running on the Main Actor at that time is the likely writer, not a certain one.
    case time
}

/// A main-actor run of a task that overlaps something, and by how much.
public struct MainActorOverlap: Sendable, Equatable {
    /// Row in `Trace.taskStates` (a running interval).
    public var row: Int
    public var overlap: Nanoseconds
}

extension Trace {
    /// Main-actor runs (rows of `taskStates`) that overlap `range`, most overlap first (ties: earlier row).
    public func mainActorRuns(overlapping range: TimeRange) -> [MainActorOverlap] {
        overlaps(of: indexes.mainActorRuns, lane: .mainActor, with: range)
    }

    /// Waits for the main actor (rows of `taskStates`) that overlap `range`, most overlap first.
    public func mainActorWaits(overlapping range: TimeRange) -> [MainActorOverlap] {
        overlaps(of: indexes.mainActorWaits, lane: .mainActorWaits, with: range)
    }

    private func overlaps(of rows: [UInt32], lane: Lane, with range: TimeRange) -> [MainActorOverlap] {
        let states = taskStates
        let longest = indexes.maxDurationByLane[lane] ?? 0
        // Rows are sorted by start: those that can overlap start after range.start - longest.
        var low = 0, high = rows.count
        let earliest = range.start.addingSaturating(-longest)
        while low < high {
            let mid = (low + high) / 2
            if states.start[Int(rows[mid])] < earliest { low = mid + 1 } else { high = mid }
        }
        var found: [MainActorOverlap] = []
        var index = low
        while index < rows.count, states.start[Int(rows[index])] < range.end {
            let row = Int(rows[index])
            let overlap = min(range.end, states.end(row)) - max(range.start, states.start[row])
            if overlap > 0 || (states.duration[row] == 0 && range.overlaps(start: states.start[row], end: states.end(row))) {
                found.append(MainActorOverlap(row: row, overlap: max(0, overlap)))
            }
            index += 1
        }
        return found.sorted { ($0.overlap, $1.row) > ($1.overlap, $0.row) }
    }

    /// The task that created `task`: the one that was running when it was created and later
    /// suspended waiting for it; else the one that waited for it; else the only task running
    /// when it was created. Nil when the data does not say.
    public func creator(ofTask task: Int) -> Int? {
        let states = taskStates
        let own = indexes.states(ofTask: task)
        guard let first = own.first else { return nil }
        let created = states.start[Int(first)]
        let awaiting = Set(indexes.states(awaiting: task).map { Int(states.task[Int($0)]) })
        if awaiting.count == 1 { return awaiting.first }
        // Tasks running when it was created: on the Main Actor (indexed), and off it when nothing else tells.
        var runningAtCreation: [Int] = []
        var overlaps = mainActorRuns(overlapping: TimeRange(start: created, end: created + 1))
        if awaiting.isEmpty { overlaps += runs(at: created) }
        for overlap in overlaps {
            let other = Int(states.task[overlap.row])
            if other != task, !runningAtCreation.contains(other) { runningAtCreation.append(other) }
        }
        if let both = runningAtCreation.first(where: awaiting.contains) { return both }
        if let first = awaiting.min() { return first }
        return runningAtCreation.count == 1 ? runningAtCreation[0] : nil
    }

    /// Running intervals off the main actor that contain `time` (main-actor runs are indexed).
    private func runs(at time: Nanoseconds) -> [MainActorOverlap] {
        let states = taskStates
        var found: [MainActorOverlap] = []
        var index = indexOfFirst(atLeast: time + 1, in: states.start)
        // Walk back over the rows that started just before `time` (bounded: running intervals are
        // short next to a recording, and a task is created right after its creator resumed).
        var looked = 0
        while index > 0, looked < 1024 {
            index -= 1
            looked += 1
            if states.state[index] == .running, states.start[index] <= time, time < states.end(index) {
                found.append(MainActorOverlap(row: index, overlap: 0))
            }
        }
        return found
    }

    /// Where `task` comes from, as a person would look for it: its own name (a `.task` modifier's
    /// "View.task @ Landmarks/MapView.swift:31"), else its creator's, else the first app frame of
    /// its creation backtrace; "" when nothing says.
    public func creationSite(ofTask task: Int) -> String {
        if tasks.name[task] != 0 { return string(tasks.name[task]) }
        if let creator = creator(ofTask: task), tasks.name[creator] != 0 { return string(tasks.name[creator]) }
        let frames = backtrace(tasks.creationBacktrace[task], limit: 64).frames
        return frames.first(where: \.isAppCode)?.name ?? ""
    }

    /// "LandmarkImageLoader.loadImages(for:)" for a running row, or what stands for a missing one.
    public func resumeFunctionTitle(_ row: Int) -> String {
        let function = string(taskStates.resumeFunction[row])
        return function.isEmpty ? "(resume function not recorded)" : function
    }

    /// The main-actor run that wrote state change `change`, and how sure that is; nil when no
    /// task ran on the Main Actor then, or several did and nothing tells them apart.
    public func mainActorRun(writing change: Int) -> (row: Int, basis: TaskWriteBasis)? {
        let time = stateChanges.timestamp[change]
        let candidates = mainActorRuns(overlapping: TimeRange(start: time, end: time + 1)).map(\.row)
        guard !candidates.isEmpty else { return nil }
        let thread = stateChanges.thread[change]
        let states = taskStates
        if thread != noRow, let row = candidates.first(where: { states.thread[$0] == thread }) { return (row, .thread) }
        let frames = stateChanges.backtrace[change] == noRow ? [] : backtrace(stateChanges.backtrace[change]).frames
        if let row = candidates.first(where: { row in frames.contains { Self.isResumeFunction(states.resumeFunction[row], frame: $0, in: self) } }) {
            return (row, .backtrace)
        }
        // A known thread that no run was on: another thread wrote it, not a main-actor task.
        guard thread == noRow, candidates.count == 1 else { return nil }
        return (candidates[0], .time)
    }

    /// Whether a backtrace frame is the resume function, which the export writes as
    /// "SYMBOL BINARY" ("RecipeStore.refresh() Recipes") or the symbol alone.
    private static func isResumeFunction(_ function: StringRef, frame: BacktraceFrame, in trace: Trace) -> Bool {
        guard function != 0, !frame.name.isEmpty else { return false }
        let text = trace.string(function)
        return text == frame.name || text == "\(frame.name) \(frame.binary)"
    }
}
