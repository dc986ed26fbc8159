// The rules behind `Trace.findings`, one function per kind. Each reads the columns once (no
// per-update allocation), so a million updates take well under a second.

/// What several rules share, computed when first needed.
struct FindingsContext {
    let trace: Trace
    let options: FindingsOptions
    /// Threads marked main; CPU readings of the UI use them.
    let mainThreads: Set<Int32>
    /// Sample weight per ns of CPU time: 1, or for the CPU Profiler's cycles the clock rate the
    /// samples show, so that findings speak of (estimated) time either way.
    let weightPerNanosecond: Double
    /// The recording has CPU samples: without them busy and blocked cannot be told apart.
    let hasCPUData: Bool
    /// Per stack row: the frame the app called (see `FindingFrame`) and the app frame that called
    /// it, filled on first use (`caller` -2: not yet).
    private var attribution: [(frame: UInt32, caller: Int32)]
    private var isEntryPointFrame: [UInt32: Bool] = [:]
    /// Per update group: time of its updates (the rest of a transaction is SwiftUI's own bookkeeping).
    private var updateTimeByGroup: [Nanoseconds]?
    /// Per main-actor run (row of `taskStates`): the state changes it wrote.
    private var writesByRun: [Int: [Int]]?

    init(trace: Trace, options: FindingsOptions) {
        self.trace = trace
        self.options = options
        mainThreads = Set(trace.threads.indices.filter { trace.threads[$0].isMain }.map(Int32.init))
        weightPerNanosecond = trace.metadata.cpuWeightUnit == .cycles ? CPUPrefixSums.cyclesPerNanosecond(trace.cpu.samples) : 1
        hasCPUData = trace.cpu.samples.count > 0
        attribution = Array(repeating: (0, -2), count: trace.cpu.stacks.count)
    }

    /// Heaviest attributed frames of the samples on `threads` (empty = any thread) in `ranges`
    /// (sorted by start; where they overlap, a sample counts once).
    mutating func heaviestFrames(in ranges: some Sequence<TimeRange>, threads: Set<Int32>) -> [FindingFrame] {
        let samples = trace.cpu.samples
        var weights: [UInt64: Nanoseconds] = [:]
        var readUpTo = Nanoseconds.min
        for range in ranges where range.end > readUpTo {
            var index = indexOfFirst(atLeast: max(range.start, readUpTo), in: samples.time)
            readUpTo = range.end
            while index < samples.count, samples.time[index] < range.end {
                defer { index += 1 }
                if !threads.isEmpty, !threads.contains(samples.thread[index]) { continue }
                let (frame, caller) = attributed(stack: samples.stack[index])
                let key = UInt64(frame) << 32 | UInt64(UInt32(bitPattern: caller))
                weights[key, default: 0].addSaturating(samples.weight[index])
            }
        }
        let frames = trace.cpu.frames
        return weights.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(options.topFrames).map { key, weight in
            let frame = Int(key >> 32)
            let caller = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
            return FindingFrame(
                name: trace.string(frames.name[frame]), binary: trace.string(frames.binary[frame]),
                isAppCode: frames.isAppCode[frame], caller: caller == noRow ? "" : trace.string(frames.name[Int(caller)]),
                weightNs: Nanoseconds(Double(weight) / weightPerNanosecond),
                source: trace.sourceLocation(ofFrame: frame),
                callerSource: caller == noRow ? nil : trace.sourceLocation(ofFrame: Int(caller))
            )
        }
    }

    /// CPU weight sampled on `threads` (empty = any) in `range`.
    func cpuWeight(in range: TimeRange, threads: Set<Int32>) -> Nanoseconds {
        let samples = trace.cpu.samples
        var total: Nanoseconds = 0
        var index = indexOfFirst(atLeast: range.start, in: samples.time)
        while index < samples.count, samples.time[index] < range.end {
            if threads.isEmpty || threads.contains(samples.thread[index]) { total.addSaturating(samples.weight[index]) }
            index += 1
        }
        return weightPerNanosecond == 1 ? total : Nanoseconds(Double(total) / weightPerNanosecond)
    }

