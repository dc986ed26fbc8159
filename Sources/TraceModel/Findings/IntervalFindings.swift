// Hangs and hitches. Each recorded interval is read (busy, blocked, or unknown without CPU data,
// and what ran meanwhile); intervals read the same way (same state, same culprit) are one finding
// with their occurrences: a scroll that hitches twelve times in one view's updates is one problem
// with twelve occurrences, not twelve problems.

/// One hang or hitch, read.
struct IntervalReading {
    var interval: TimelineInterval
    /// Where the work ran: the interval, or for a hitch the frame before it.
    var range: TimeRange
    /// Where frames were read: the range, with context around it when blocked.
    var frameRange: TimeRange
    var threads: Set<Int32>
    /// busy, blocked, or unknown (no CPU data and too little seen to say busy).
    var state: String
    var onCPU: Nanoseconds
    var coverage: Double
    var updateShare: Double
    var taskShare: Double
    /// Long updates overlapping the range, and their time per view (heaviest first).
    var long: [Int]
    var viewTimes: [(name: String, time: Nanoseconds)]
    var frames: [FindingFrame]
    var runs: [MainActorOverlap]
    var saving: Nanoseconds
    /// Hang risks the recording flagged inside the interval (rows of `Trace.hangRisks`): what held it, in its own words.
    var risks: Range<Int> = 0..<0

    var views: [String] { viewTimes.prefix(3).map(\.name) }
}

extension Trace {
    func intervalFindings(_ context: inout FindingsContext, _ intervals: [TimelineInterval], kind: FindingKind, noun: String) -> [Finding] {
        // A reading scans the samples and long updates inside its interval. Recorded hangs do not
        // overlap, but a file can nest thousands, and each would read the same samples again: the
        // costliest intervals are read first, until the readings have scanned a few times what the
        // trace holds; the others are counted in the last finding, not read.
        var budget = 4 * (cpu.samples.count + updates.count) + 10_000
        var groups: [[IntervalReading]] = []
        var groupOfCause: [String: Int] = [:]
        var unread: [TimelineInterval] = []
        for interval in intervals.sorted(by: { ($0.duration, $1.start) > ($1.duration, $0.start) }) {
            // Each reading scans the interval's samples: checked every time.
            if Task.isCancelled { return [] }
            guard budget > 0 else { unread.append(interval); continue }
            let reading = read(interval, kind: kind, &context)
            budget -= 1 + samplesCount(in: reading.frameRange) + reading.long.count
            let cause = causeKey(reading, hasCPUData: context.hasCPUData)
            if let group = groupOfCause[cause] { groups[group].append(reading); continue }
            groupOfCause[cause] = groups.count
            groups.append([reading])
        }
        // A finding is named after its first interval, whatever order they were read in.
        groups = groups.map { $0.sorted { $0.interval.start < $1.interval.start } }
        let total = { (group: [IntervalReading]) in group.reduce(Nanoseconds(0)) { $0.addingSaturating($1.interval.duration) } }
        let ranked = groups.sorted { (total($0), $1[0].interval.start) > (total($1), $0[0].interval.start) }
        let keptCount = min(ranked.count, context.options.maxIntervalFindings)
        var found = ranked.prefix(keptCount).map { finding(of: $0, kind: kind, noun: noun, &context) }
        let others = ranked.dropFirst(keptCount).flatMap { $0.map(\.interval) }
        if let rest = otherIntervalsFinding(others, causes: ranked.count - keptCount, unread: unread, kind: kind, noun: noun, context) {
            found.append(rest)
        }
        return found
    }

    private func samplesCount(in range: TimeRange) -> Int {
        let times = cpu.samples.time
        return indexOfFirst(atLeast: range.end, in: times) - indexOfFirst(atLeast: range.start, in: times)
    }

