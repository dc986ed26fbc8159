// What the side panel and the concurrency summary show about Swift tasks.

/// One state interval of a task, with the task around it (the panel shown on a click).
public struct TaskStateDetail: Sendable, Equatable, Encodable {
    public struct Task: Sendable, Equatable, Encodable {
        public var row: Int
        /// The runtime's id, unique within `process` only.
        public var id: Int64
        @NullWhenAbsent public var process: Process?
        public var title: String
        public var start: Nanoseconds
        public var end: Nanoseconds
    }

    public struct Process: Sendable, Equatable, Encodable {
        /// Index into the trace's processes.
        public var index: Int
        public var pid: Int32
        public var name: String
    }

    public struct State: Sendable, Equatable, Encodable {
        public var row: Int
        public var start: Nanoseconds
        public var duration: Nanoseconds
        public var state: String
        public var actor: String
        public var severity: String
    }

    public var row: Int
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var state: String
    /// Colour of this interval on its lane: long-update thresholds for main-actor work,
    /// `MainActorWait` thresholds for a wait on the main actor, else "normal".
    public var severity: String
    public var actor: String
    public var isMainActor: Bool
    public var priority: String
    public var resumeFunction: String
    @NullWhenAbsent public var waitingFor: Task?
    @NullWhenAbsent public var thread: UpdateDetail.Thread?
    public var narrative: String
    public var task: Task
    /// Leaf first, at most `BacktraceFrame.maxFrames`; `…Truncated` when the stack held more.
    public var creationBacktrace: [BacktraceFrame]
    public var creationBacktraceTruncated: Bool
    public var suspendBacktrace: [BacktraceFrame]
    public var suspendBacktraceTruncated: Bool
    /// Every state of the task in start order (the first `maxStates`), and how many it has.
    public var states: [State]
    public var stateCount: Int

    public static let maxStates = 500
}

/// Time spent running and waiting, per resume function and actor.
public struct TaskSummaryRow: Sendable, Equatable, Encodable {
    /// "" when the export names none (`title` says why).
    public var resumeFunction: String
    /// The resume function, or what stands for it: "(resume function not recorded)" for runs whose
    /// export names none, "(did not run again before the recording ended)" for waits no run followed.
    public var title: String
    public var actor: String
    public var isMainActor: Bool
    public var running: Nanoseconds
    public var waiting: Nanoseconds
    /// Running intervals counted.
    public var runs: Int
    /// Longest single wait.
    public var longestWait: Nanoseconds

    /// The API lists this many rows, the most running first (every resume function is a row).
    public static let maxListed = 500
}

extension Trace {
    /// "View.task @ Landmarks/DetailView.swift:41", or "Task 412" when the runtime gave no name.
    public func taskTitle(_ task: Int) -> String {
        let name = string(tasks.name[task])
        return name.isEmpty ? "Task \(tasks.taskID[task])" : name
    }

    /// The colour of task-state row `row` on its lane (see `TaskStateDetail.severity`).
    public func taskSeverity(_ row: Int) -> LongUpdateSeverity {
        let states = taskStates
        switch states.state[row] {
        case .running where indexes.mainActorRuns.binarySearchContains(UInt32(row)):
            return LongUpdateSeverity(duration: states.duration[row])
        case .enqueued where states.isMainActor[row]:
            return MainActorWait.severity(states.duration[row])
        default:
            return .normal
        }
    }

    private func taskReference(_ task: Int) -> TaskStateDetail.Task {
        let process = Int(tasks.process[task])
        return TaskStateDetail.Task(
            row: task, id: tasks.taskID[task],
            process: process == Int(noRow) ? nil : TaskStateDetail.Process(index: process, pid: processes[process].pid, name: processes[process].name),
            title: taskTitle(task), start: tasks.start[task], end: tasks.end[task]
        )
    }