    /// The frame below the deepest app frame (what the app's code called), else the leaf. A
    /// row's answer follows from its parent's (the stack table is a prefix tree), so each row is
    /// worked out once, ancestors first, without walking any stack to its root again.
    private mutating func attributed(stack: UInt32) -> (frame: UInt32, caller: Int32) {
        if attribution[Int(stack)].caller != -2 { return attribution[Int(stack)] }
        let stacks = trace.cpu.stacks
        var pending: [Int] = []
        var current = Int32(stack)
        while current != noRow, attribution[Int(current)].caller == -2 {
            pending.append(Int(current))
            current = stacks.parent[Int(current)]
        }
        for row in pending.reversed() {
            let frame = stacks.frame[row], parent = Int(stacks.parent[row])
            if isAppFrame(frame) || parent == Int(noRow) {
                // An app frame is its own answer; a root with no app frame above is the leaf's.
                attribution[row] = (frame, noRow)
            } else if isAppFrame(stacks.frame[parent]) {
                attribution[row] = (frame, Int32(stacks.frame[parent]))
            } else {
                // Same deepest app frame as the parent's, and the same frame below it; none: the leaf.
                let above = attribution[parent]
                attribution[row] = above.caller == noRow ? (frame, noRow) : above
            }
        }
        return attribution[Int(stack)]
    }

    /// An app frame that is not an entry point: `main` / `static App.$main()` sit under every
    /// stack of the app, calling into UIKit from them says nothing.
    private mutating func isAppFrame(_ frame: UInt32) -> Bool {
        guard trace.cpu.frames.isAppCode[Int(frame)] else { return false }
        if let known = isEntryPointFrame[frame] { return !known }
        let name = trace.string(trace.cpu.frames.name[Int(frame)])
        let entry = name == "main" || name.hasSuffix("$main()") || name.hasSuffix(".main()")
        isEntryPointFrame[frame] = entry
        return !entry
    }

    /// Updates whose cause graph starts at a state change one of `runs` wrote (the first update
    /// each change caused), ascending: where the cause chain from the task is drawn.
    mutating func updatesCaused(byRuns runs: [Int]) -> [Int] {
        if writesByRun == nil {
            var writes: [Int: [Int]] = [:]
            for change in 0..<trace.stateChanges.count {
                if QueryCancellation.requested(at: change) { break }
                if let writer = trace.mainActorRun(writing: change) { writes[writer.row, default: []].append(change) }
            }
            writesByRun = writes
        }
        var found = Set<Int>()
        for run in runs {
            for change in writesByRun![run] ?? [] {
                if let update = trace.firstUpdate(causedBy: Int(trace.stateChanges.node[change])) { found.insert(update) }
            }
        }
        return found.sorted()
    }

    mutating func updateTime(ofGroup group: Int) -> Nanoseconds {
        if updateTimeByGroup == nil {
            var totals = [Nanoseconds](repeating: 0, count: trace.updateGroups.count)
            let updates = trace.updates
            for row in 0..<updates.count where updates.group[row] != noRow {
                if QueryCancellation.requested(at: row) { break }
                totals[Int(updates.group[row])].addSaturating(updates.duration[row])
            }
            updateTimeByGroup = totals
        }
        return updateTimeByGroup![group]
    }

    /// Threads a view update's CPU is read on: its own, else the main thread(s).
    func threads(ofUpdate row: Int) -> Set<Int32> {
        let thread = trace.updates.thread[row]
        return thread == noRow ? mainThreads : [thread]
    }

    func evidenceUpdates(_ rows: some Collection<Int>) -> [Int] {
        Array(rows.sorted().prefix(options.maxEvidenceUpdates))
    }

    /// High: costs a frame at once or 50 ms in all; medium: 1 ms at once or 5 ms in all; else low.
    func severity(cost: Nanoseconds, worst: Nanoseconds) -> FindingSeverity {
        let frame = trace.metadata.frameDuration
        if worst >= frame || cost >= 50_000_000 { return .high }
        if worst >= 1_000_000 || cost >= 5_000_000 { return .medium }
        return .low
    }
}

private func plural(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }

extension Trace {
    // MARK: Collection fan-out

