// Instruments 27's own measures as findings: long layout passes (the layout tables) and hang
// risks (`hang-risks`) that fall in no recorded hang; those that do explain the hang instead
// (IntervalFindings).

extension Trace {
    // MARK: Long layout

    /// Layout updates longer than `longBodyNs`, one finding per view and layout call
    /// ("LazyVStack: _LazyVStackLayout sizeThatFits"), however few: a layout pass is one frame's work.
    func longLayoutFindings(_ context: inout FindingsContext) -> [Finding] {
        let options = context.options
        struct LayoutKey: Hashable { var view: StringRef, call: String }
        var rowsByKey: [LayoutKey: [Int]] = [:]
        var order: [LayoutKey] = []
        for lane in [Lane.longOther, .otherUpdates] where options.longBodyNs >= LongUpdateSeverity.orangeThreshold ? lane == .longOther : lane == .otherUpdates {
            for row in indexes.updatesByLane[lane] ?? [] where updates.kind[Int(row)] == .layout && updates.duration[Int(row)] > options.longBodyNs {
                let key = LayoutKey(view: updates.viewName[Int(row)], call: Self.layoutCall(string(updates.description[Int(row)])))
                if rowsByKey[key] == nil { order.append(key) }
                rowsByKey[key, default: []].append(Int(row))
            }
        }
        return order.map { key in
            let rows = rowsByKey[key]!
            let longest = rows.max { (updates.duration[$0], $1) < (updates.duration[$1], $0) }!
            let cost = rows.reduce(Nanoseconds(0)) { $0.addingSaturating(updates.duration[$1]) }
            let view = string(key.view)
            let own = updates.selfDuration(longest)
            let ownText = own.map { " (\(DurationText.format($0)) in the layout itself)" } ?? ""
            let cachedText = updates.isCached(longest) == false ? ", not cached" : ""
            let times = rows.count == 1 ? "" : " \(rows.count) times, up to"
            // Mostly its own work: the layout measures too much itself; else its children are the cost.
            let ownShare = own.map { Double($0) / Double(max(updates.duration[longest], 1)) } ?? 0
            let fix = ownShare >= 0.5
                ? "\(view) spends the time in its own measuring: give its children sizes it does not have to measure (a fixed .frame or .fixedSize on the rows, no GeometryReader per row), and keep the rows' identity stable so SwiftUI reuses the cached answer."
                : "\(view)'s children are the cost: find the child layouts below it in the layout updates (their depth is one more) and make them cheaper: fewer nested stacks, fixed sizes where known."
            return Finding(
                id: "\(FindingKind.longLayout.rawValue):\(view):\(key.call)",
                kind: .longLayout, severity: context.severity(cost: cost, worst: updates.duration[longest]),
                title: "\(view) layout (\(key.call)) took\(times) \(DurationText.format(updates.duration[longest]))\(ownText)\(cachedText)",
                subjects: [FindingSubject(role: .view, name: view, detail: string(updates.module[longest]))],
                costNs: cost, savingNs: rows.reduce(Nanoseconds(0)) { $0.addingSaturating(updates.duration[$1] - options.longBodyNs) },
                occurrences: rows.count, worstNs: updates.duration[longest], savingIsLowerBound: true,
                fix: fix,
                evidence: FindingEvidence(
                    updates: context.evidenceUpdates(rows), updateCount: rows.count, representativeUpdate: longest,
                    range: TimeRange(start: updates.start[longest], end: updates.end(longest)),
                    thread: updates.thread[longest] == noRow ? nil : Int(updates.thread[longest]), frames: []
                )
            )
        }
    }

    /// "_LazyVStackLayout: sizeThatFits((402.0, nil)) → …" -> "_LazyVStackLayout sizeThatFits".
    static func layoutCall(_ description: String) -> String {
        guard let colon = description.firstIndex(of: ":") else { return description }
        let type = description[..<colon]
        let call = description[description.index(after: colon)...].drop { $0 == " " }.prefix { $0 != "(" }
        return call.isEmpty ? String(type) : "\(type) \(call)"
    }

    // MARK: Hang risks