    /// The hangs or hitches that are not a finding of their own (beyond `maxIntervalFindings`
    /// causes, or not read): one finding that counts them, so none disappears without a word.
    private func otherIntervalsFinding(
        _ others: [TimelineInterval], causes: Int, unread: [TimelineInterval], kind: FindingKind, noun: String, _ context: FindingsContext
    ) -> Finding? {
        let all = (others + unread).sorted { $0.start < $1.start }
        guard let worst = all.max(by: { ($0.duration, $1.start) < ($1.duration, $0.start) }) else { return nil }
        let cost = all.reduce(Nanoseconds(0)) { $0.addingSaturating($1.duration) }
        let nouns = pluralOf(noun)
        let each = all.count == 1 ? "of" : "of up to"
        var why: [String] = []
        if causes > 0 { why.append("\(causes) other cause\(causes == 1 ? "" : "s") than the findings above") }
        if !unread.isEmpty { why.append("\(unread.count) not read: the recording's \(nouns) overlap, and reading each would rescan the same samples") }
        let title = "\(all.count) more \(all.count == 1 ? noun.lowercased() : nouns) \(each) \(DurationText.format(worst.duration)) (\(DurationText.format(cost)) in all): \(why.joined(separator: "; "))"
        let thread = worst.thread != noRow ? Int(worst.thread) : nil
        return Finding(
            id: "\(kind.rawValue):more",
            kind: kind, severity: context.severity(cost: cost, worst: worst.duration),
            title: title, subjects: [], costNs: cost, savingNs: 0, occurrences: all.count, worstNs: worst.duration,
            fix: "Open them one by one from the list of intervals, or raise maxIntervalFindings (at most 100) to read more causes as findings of their own.",
            evidence: FindingEvidence(
                updates: [], updateCount: 0, range: TimeRange(start: worst.start, end: worst.end), thread: thread, frames: [],
                intervals: all.prefix(context.options.maxEvidenceUpdates).map { TimeRange(start: $0.start, end: $0.end) }
            )
        )
    }

    /// What makes two readings one finding: the state and what it names first (the task's function,
    /// the heaviest view's updates, else the heaviest frame).
    private func causeKey(_ reading: IntervalReading, hasCPUData: Bool) -> String {
        if let risk = reading.risks.first { return "risk|\(hangRiskText(risk))" }
        let function = reading.runs.first.map { resumeFunctionTitle($0.row) } ?? ""
        let culprit: String
        switch reading.state {
        case "blocked": culprit = reading.frames.first?.name ?? ""
        case "busy" where hasCPUData: culprit = reading.viewTimes.first?.name ?? reading.frames.first?.name ?? ""
        default: culprit = reading.viewTimes.first?.name ?? ""
        }
        return "\(reading.state)|\(culprit)|\(function)"
    }

    private func read(_ interval: TimelineInterval, kind: FindingKind, _ context: inout FindingsContext) -> IntervalReading {
        let options = context.options
        // A hitch is a frame shown late: the work that made it late ran one frame earlier.
        let lead = kind == .hitchExplained ? metadata.frameDuration : 0
        let range = TimeRange(start: interval.start - lead, end: interval.end - lead)
        var threads = context.mainThreads
        if threads.isEmpty, interval.thread != noRow { threads = [interval.thread] }
        let onCPU = min(context.cpuWeight(in: range, threads: threads), range.duration)
        let coverage = range.duration > 0 ? Double(onCPU) / Double(range.duration) : 1
        var long: [Int] = []
        var longTime: Nanoseconds = 0
        for lane in [Lane.longViewBody, .longRepresentable, .longOther] {
            for row in updateRows(of: lane, overlapping: range) {
                long.append(row)
                longTime.addSaturating(min(updates.end(row), range.end) - max(updates.start[row], range.start))
            }
        }
        var timeByView: [String: Nanoseconds] = [:]
        for row in long { timeByView[string(updates.viewName[row]), default: 0].addSaturating(updates.duration[row]) }
        // Long updates are main-thread work even where the 1 ms sampling missed them.
        let updateShare = range.duration > 0 ? Double(min(longTime, range.duration)) / Double(range.duration) : 0
        let busy = max(coverage, updateShare) >= options.busyCoverage
        let frameRange = busy ? range : TimeRange(start: range.start - options.blockedContextNs, end: range.end + options.blockedContextNs)
        // The Swift task that ran on the Main Actor meanwhile, if any: the cause by name.
        let runs = mainActorRuns(overlapping: range)
        let taskTime = min(range.duration, runs.reduce(Nanoseconds(0)) { $0.addingSaturating($1.overlap) })
        let taskShare = range.duration > 0 ? Double(taskTime) / Double(range.duration) : 0
        let frames = context.heaviestFrames(in: [frameRange], threads: threads)

        let state: String
        var saving: Nanoseconds
        if !context.hasCPUData {
            // Without samples nothing tells busy from blocked; long updates and Main Actor runs are still work seen.
            state = max(updateShare, taskShare) >= options.busyCoverage ? "busy" : "unknown"
            saving = max(longTime, taskTime)
        } else if busy {
            state = "busy"
            // Identified work is what a fix removes: the long updates or the task, else the heaviest frame.
            saving = max(longTime, taskTime)
            if saving == 0 { saving = frames.first?.weightNs ?? 0 }
        } else {
            state = "blocked"
            saving = range.duration - onCPU
        }
        return IntervalReading(
            interval: interval, range: range, frameRange: frameRange, threads: threads, state: state, onCPU: onCPU,
            coverage: coverage, updateShare: updateShare, taskShare: taskShare, long: long,
            viewTimes: timeByView.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { (name: $0.key, time: $0.value) },
            frames: frames, runs: runs, saving: min(interval.duration, saving),
            risks: hangRisks(from: range.start, to: interval.end)
        )
    }