    func collectionFanOutFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        var found: [Finding] = []
        for fanOut in causeFanOuts(from: [.state, .observable]) where fanOut.label == .update && fanOut.targetKind == .viewBody {
            let wide = fanOut.events.filter { $0.updates.count >= options.fanOutMinBodies }
            guard wide.count >= options.fanOutMinEvents, let widest = wide.max(by: { $0.updates.count < $1.updates.count }) else { continue }
            var cost: Nanoseconds = 0, saving: Nanoseconds = 0, worst: Nanoseconds = 0
            for event in wide {
                let time = event.updates.reduce(Nanoseconds(0)) { $0.addingSaturating(updates.duration[$1]) }
                cost.addSaturating(time)
                worst = max(worst, time)
                // With a model per item, one change runs about one body: the event's average.
                saving.addSaturating(time - time / Nanoseconds(event.updates.count))
            }
            let rows = wide.flatMap(\.updates)
            let span = TimeRange(
                start: widest.updates.map { updates.start[$0] }.min()!, end: widest.updates.map { updates.end($0) }.max()!
            )
            let cause = fanOut.sourceTitle
            let perEvent = wide.map(\.updates.count)
            let fan = perEvent.min() == perEvent.max() ? "\(perEvent[0])" : "\(perEvent.min()!)–\(perEvent.max()!)"
            var subjects = [
                FindingSubject(role: .property, name: fanOut.source, detail: fanOut.sourceOwner),
                FindingSubject(role: .view, name: fanOut.targetName, detail: string(updates.module[widest.updates.first!])),
            ]
            if !fanOut.property.isEmpty { subjects.insert(FindingSubject(role: .property, name: fanOut.property, detail: fanOut.sourceOwner), at: 1) }
            found.append(Finding(
                id: "\(FindingKind.collectionFanOut.rawValue):\(fanOut.source)>\(fanOut.targetName)",
                kind: .collectionFanOut, severity: context.severity(cost: cost, worst: worst),
                title: "One change of \(cause) runs \(fan) \(fanOut.targetName) bodies (\(plural(wide.count, "change")))",
                subjects: subjects, costNs: cost, savingNs: saving, occurrences: wide.count, worstNs: worst,
                fix: "Give each \(fanOut.targetName) its own @Observable model (per-item state), so a change to one item runs one body, not every item's.",
                evidence: FindingEvidence(
                    updates: context.evidenceUpdates(rows), updateCount: rows.count, representativeUpdate: widest.updates.first!,
                    range: span, thread: nil, frames: [], cpuCoverage: nil
                )
            ))
        }
        return found
    }

    // MARK: Long body

    func longBodyFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        // The long lane holds every body over the orange threshold: enough unless the threshold is lower.
        let lane: Lane = options.longBodyNs >= LongUpdateSeverity.orangeThreshold ? .longViewBody : .viewBody
        struct ViewKey: Hashable { var module: StringRef, view: StringRef }
        var rowsByView: [ViewKey: [Int]] = [:]
        var order: [ViewKey] = []
        for (index, row) in (indexes.updatesByLane[lane] ?? []).enumerated() where updates.duration[Int(row)] > options.longBodyNs {
            if QueryCancellation.requested(at: index) { return [] }
            let key = ViewKey(module: updates.module[Int(row)], view: updates.viewName[Int(row)])
            if rowsByView[key] == nil { order.append(key) }
            rowsByView[key, default: []].append(Int(row))
        }
        var costs: [(key: ViewKey, cost: Nanoseconds, saving: Nanoseconds)] = []
        for key in order where rowsByView[key]!.count >= options.longBodyMinCount {
            var cost: Nanoseconds = 0, saving: Nanoseconds = 0
            for row in rowsByView[key]! {
                cost.addSaturating(updates.duration[row])
                saving.addSaturating(updates.duration[row] - options.longBodyNs)
            }
            costs.append((key, cost, saving))
        }
        // Reading frames is a pass over the samples of the view's updates: the costliest views only.
        let framed = Set(costs.indices.sorted { (costs[$0].cost, $1) > (costs[$1].cost, $0) }.prefix(FindingsOptions.maxViewsWithFrames))
        var found: [Finding] = []
        for (index, (key, cost, saving)) in costs.enumerated() {
            let rows = rowsByView[key]!
            let view = string(key.view), module = string(key.module)
            let longest = rows.max { (updates.duration[$0], $1) < (updates.duration[$1], $0) }!
            let frames = !framed.contains(index) ? [] : context.heaviestFrames(
                in: rows.lazy.map { TimeRange(start: self.updates.start[$0], end: self.updates.end($0)) },
                threads: context.threads(ofUpdate: longest)
            )
            // One frame called from several places is one frame to name.
            let heavy = frames.filter { !($0.isAppCode && $0.name.hasPrefix("\(view).body")) }.map(\.name).uniqued(by: { $0 }).prefix(3)
            let within = heavy.isEmpty ? "" : ", mostly in \(heavy.joined(separator: ", "))"
            found.append(Finding(
                id: "\(FindingKind.longBody.rawValue):\(module).\(view)",
                kind: .longBody, severity: context.severity(cost: cost, worst: updates.duration[longest]),
                title: "\(view).body takes over \(DurationText.format(options.longBodyNs)) \(rows.count) times (up to \(DurationText.format(updates.duration[longest])))\(within)",
                subjects: [FindingSubject(role: .view, name: view, detail: module)]
                    + frames.map { FindingSubject(role: .frame, name: $0.name, detail: $0.binary) }.uniqued(by: \.name),
                costNs: cost, savingNs: saving, occurrences: rows.count, worstNs: updates.duration[longest], savingIsLowerBound: true,
                fix: "Move the work out of \(view).body: cache formatters and other expensive objects, precompute values (in the model) instead of computing them on every call.",
                evidence: FindingEvidence(
                    updates: context.evidenceUpdates(rows), updateCount: rows.count, representativeUpdate: longest,
                    range: TimeRange(start: updates.start[longest], end: updates.end(longest)),
                    thread: updates.thread[longest] == noRow ? context.mainThreads.min().map(Int.init) : Int(updates.thread[longest]),
                    frames: frames, cpuCoverage: nil,
                    cpuView: FindingCPUView(
                        name: view, module: module, category: string(updates.category[longest]),
                        filter: (lane == .longViewBody ? SummaryFilter.longViewBody : .all).rawValue, longerThanNs: options.longBodyNs
                    )
                )
            ))
        }
        return found
    }

    // MARK: Environment churn

    func environmentChurnFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        let nodes = graph.nodes, edges = graph.edges, causes = graph
        struct Churn {
            var name: StringRef
            var root = ""
            var changes = 0, notified = 0, skipped = 0, widest = 0
            var properties = UniqueRefs(), ranViews = UniqueRefs(), skippedViews = UniqueRefs()
            var ran: [Int] = []
            var groups = Set<Int32>()
            var widestGroup = noRow
        }
        // One entry per environment node name, mutated in place (no copy per event).
        var churns: [Churn] = []
        var indexOfName: [StringRef: Int] = [:]
        var roots = EnvironmentRoots()
        for node in 0..<nodes.count where nodes.kind[node] == .externalEnvironment || nodes.kind[node] == .environmentWriter {
            if QueryCancellation.requested(at: node) { return [] }
            var notified = 0, skipped = 0, group = noRow
            for edge in causes.outgoing(node) where edges.label[Int(edge)] == .update && nodes.kind[Int(edges.target[Int(edge)])] == .viewBody {
                notified += 1
                if notified == 1 {
                    if indexOfName[nodes.name[node]] == nil {
                        indexOfName[nodes.name[node]] = churns.count
                        churns.append(Churn(name: nodes.name[node], root: string(graph.nodes.name[roots.root(of: node, in: graph)])))
                    }
                }
                let index = indexOfName[nodes.name[node]]!
                let target = Int(edges.target[Int(edge)])
                group = edges.group[Int(edge)]
                churns[index].properties.insert(edges.changedProperty[Int(edge)])
                if nodes.update[target] == noRow {
                    skipped += 1
                    churns[index].skippedViews.insert(nodes.name[target])
                } else {
                    churns[index].ran.append(Int(nodes.update[target]))
                    churns[index].ranViews.insert(nodes.name[target])
                }
            }
            guard notified > 0, let index = indexOfName[nodes.name[node]] else { continue }
            churns[index].changes += 1
            churns[index].notified += notified
            churns[index].skipped += skipped
            if group != noRow { churns[index].groups.insert(group) }
            if notified > churns[index].widest { (churns[index].widest, churns[index].widestGroup) = (notified, group) }
        }
        var found: [Finding] = []
        for churn in churns {
            guard churn.widest >= options.environmentMinNotified, churn.skipped > 0,
                  Double(churn.skipped) >= options.environmentMinSkippedShare * Double(churn.notified) else { continue }
            // Checking whether a body must run is not an update of its own: it is in the
            // transaction's time outside its updates.
            var cost: Nanoseconds = 0, worst: Nanoseconds = 0
            for group in churn.groups {
                let overhead = max(0, updateGroups.duration[Int(group)] - context.updateTime(ofGroup: Int(group)))
                cost.addSaturating(overhead)
                worst = max(worst, overhead)
            }
            let share = Double(churn.skipped) / Double(churn.notified)
            let writer = string(churn.name)
            let source = churn.root == writer ? writer : "\(churn.root) → \(writer)"
            // Subjects and the title name the first few; a change may notify thousands of views.
            let listed = FindingsOptions.maxSubjectsPerRole
            let allProperties = churn.properties.order.filter { $0 != 0 }
            let properties = allProperties.prefix(listed).map(string)
            let views = (churn.skippedViews.order + churn.ranViews.order.lazy.filter { !churn.skippedViews.contains($0) }).prefix(listed).map(string)
            let values = properties.isEmpty ? "an environment value"
                : properties.joined(separator: ", ") + (allProperties.count > listed ? " and \(allProperties.count - listed) more" : "")
            var subjects = [FindingSubject(role: .environment, name: source)]
            subjects += properties.map { FindingSubject(role: .property, name: $0, detail: "environment") }
            subjects += views.map { FindingSubject(role: .view, name: $0) }
            let widestGroup = churn.widestGroup == noRow ? nil : Int(churn.widestGroup)
            let representative = churn.ran.first { updates.group[$0] == churn.widestGroup } ?? churn.ran.first
            // A value that changes once or twice in a recording (the appearance, the locale) costs a
            // re-check of its readers each time: worth knowing, not worth restructuring for.
            let rare = churn.changes < FindingsOptions.environmentFrequentChanges
            let changes = churn.changes == 1 ? "A change" : "\(churn.changes) changes"
            let atOnce = churn.changes > 1 && churn.widest < churn.notified ? " (up to \(churn.widest) at once)" : ""
            found.append(Finding(
                id: "\(FindingKind.environmentChurn.rawValue):\(writer)",
                kind: .environmentChurn, severity: rare ? .low : context.severity(cost: cost, worst: worst),
                title: "\(changes) of \(values) (\(source)) notified \(churn.notified == 1 ? "1 view body" : "\(churn.notified) view bodies")\(atOnce); \(churn.skipped) of them did not need to run",
                subjects: subjects, costNs: cost, savingNs: Nanoseconds(Double(cost) * share), occurrences: churn.changes, worstNs: worst,
                fix: rare
                    ? "\(values) changed \(churn.changes == 1 ? "once" : "twice") in this recording (as the appearance or the locale does): each change only re-checks the views that read the environment, which costs little when rare. Nothing to fix unless it changes often; then read narrower values."
                    : "Read narrower values: keep frequently changing values (geometry, timers, scroll offsets) out of the environment and pass them only to the views that use them.",
                evidence: FindingEvidence(
                    updates: context.evidenceUpdates(churn.ran), updateCount: churn.ran.count, representativeUpdate: representative,
                    range: widestGroup.map { TimeRange(start: updateGroups.start[$0], end: updateGroups.start[$0] + updateGroups.duration[$0]) },
                    thread: nil, frames: [], cpuCoverage: nil
                )
            ))
        }
        return found
    }


    // MARK: Repeated body in one transaction

    func repeatedBodyFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        let table = updates  // one copy, not one per access in debug builds
        // Body updates bucketed by update group (counting sort: one pass, no per-group arrays).
        let groupCount = updateGroups.count
        var offsets = [Int](repeating: 0, count: groupCount + 1)
        for row in 0..<table.count where table.kind[row] == .viewBody && table.group[row] != noRow {
            if QueryCancellation.requested(at: row) { return [] }
            offsets[Int(table.group[row]) + 1] += 1
        }
        for group in 0..<groupCount { offsets[group + 1] += offsets[group] }
        var bucket = [Int32](repeating: 0, count: offsets[groupCount])
        var fill = offsets
        for row in 0..<table.count where table.kind[row] == .viewBody && table.group[row] != noRow {
            if QueryCancellation.requested(at: row) { return [] }
            let group = Int(table.group[row])
            bucket[fill[group]] = Int32(row)
            fill[group] += 1
        }

        struct ViewKey: Hashable { var module: StringRef, view: StringRef }
        struct Repeats { var groups = 0, worstRuns = 0, worstGroup = 0, runs: [Int] = [], cost: Nanoseconds = 0, saving: Nanoseconds = 0, worstCost: Nanoseconds = 0 }
        var repeatsByView: [ViewKey: Repeats] = [:]
        for group in 0..<groupCount where offsets[group + 1] - offsets[group] >= options.repeatedBodyMinRuns {
            if QueryCancellation.requested(at: group) { return [] }
            let rows = bucket[offsets[group]..<offsets[group + 1]].sorted {
                (table.module[Int($0)], table.viewName[Int($0)], $0) < (table.module[Int($1)], table.viewName[Int($1)], $1)
            }
            var first = 0
            while first < rows.count {
                let key = ViewKey(module: table.module[Int(rows[first])], view: table.viewName[Int(rows[first])])
                var end = first + 1
                while end < rows.count, table.module[Int(rows[end])] == key.module, table.viewName[Int(rows[end])] == key.view { end += 1 }
                defer { first = end }
                guard end - first >= options.repeatedBodyMinRuns else { continue }
                // Bodies of one view type caused by the same event are sibling instances (a fan-out),
                // not one view running again: count one run per distinct cause.
                var sources = Set<UInt32>()
                var runs: [Int] = []
                for row in rows[first..<end] {
                    guard let source = firstCause(ofUpdate: Int(row)), sources.insert(source).inserted else { continue }
                    runs.append(Int(row))
                }
                guard runs.count >= options.repeatedBodyMinRuns else { continue }
                let times = runs.map { table.duration[$0] }
                let cost = times.reduce(Nanoseconds(0)) { $0.addingSaturating($1) }
                var repeats = repeatsByView[key] ?? Repeats()
                repeats.groups += 1
                repeats.cost.addSaturating(cost)
                repeats.saving.addSaturating(cost - times.max()!)
                if runs.count > repeats.worstRuns { (repeats.worstRuns, repeats.worstGroup, repeats.worstCost) = (runs.count, group, cost) }
                repeats.runs += runs
                repeatsByView[key] = repeats
            }
        }
        return repeatsByView.map { key, repeats in
            let view = string(key.view), module = string(key.module)
            let worstRuns = repeats.runs.filter { Int(table.group[$0]) == repeats.worstGroup }
            return Finding(
                id: "\(FindingKind.repeatedBody.rawValue):\(module).\(view)",
                kind: .repeatedBody, severity: context.severity(cost: repeats.cost, worst: repeats.worstCost),
                title: "\(view).body runs up to \(repeats.worstRuns) times in one transaction (\(plural(repeats.groups, "transaction")))",
                subjects: [FindingSubject(role: .view, name: view, detail: module)]
                    + Set(repeats.runs.compactMap { firstCause(ofUpdate: $0) }.map { causeTitle(node: Int($0)) }).sorted().prefix(5)
                        .map { FindingSubject(role: .property, name: $0) },
                costNs: repeats.cost, savingNs: repeats.saving, occurrences: repeats.groups, worstNs: repeats.worstCost,
                fix: "Let \(view) settle in one pass: do not write state it reads while it updates (body, onAppear, onChange), and coalesce several writes into one.",
                evidence: FindingEvidence(
                    updates: context.evidenceUpdates(repeats.runs), updateCount: repeats.runs.count,
                    representativeUpdate: worstRuns.dropFirst().first ?? worstRuns.first,
                    range: TimeRange(start: updateGroups.start[repeats.worstGroup], end: updateGroups.start[repeats.worstGroup] + updateGroups.duration[repeats.worstGroup]),
                    thread: nil, frames: [], cpuCoverage: nil
                )
            )
        }
    }

    /// The source node of the first edge into one of the update's nodes.
    private func firstCause(ofUpdate row: Int) -> UInt32? {
        guard let node = indexes.nodes(ofUpdate: row).first(where: { !graph.incoming(Int($0)).isEmpty }) else { return nil }
        return graph.edges.source[Int(graph.incoming(Int(node)).first!)]
    }
}