    /// The hang risks at `time`...`end` (rows of `hangRisks`, ascending).
    public func hangRisks(from start: Nanoseconds, to end: Nanoseconds) -> Range<Int> {
        let times = hangRisks.time
        var low = 0, high = times.count
        while low < high { let mid = (low + high) / 2; if times[mid] < start { low = mid + 1 } else { high = mid } }
        var upper = low
        while upper < times.count, times[upper] <= end { upper += 1 }
        return low..<upper
    }

    /// The frame a hang risk names: the app's deepest frame of its backtrace (where the app did
    /// it, "TripStore.load()"), else the leaf. Nil without a backtrace.
    func hangRiskFrame(_ row: Int) -> FindingFrame? {
        let stack = hangRisks.backtrace[row]
        guard stack != noRow else { return nil }
        let leaf = Int(cpu.stacks.frame[Int(stack)])
        var current = stack
        var appFrame: Int?
        var caller: Int?
        while current != noRow {
            let frame = Int(cpu.stacks.frame[Int(current)])
            if cpu.frames.isAppCode[frame] {
                if appFrame == nil { appFrame = frame } else if caller == nil { caller = frame }
            }
            current = cpu.stacks.parent[Int(current)]
        }
        let frame = appFrame ?? leaf
        return FindingFrame(
            name: string(cpu.frames.name[frame]), binary: string(cpu.frames.binary[frame]), isAppCode: cpu.frames.isAppCode[frame],
            caller: caller.map { string(cpu.frames.name[$0]) } ?? "", weightNs: 0,
            source: sourceLocation(ofFrame: frame), callerSource: caller.flatMap(sourceLocation(ofFrame:))
        )
    }

    /// "Main thread performed file I/O: read 4.1 MB from trips.json in TripStore.load(), TripStore.swift:57".
    public func hangRiskText(_ row: Int) -> String {
        let message = string(hangRisks.message[row])
        guard let frame = hangRiskFrame(row) else { return message }
        return "\(message) in \(frame.name)" + (frame.source.map { ", \($0.shortText)" } ?? "")
    }

    /// Hang risks outside every recorded hang: one finding per message and frame.
    func hangRiskFindings(_ context: inout FindingsContext) -> [Finding] {
        var rowsByKey: [String: [Int]] = [:]
        var order: [String] = []
        var hang = 0
        let hangs = self.hangs.sorted { $0.start < $1.start }
        for row in 0..<hangRisks.count {
            let time = hangRisks.time[row]
            while hang < hangs.count, hangs[hang].end < time { hang += 1 }
            if hang < hangs.count, hangs[hang].start <= time { continue }
            let key = hangRiskText(row)
            if rowsByKey[key] == nil { order.append(key) }
            rowsByKey[key, default: []].append(row)
        }
        return order.map { text in
            let rows = rowsByKey[text]!
            let first = rows[0]
            let frame = hangRiskFrame(first)
            let severityText = string(hangRisks.severity[first]).lowercased()
            let times = rows.count == 1 ? "at \(DurationText.seconds(hangRisks.time[first]))" : "\(rows.count) times from \(DurationText.seconds(hangRisks.time[first]))"
            let thread = hangRisks.thread[first]
            return Finding(
                id: "\(FindingKind.hangRisk.rawValue):\(hangRisks.time[first])",
                kind: .hangRisk, severity: ["high", "severe", "very high"].contains(severityText) ? .medium : .low,
                title: "Hang risk \(times): \(text)",
                subjects: (frame.map { [FindingSubject(role: .frame, name: $0.name, detail: $0.binary)] } ?? [])
                    + (thread == noRow ? [] : [FindingSubject(role: .thread, name: threads[Int(thread)].name)]),
                costNs: 0, savingNs: 0, occurrences: rows.count, worstNs: 0,
                fix: "No hang was recorded here, but the main thread did what hangs are made of: move it off the main thread"
                    + (frame.map { " (make \($0.name) asynchronous, or call it from a background task)" } ?? "") + " before a slower device or a larger file turns it into one.",
                evidence: FindingEvidence(
                    updates: [], updateCount: 0,
                    range: TimeRange(start: hangRisks.time[first], end: hangRisks.time[first]),
                    thread: thread == noRow ? nil : Int(thread), frames: frame.map { [$0] } ?? []
                )
            )
        }
    }
}