    /// One finding of readings with one cause: one interval reads as before ("Hitch of 8.33 ms at
    /// 1.008 s: …"), several as their count, worst and total with the shares as ranges.
    private func finding(of group: [IntervalReading], kind: FindingKind, noun: String, _ context: inout FindingsContext) -> Finding {
        let first = group[0]
        let worst = group.max { ($0.interval.duration, $1.interval.start) < ($1.interval.duration, $0.interval.start) }!
        let cost = group.reduce(Nanoseconds(0)) { $0.addingSaturating($1.interval.duration) }
        let saving = group.reduce(Nanoseconds(0)) { $0.addingSaturating($1.saving) }
        var viewTime: [String: Nanoseconds] = [:]
        for reading in group { for (name, time) in reading.viewTimes { viewTime[name, default: 0].addSaturating(time) } }
        let views = viewTime.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(3).map(\.key)
        let frames = group.count == 1 ? first.frames : context.heaviestFrames(in: group.map(\.frameRange), threads: first.threads)
        let run = worst.runs.first ?? group.lazy.compactMap(\.runs.first).first
        var reading = readingText(group, views: views, frames: frames, run: run, hasCPUData: context.hasCPUData)
        // The recording's own word on what held it comes first: "main-thread file I/O … TripStore.swift:57".
        let risk = group.lazy.compactMap(\.risks.first).first
        if let risk { reading = "\(hangRiskText(risk)) (\(reading))" }
        let riskFrame = risk.flatMap(hangRiskFrame)
        let evidenceFrames = (riskFrame.map { [$0] } ?? []) + frames.filter { $0.name != riskFrame?.name }

        let title: String
        if group.count == 1 {
            title = "\(noun) of \(DurationText.format(first.interval.duration)) at \(DurationText.seconds(first.interval.start)): \(reading)"
        } else {
            let durations = group.map(\.interval.duration)
            let each = durations.min() == durations.max() ? "of" : "of up to"
            title = "\(group.count) \(pluralOf(noun)) \(each) \(DurationText.format(worst.interval.duration)) (\(DurationText.format(cost)) in all): \(reading)"
        }

        var subjects = [FindingSubject(role: .thread, name: first.threads.count == 1 ? trace(threadName: first.threads.first!) : "Main Thread", detail: first.state)]
        if let run {
            let task = Int(taskStates.task[run.row])
            subjects.append(FindingSubject(role: .task, name: taskTitle(task), detail: creationSite(ofTask: task)))
            subjects.append(FindingSubject(role: .function, name: resumeFunctionTitle(run.row), detail: string(taskStates.actor[run.row])))
        }
        subjects += views.map { FindingSubject(role: .view, name: $0) }
        subjects += evidenceFrames.map { FindingSubject(role: .frame, name: $0.name, detail: $0.binary) }.uniqued(by: \.name)

        let updatesShown = Array(Set(group.flatMap(\.long))).sorted()
        let taskRows = ([worst] + group.filter { $0.interval.start != worst.interval.start }).flatMap { $0.runs.map(\.row) }
        let onCPU = group.reduce(Nanoseconds(0)) { $0.addingSaturating($1.onCPU) }
        let spanned = group.reduce(Nanoseconds(0)) { $0.addingSaturating($1.range.duration) }
        return Finding(
            id: "\(kind.rawValue):\(first.interval.start)",
            kind: kind, severity: context.severity(cost: cost, worst: worst.interval.duration),
            title: title, subjects: subjects, costNs: cost, savingNs: saving, occurrences: group.count,
            worstNs: worst.interval.duration,
            fix: riskFrame.map { "Move \($0.name) off the main thread (an async function or a background task) and hop back only to show the result: the recording flagged \"\(string(hangRisks.message[risk!]))\" there." }
                ?? intervalFix(state: first.state, taskFirst: worst.taskShare >= worst.updateShare, run: run),
            evidence: FindingEvidence(
                updates: context.evidenceUpdates(updatesShown), updateCount: updatesShown.count,
                representativeUpdate: updatesShown.max { (updates.duration[$0], $1) < (updates.duration[$1], $0) },
                range: worst.frameRange, thread: first.threads.count == 1 ? Int(first.threads.first!) : nil, frames: evidenceFrames,
                cpuCoverage: context.hasCPUData ? (spanned > 0 ? Double(onCPU) / Double(spanned) : 1) : nil,
                taskStates: taskRows.uniqued(by: { $0 }),
                intervals: group.prefix(context.options.maxEvidenceUpdates).map { TimeRange(start: $0.interval.start, end: $0.interval.end) }
            )
        )
    }