/// The first environment node up the chain of environment edges into a node, remembered for
/// every node of the chain: a chain of thousands of writers is walked once, not once per writer.
struct EnvironmentRoots {
    private var rootOf: [Int: Int] = [:]

    mutating func root(of node: Int, in graph: CauseGraph) -> Int {
        var chain: [Int] = []
        var onChain = Set<Int>()
        var current = node
        while rootOf[current] == nil, onChain.insert(current).inserted {
            chain.append(current)
            guard let edge = graph.incoming(current).first(where: {
                let kind = graph.nodes.kind[Int(graph.edges.source[Int($0)])]
                return kind == .externalEnvironment || kind == .environmentWriter
            }) else { break }
            current = Int(graph.edges.source[Int(edge)])
        }
        // The walk ended at a known node, or at the chain's last node: it has no environment
        // cause, or its cause is on the chain already (a cycle).
        let root = rootOf[current] ?? chain.last ?? current
        for member in chain { rootOf[member] = root }
        return root
    }
}

/// Interned strings in order of first appearance, each once.
struct UniqueRefs {
    private(set) var order: [StringRef] = []
    private var seen = Set<StringRef>()

    mutating func insert(_ ref: StringRef) {
        if seen.insert(ref).inserted { order.append(ref) }
    }

    func contains(_ ref: StringRef) -> Bool { seen.contains(ref) }
}