    /// The state interval at row `row` of `taskStates`, or nil when there is no such row.
    public func taskStateDetail(_ row: Int) -> TaskStateDetail? {
        let states = taskStates
        guard row >= 0, row < states.count else { return nil }
        let task = Int(states.task[row])
        let threadRow = Int(states.thread[row])
        let thread = threadRow == Int(noRow) ? nil : UpdateDetail.Thread(index: threadRow, name: threads[threadRow].name, tid: threads[threadRow].tid)
        let rows = indexes.states(ofTask: task)
        let listed = rows.prefix(TaskStateDetail.maxStates).map { other in
            let other = Int(other)
            return TaskStateDetail.State(
                row: other, start: states.start[other], duration: states.duration[other], state: states.state[other].wireName,
                actor: string(states.actor[other]), severity: taskSeverity(other).wireName
            )
        }
        let waitingFor = states.waitingFor[row]
        let creation = backtrace(tasks.creationBacktrace[task]), suspend = backtrace(states.suspendBacktrace[row])
        return TaskStateDetail(
            row: row, start: states.start[row], duration: states.duration[row], state: states.state[row].wireName,
            severity: taskSeverity(row).wireName, actor: string(states.actor[row]), isMainActor: states.isMainActor[row],
            priority: string(states.priority[row]), resumeFunction: string(states.resumeFunction[row]),
            waitingFor: waitingFor == noRow ? nil : taskReference(Int(waitingFor)), thread: thread,
            narrative: string(states.narrative[row]), task: taskReference(task),
            creationBacktrace: creation.frames, creationBacktraceTruncated: creation.truncated,
            suspendBacktrace: suspend.frames, suspendBacktraceTruncated: suspend.truncated,
            states: listed, stateCount: rows.count
        )
    }

    /// The intervals of a Main Actor lane (`.mainActor` or `.mainActorWaits`) that overlap
    /// `range`, longest first, at most `limit`, and how many there are: what a merged mark on
    /// the lane stands for (waits overlap whenever several tasks wait for the main actor at once).
    public func taskStates(on lane: Lane, in range: TimeRange, limit: Int = 50) -> (rows: [Int], count: Int) {
        let rows: [UInt32]
        switch lane {
        case .mainActor: rows = indexes.mainActorRuns
        case .mainActorWaits: rows = indexes.mainActorWaits
        default: return ([], 0)
        }
        let states = taskStates
        // An interval that only touches the range's start (ends where it begins) is not in it: the
        // timeline's mark and this list count the same intervals.
        let overlapping = rows.lazy.map(Int.init).filter {
            range.overlaps(start: states.start[$0], end: states.end($0)) && (states.end($0) > range.start || states.duration[$0] == 0)
        }
        let sorted = overlapping.sorted { (states.duration[$1], $0) < (states.duration[$0], $1) }
        return (Array(sorted.prefix(max(0, limit))), sorted.count)
    }

    /// Running and waiting time inside `range` (whole trace when nil) per resume function and
    /// actor, most running first. A wait counts for the function the task resumed in next, on
    /// the actor it waited for: that is the code the wait delayed.
    public func taskSummary(in range: TimeRange? = nil) -> [TaskSummaryRow] {
        /// `ranAfter`: a run follows (or is) the row; a wait the recording ends in has none to be charged to.
        struct Key: Hashable { var function: StringRef, actor: StringRef, ranAfter: Bool }
        let states = taskStates
        var rows: [Key: TaskSummaryRow] = [:]
        func clipped(_ row: Int) -> Nanoseconds {
            guard let range else { return states.duration[row] }
            return max(0, min(range.end, states.end(row)) - max(range.start, states.start[row]))
        }
        func entry(_ key: Key, mainActor: Bool) -> TaskSummaryRow {
            let function = string(key.function)
            let title = !function.isEmpty ? function
                : key.ranAfter ? "(resume function not recorded)" : "(did not run again before the recording ended)"
            return rows[key] ?? TaskSummaryRow(
                resumeFunction: function, title: title, actor: string(key.actor), isMainActor: mainActor,
                running: 0, waiting: 0, runs: 0, longestWait: 0
            )
        }
        for task in 0..<tasks.count {
            // Backwards, so each wait knows the function the task resumed in next.
            var nextFunction: StringRef = 0
            var ranAfter = false
            for row in indexes.states(ofTask: task).reversed().map(Int.init) {
                let state = states.state[row]
                if state == .running { (nextFunction, ranAfter) = (states.resumeFunction[row], true) }
                guard state == .running || state == .enqueued,
                      range.map({ $0.overlaps(start: states.start[row], end: states.end(row)) }) ?? true else { continue }
                let key = Key(function: nextFunction, actor: states.actor[row], ranAfter: ranAfter)
                var summary = entry(key, mainActor: states.isMainActor[row])
                if state == .running {
                    summary.running.addSaturating(clipped(row))
                    summary.runs += 1
                } else {
                    summary.waiting.addSaturating(clipped(row))
                    summary.longestWait = max(summary.longestWait, states.duration[row])
                }
                rows[key] = summary
            }
        }
        return rows.values.sorted {
            ($1.running, $1.waiting, $0.title, $0.actor) < ($0.running, $0.waiting, $1.title, $1.actor)
        }
    }
}

extension Array where Element == UInt32 {
    /// For a sorted array.
    func binarySearchContains(_ value: UInt32) -> Bool {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < count && self[low] == value
    }
}