    /// "main thread busy (72–96% on CPU, 70–94% in long updates) in LandmarkListItemView updates".
    private func readingText(_ group: [IntervalReading], views: [String], frames: [FindingFrame], run: MainActorOverlap?, hasCPUData: Bool) -> String {
        let first = group[0]
        let percent = { (shares: [Double]) -> String in
            let values = shares.map { Int(($0 * 100).rounded()) }
            return values.min() == values.max() ? "\(values[0])%" : "\(values.min()!)–\(values.max()!)%"
        }
        let taskText = run.map { run -> String in
            let task = taskWithSite(Int(taskStates.task[run.row]))
            let function = resumeFunctionTitle(run.row)
            if group.count > 1 {
                let longest = group.compactMap { $0.runs.first.map { taskStates.duration[$0.row] } }.max() ?? taskStates.duration[run.row]
                return "\(task) ran \(function) on the Main Actor for up to \(DurationText.format(longest))"
            }
            let others = first.runs.count > 1 ? " (and \(first.runs.count - 1) shorter run\(first.runs.count == 2 ? "" : "s"))" : ""
            return "\(task) ran \(function) on the Main Actor for \(DurationText.format(taskStates.duration[run.row]))\(others)"
        }
        switch first.state {
        case "busy" where !hasCPUData:
            let culprits = views.map { "\($0) updates" } + (taskText.map { [$0] } ?? [])
            let inUpdates = first.updateShare >= first.taskShare
            return "main thread busy (\(percent(group.map { max($0.updateShare, $0.taskShare) })) in \(inUpdates ? "long updates" : "a Swift task"); the recording has no CPU samples)"
                + (culprits.isEmpty ? "" : ": \(culprits.joined(separator: "; "))")
        case "busy":
            let culprits = views.isEmpty ? frames.prefix(2).map(\.name) : views.map { "\($0) updates" }
            let inUpdates = group.contains { $0.updateShare > 0 } ? ", \(percent(group.map(\.updateShare))) in long updates" : ""
            return "main thread busy (\(percent(group.map(\.coverage))) on CPU\(inUpdates))" + (culprits.isEmpty ? "" : " in \(culprits.joined(separator: ", "))")
                + (taskText.map { ": \($0)" } ?? "")
        case "blocked":
            let near = frames.first.map { " near \($0.name)" } ?? ""
            return "main thread blocked (\(percent(group.map(\.coverage))) on CPU): waiting on a lock, I/O or a synchronous call\(near)"
                + (taskText.map { ", inside a Swift task: \($0)" } ?? "")
        default:
            let culprits = views.map { "\($0) updates" } + (taskText.map { [$0] } ?? [])
            return "the recording has no CPU data, so whether the main thread was busy or blocked cannot be told"
                + (culprits.isEmpty ? "" : "; seen meanwhile: \(culprits.joined(separator: "; "))")
        }
    }

    private func intervalFix(state: String, taskFirst: Bool, run: MainActorOverlap?) -> String {
        let cheaper = "Make the work on the main thread cheaper or move it off: start with the long updates and heaviest frames listed."
        let taskFix = run.map { "Move the work of \(resumeFunctionTitle($0.row)) off the Main Actor (an @concurrent or nonisolated async function) and hop back only to assign the result." }
        switch state {
        case "busy": return taskFirst ? taskFix ?? cheaper : cheaper
        case "blocked": return "Do not wait on the main thread: make the lock, file or network access or synchronous call asynchronous."
        default: return "Record with the Time Profiler (the SwiftUI template includes it) to see what the main thread did." + (taskFix.map { " " + $0 } ?? "")
        }
    }

    private func trace(threadName thread: Int32) -> String {
        thread >= 0 && Int(thread) < threads.count ? threads[Int(thread)].name : "Main Thread"
    }
}

/// "Hang" → "hangs", "Hitch" → "hitches".
private func pluralOf(_ noun: String) -> String {
    noun.lowercased() + (noun.hasSuffix("h") ? "es" : "s")
}

extension Sequence {
    /// The elements in order, each key once (the first).
    func uniqued<Key: Hashable>(by key: (Element) -> Key) -> [Element] {
        var seen = Set<Key>()
        return filter { seen.insert(key($0)).inserted }
    }
}
