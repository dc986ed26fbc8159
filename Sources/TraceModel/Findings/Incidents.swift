// One incident, one finding (issue 41): a hitch or a hang, the Swift task that held the Main
// Actor meanwhile and the tasks that waited for it are one problem seen from three sides, not
// three problems. Findings of those kinds whose times overlap (a hitch counts from the frame
// before it, where the work that made it late ran) become one finding with them as its `parts`:
// the cause leads (the block, else the hang, the hitch, the wait) and gives the finding its id,
// title and fix; its cost is the time the parts cover together, each instant once.

extension Finding {
    /// The kinds one incident joins, the one that leads first.
    static let incidentKinds: [FindingKind] = [.mainActorBlocked, .hangExplained, .hitchExplained, .mainActorWait]
}

extension Trace {
    /// The time all of `findings` cost, each instant once: the union of where each was spent
    /// (`costRanges`), and the cost of those that do not say where, as apart from the others.
    public func totalCost(of findings: [Finding]) -> Nanoseconds {
        var ranges: [TimeRange] = []
        var unlocated: Nanoseconds = 0
        for finding in findings {
            if let spent = costRanges(of: finding) { ranges += spent } else { unlocated.addSaturating(finding.costNs) }
        }
        return TimeRange.covered(ranges).addingSaturating(unlocated)
    }

    /// Where `finding`'s cost was spent, read off its evidence: a hang's or hitch's intervals, the
    /// Main Actor runs of a block, the waits of a wait, the updates of the others; an incident's
    /// parts'. Nil when the evidence does not hold all of them (it lists at most
    /// `maxEvidenceUpdates`) or the cost is not time in the recording (environment churn,
    /// repeated bodies: time between or across updates).
    func costRanges(of finding: Finding) -> [TimeRange]? {
        if !finding.parts.isEmpty {
            var ranges: [TimeRange] = []
            for part in finding.parts {
                guard let spent = costRanges(of: part) else { return nil }
                ranges += spent
            }
            return ranges
        }
        let evidence = finding.evidence
        let states = taskStates
        func taskRanges(_ state: SwiftTaskState) -> [TimeRange] {
            evidence.taskStates.filter { $0 < states.count && states.state[$0] == state && states.isMainActor[$0] }
                .map { TimeRange(start: states.start[$0], end: states.end($0)) }
        }
        switch finding.kind {
        case .hangExplained, .hitchExplained:
            return evidence.intervals.count == finding.occurrences ? evidence.intervals : nil
        case .mainActorBlocked:
            let runs = taskRanges(.running)
            return runs.count == finding.occurrences ? runs : nil
        case .mainActorWait:
            let waits = taskRanges(.enqueued)
            return waits.count == finding.occurrences ? waits : nil
        case .collectionFanOut, .longBody, .longLayout:
            guard evidence.updates.count == evidence.updateCount else { return nil }
            return evidence.updates.filter { $0 < updates.count }.map { TimeRange(start: updates.start[$0], end: updates.end($0)) }
        case .environmentChurn, .repeatedBody, .hangRisk:
            return nil
        }
    }
}

extension TimeRange {
    /// The time `ranges` cover together: overlapping time once.
    static func covered(_ ranges: [TimeRange]) -> Nanoseconds {
        var total: Nanoseconds = 0
        var current: TimeRange?
        for range in ranges.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) where range.end > range.start {
            if let open = current, range.start <= open.end {
                current = TimeRange(start: open.start, end: max(open.end, range.end))
            } else {
                if let open = current { total.addSaturating(open.end - open.start) }
                current = range
            }
        }
        if let open = current { total.addSaturating(open.end - open.start) }
        return total
    }
}

extension Trace {
    /// `findings` with each incident's findings joined into one (the others as they were).
    func joiningIncidents(_ findings: [Finding]) -> [Finding] {
        // The findings that may join, and where each sits in time (a hitch from the frame before it).
        let lead = metadata.frameDuration
        var spans: [(range: TimeRange, member: Int)] = []
        for index in findings.indices {
            let finding = findings[index]
            guard Finding.incidentKinds.contains(finding.kind), !finding.id.hasSuffix(":more"), let spent = costRanges(of: finding) else { continue }
            for range in spent {
                spans.append((finding.kind == .hitchExplained ? TimeRange(start: range.start - lead, end: range.end) : range, index))
            }
        }
        guard spans.count > 1 else { return findings }
        // One sweep in time: a span that starts before the stretch so far ends joins its findings.
        var parent = Array(findings.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        // Only findings of different kinds join (two readings of nested hangs stay two); two of one
        // kind are one incident when a finding of another kind overlaps both.
        spans.sort { ($0.range.start, $0.range.end, $0.member) < ($1.range.start, $1.range.end, $1.member) }
        var stretchEnd = Nanoseconds.min
        var memberOfKind: [FindingKind: Int] = [:]
        for span in spans {
            if span.range.start >= stretchEnd { memberOfKind = [:] }
            stretchEnd = max(stretchEnd, span.range.end)
            let kind = findings[span.member].kind
            for (other, member) in memberOfKind where other != kind {
                let (a, b) = (root(member), root(span.member))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
            if memberOfKind[kind] == nil { memberOfKind[kind] = span.member }
        }
        var groups: [Int: [Int]] = [:]
        for index in findings.indices { groups[root(index), default: []].append(index) }
        var joined: [Finding] = []
        for index in findings.indices where root(index) == index {
            let members = groups[index]!
            joined.append(members.count == 1 ? findings[index] : incident(of: members.map { findings[$0] }))
        }
        return joined
    }

    /// One finding of an incident's findings: the leading part's, with every part in `parts`.
    private func incident(of members: [Finding]) -> Finding {
        let rank = { (finding: Finding) in Finding.incidentKinds.firstIndex(of: finding.kind) ?? Finding.incidentKinds.count }
        let parts = members.sorted { (rank($0), $1.costNs, $0.id) < (rank($1), $0.costNs, $1.id) }
        var finding = parts[0]
        finding.parts = parts
        finding.costNs = TimeRange.covered(parts.flatMap { costRanges(of: $0) ?? [] })
        // The leading fix removes what held the others up: the largest saving of any part, within the cost.
        finding.savingNs = min(finding.costNs, parts.map(\.savingNs).max() ?? 0)
        finding.worstNs = parts.map(\.worstNs).max() ?? 0
        finding.severity = parts.map(\.severity).max() ?? finding.severity
        finding.subjects = parts.flatMap(\.subjects).uniqued { "\($0.role.rawValue)|\($0.name)" }
        finding.evidence.taskStates = parts.flatMap(\.evidence.taskStates).uniqued { $0 }
        let others = parts.dropFirst().map { $0.kind.incidentText(count: $0.occurrences) }
        let list = others.count == 1 ? others[0] : others.dropLast().joined(separator: ", ") + " and " + others.last!
        finding.title += " (one incident with \(list): \(DurationText.format(finding.costNs)) in all)"
        return finding
    }
}

extension FindingKind {
    /// "a hitch", "3 Main Actor waits": an incident's title lists its other parts so.
    func incidentText(count: Int) -> String {
        let one = count == 1
        return switch self {
        case .mainActorBlocked: one ? "a task blocking the Main Actor" : "\(count) runs blocking the Main Actor"
        case .mainActorWait: one ? "a Main Actor wait" : "\(count) Main Actor waits"
        case .hitchExplained: one ? "a hitch" : "\(count) hitches"
        case .hangExplained: one ? "a hang" : "\(count) hangs"
        default: one ? "a \(rawValue) finding" : "\(count) \(rawValue) findings"
        }
    }
}
