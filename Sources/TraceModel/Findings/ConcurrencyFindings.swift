// The Swift concurrency rules: work that blocks the Main Actor, and tasks waiting to get onto it
// (the talks "Explore concurrency in SwiftUI" and "Code-along: elevate an app with Swift
// concurrency"). docs/findings.md documents them.

private func plural(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }

extension Trace {
    /// "Task 502 (created by View.task @ Landmarks/LandmarkDetail.swift:58)", or the task's own
    /// name when it has one.
    func taskWithSite(_ task: Int) -> String {
        let title = taskTitle(task)
        let site = creationSite(ofTask: task)
        return site.isEmpty || site == title ? title : "\(title) (created by \(site))"
    }

    // MARK: Main actor blocked

    func mainActorBlockedFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        let threshold = options.mainActorBlockedNs ?? metadata.frameDuration
        let states = taskStates
        struct Key: Hashable { var function: StringRef, site: String }
        var runsByKey: [Key: [Int]] = [:]
        var order: [Key] = []
        var siteOfTask: [UInt32: String] = [:]
        for (index, row) in indexes.mainActorRuns.map(Int.init).enumerated() where states.duration[row] > threshold {
            if QueryCancellation.requested(at: index) { return [] }
            let task = states.task[row]
            if siteOfTask[task] == nil { siteOfTask[task] = creationSite(ofTask: Int(task)) }
            let key = Key(function: states.resumeFunction[row], site: siteOfTask[task]!)
            if runsByKey[key] == nil { order.append(key) }
            runsByKey[key, default: []].append(row)
        }
        var found: [Finding] = []
        for key in order {
            let runs = runsByKey[key]!.sorted { (states.duration[$0], $1) > (states.duration[$1], $0) }
            let longest = runs[0]
            let task = Int(states.task[longest])
            let function = resumeFunctionTitle(longest)
            let cost = runs.reduce(Nanoseconds(0)) { $0.addingSaturating(states.duration[$1]) }
            let ranges = runs.map { TimeRange(start: states.start[$0], end: states.end($0)) }
            let thread = states.thread[longest]
            let threads: Set<Int32> = thread == noRow ? context.mainThreads : [thread]
            let frames = context.heaviestFrames(in: ranges, threads: threads)

            // What it held up: hitches and hangs (a hitch shows a frame after the late work), and
            // other tasks that waited for the main actor meanwhile.
            let lead = metadata.frameDuration
            let hitched = hitches.filter { hitch in ranges.contains { $0.overlaps(start: hitch.start - lead, end: hitch.end - lead) } }
            let hung = hangs.filter { hang in ranges.contains { $0.overlaps(start: hang.start, end: hang.end) } }
            let waiters = waitsBehind(runs: runs)
            let held = heldUp(hitches: hitched, hangs: hung)

            var title = runs.count == 1
                ? "\(function) ran on the Main Actor for \(DurationText.format(cost))"
                : "\(function) ran on the Main Actor over \(DurationText.format(threshold)) \(runs.count) times (up to \(DurationText.format(states.duration[longest])), \(DurationText.format(cost)) in all)"
            title += " in \(taskWithSite(task))"
            if !held.isEmpty { title += ", during \(held)" }
            if let waiter = waiters.first {
                let others = waiters.count > 1 ? " and \(plural(waiters.count - 1, "other task"))" : ""
                title += "; \(taskTitle(Int(states.task[waiter.row]))) waited \(DurationText.format(waiter.overlap)) for it\(others)"
            }
            var subjects = [
                FindingSubject(role: .function, name: function, detail: string(states.actor[longest])),
                FindingSubject(role: .task, name: taskTitle(task), detail: creationSite(ofTask: task)),
            ]
            subjects += waiters.prefix(3).map { FindingSubject(role: .task, name: taskTitle(Int(states.task[$0.row])), detail: "waited") }
            subjects += frames.map { FindingSubject(role: .frame, name: $0.name, detail: $0.binary) }
            let caused = context.updatesCaused(byRuns: runs)
            found.append(Finding(
                id: "\(FindingKind.mainActorBlocked.rawValue):\(function)@\(key.site)",
                kind: .mainActorBlocked, severity: context.severity(cost: cost, worst: states.duration[longest]),
                title: title, subjects: subjects, costNs: cost,
                // Off the main actor, all of it leaves; assigning the result back takes microseconds.
                savingNs: cost, occurrences: runs.count, worstNs: states.duration[longest],
                fix: "Move the work off the Main Actor: make \(function) an @concurrent (or nonisolated async) function, "
                    + "await it from the task, and hop back to the Main Actor only to assign the result.",
                evidence: FindingEvidence(
                    updates: context.evidenceUpdates(caused), updateCount: caused.count, representativeUpdate: caused.first,
                    range: ranges[0], thread: thread == noRow ? context.mainThreads.min().map(Int.init) : Int(thread),
                    frames: frames, cpuCoverage: nil, taskStates: runs + waiters.map(\.row)
                )
            ))
        }
        return found
    }

    /// Waits of other tasks for the main actor during `runs`, longest overlap first (one per wait row).
    private func waitsBehind(runs: [Int]) -> [MainActorOverlap] {
        let states = taskStates
        var byRow: [Int: Nanoseconds] = [:]
        for run in runs {
            for wait in mainActorWaits(overlapping: TimeRange(start: states.start[run], end: states.end(run)))
            where states.task[wait.row] != states.task[run] && wait.overlap > 0 {
                byRow[wait.row, default: 0].addSaturating(wait.overlap)
            }
        }
        return byRow.map { MainActorOverlap(row: $0.key, overlap: $0.value) }.sorted { ($0.overlap, $1.row) > ($1.overlap, $0.row) }
    }

    /// "1 hitch of 125.00 ms", "2 hitches (up to 40.00 ms) and 1 hang of 300.00 ms", or "".
    private func heldUp(hitches: [TimelineInterval], hangs: [TimelineInterval]) -> String {
        func text(_ intervals: [TimelineInterval], _ noun: String, _ plural: String) -> String? {
            guard let longest = intervals.map(\.duration).max() else { return nil }
            return intervals.count == 1 ? "1 \(noun) of \(DurationText.format(longest))" : "\(intervals.count) \(plural) (up to \(DurationText.format(longest)))"
        }
        return [text(hitches, "hitch", "hitches"), text(hangs, "hang", "hangs")].compactMap { $0 }.joined(separator: " and ")
    }

    /// The earliest update reached from `node` along update or creation edges (a few steps).
    func firstUpdate(causedBy node: Int) -> Int? {
        var frontier = [node]
        var seen: Set<Int> = [node]
        for _ in 0..<4 {
            var next: [Int] = []
            var best: Int?
            for current in frontier {
                for edge in graph.outgoing(current) {
                    let target = Int(graph.edges.target[Int(edge)])
                    guard seen.insert(target).inserted else { continue }
                    let update = graph.nodes.update[target]
                    if update != noRow { best = min(best ?? Int(update), Int(update)) }
                    next.append(target)
                }
            }
            if let best { return best }
            frontier = next
        }
        return nil
    }

    // MARK: Main actor wait

    func mainActorWaitFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        let states = taskStates
        // A wait is grouped by the task's name (a `.task` modifier's site) or else the function it resumed in next.
        var waitsByLabel: [String: [Int]] = [:]
        var order: [String] = []
        var nextFunction: [Int: StringRef] = [:]
        for (index, row) in indexes.mainActorWaits.map(Int.init).enumerated() where states.duration[row] > options.mainActorWaitNs {
            if QueryCancellation.requested(at: index) { return [] }
            let task = Int(states.task[row])
            let next = indexes.states(ofTask: task).map(Int.init).first { states.start[$0] >= states.start[row] && states.state[$0] == .running }
            nextFunction[row] = next.map { states.resumeFunction[$0] } ?? 0
            let label = tasks.name[task] != 0 ? string(tasks.name[task])
                : nextFunction[row] != 0 ? string(nextFunction[row]!) : taskTitle(task)
            if waitsByLabel[label] == nil { order.append(label) }
            waitsByLabel[label, default: []].append(row)
        }
        var found: [Finding] = []
        for label in order {
            let waits = waitsByLabel[label]!.sorted { (states.duration[$0], $1) > (states.duration[$1], $0) }
            let longest = waits[0]
            let cost = waits.reduce(Nanoseconds(0)) { $0.addingSaturating(states.duration[$1]) }
            // What held the main actor meanwhile: other tasks' runs, by time they overlapped the waits.
            var heldBy: [Int: Nanoseconds] = [:]
            for wait in waits {
                for run in mainActorRuns(overlapping: TimeRange(start: states.start[wait], end: states.end(wait)))
                where states.task[run.row] != states.task[wait] && run.overlap > 0 {
                    heldBy[run.row, default: 0].addSaturating(run.overlap)
                }
            }
            let holders = heldBy.map { MainActorOverlap(row: $0.key, overlap: $0.value) }.sorted { ($0.overlap, $1.row) > ($1.overlap, $0.row) }
            let behind = min(cost, holders.reduce(Nanoseconds(0)) { $0.addingSaturating($1.overlap) })
            var title = waits.count == 1
                ? "\(label) waited \(DurationText.format(cost)) for the Main Actor"
                : "\(label) waited for the Main Actor over \(DurationText.format(options.mainActorWaitNs)) \(waits.count) times (up to \(DurationText.format(states.duration[longest])), \(DurationText.format(cost)) in all)"
            let frames: [FindingFrame]
            if let holder = holders.first {
                let others = holders.count > 1 ? " and \(plural(holders.count - 1, "shorter run"))" : ""
                title += " while \(taskTitle(Int(states.task[holder.row]))) ran \(resumeFunctionTitle(holder.row)) (\(DurationText.format(holder.overlap)))\(others)"
                frames = []
            } else {
                // No task held it: the main thread did other work (updates, run-loop callbacks).
                frames = context.heaviestFrames(in: [TimeRange(start: states.start[longest], end: states.end(longest))], threads: context.mainThreads)
                title += frames.first.map { "; no task ran on the Main Actor meanwhile, the main thread was mostly in \($0.name)" }
                    ?? "; no task ran on the Main Actor meanwhile: other main-thread work held it"
            }
            let task = Int(states.task[longest])
            var subjects = [FindingSubject(role: .task, name: taskTitle(task), detail: creationSite(ofTask: task))]
            if let function = nextFunction[longest], function != 0 {
                subjects.append(FindingSubject(role: .function, name: string(function), detail: string(states.actor[longest])))
            }
            subjects += holders.prefix(3).map { FindingSubject(role: .task, name: taskTitle(Int(states.task[$0.row])), detail: "held the Main Actor") }
            subjects += frames.map { FindingSubject(role: .frame, name: $0.name, detail: $0.binary) }
            // As the Main Actor Waits lane colours the longest: red high, orange medium.
            let severity: FindingSeverity = switch MainActorWait.severity(states.duration[longest]) {
            case .red: .high
            case .orange: .medium
            case .normal: .low
            }
            found.append(Finding(
                id: "\(FindingKind.mainActorWait.rawValue):\(label)",
                kind: .mainActorWait, severity: severity, title: title, subjects: subjects,
                costNs: cost, savingNs: behind, occurrences: waits.count, worstNs: states.duration[longest],
                fix: holders.isEmpty
                    ? "Keep the main thread free so tasks get onto the Main Actor: make the work it did instead cheaper or move it off."
                    : "Free the Main Actor: move the long work that held it (\(resumeFunctionTitle(holders[0].row))) off the Main Actor with an @concurrent or nonisolated async function; this task then runs as soon as it is enqueued.",
                evidence: FindingEvidence(
                    updates: [], updateCount: 0, representativeUpdate: nil,
                    range: TimeRange(start: states.start[longest], end: states.end(longest)),
                    thread: context.mainThreads.min().map(Int.init), frames: frames, cpuCoverage: nil,
                    taskStates: waits + holders.map(\.row)
                )
            ))
        }
        return found
    }
}
