// The cause fan-out: which cause made which view bodies run, and how many per cause event
// ("@Observable ModelData.favoritesCollection → LandmarkListItemView.body ×12 per event").
// `tracesvc inspect` prints it; the comparison matches it between two traces.

/// Edges from one kind of cause to one kind of target, merged over the trace: each cause event
/// (a source node) made `minPerEvent...maxPerEvent` targets run.
public struct CauseFanOut: Sendable, Equatable, Hashable, Encodable {
    /// Node titles; a view body's ends in ".body".
    public var source: String
    public var target: String
    /// "update" or "creation".
    public var label: String
    /// The property whose change travelled along the edges, or "".
    public var property: String
    /// Cause events (source nodes) with at least one such edge.
    public var events: Int
    /// Target updates caused, over all events.
    public var updates: Int
    public var minPerEvent: Int
    public var maxPerEvent: Int

    /// What identifies the same fan-out in another trace.
    public struct Key: Sendable, Hashable {
        public var source: String, target: String, label: String, property: String
    }

    public var key: Key { Key(source: source, target: target, label: label, property: property) }

    /// "×12", or "×1–3" when events fanned out to different numbers of targets.
    public var fanOutText: String { minPerEvent == maxPerEvent ? "×\(minPerEvent)" : "×\(minPerEvent)–\(maxPerEvent)" }

    /// "@Observable X (items) → Row.body ×12 [creation]"
    public var edgeText: String {
        let changed = property.isEmpty ? "" : " (\(property))"
        return "\(source)\(changed) → \(target) \(fanOutText)\(label == EdgeLabel.creation.wireName ? " [creation]" : "")"
    }
}

/// A fan-out keyed by the trace's interned names: what the comparison matches between two traces
/// before it spends a String on any row (a trace can have tens of thousands of fan-outs).
struct FanOutCount: Sendable {
    struct Key: Hashable, Sendable {
        var source: StringRef, target: StringRef, property: StringRef
        var sourceIsBody: Bool, targetIsBody: Bool, label: EdgeLabel

        /// Where the key starts probing in a power-of-two table (`mask` = size - 1).
        @inline(__always) func slot(seed: UInt64, mask: Int) -> Int {
            var h = seed ^ (UInt64(source) &* 0x9E37_79B9_7F4A_7C15)
            h ^= UInt64(target) &* 0xC2B2_AE3D_27D4_EB4F
            h ^= UInt64(property) &* 0x1656_67B1_9E37_79F9
            h ^= UInt64(label.rawValue) << 2 | (sourceIsBody ? 1 : 0) | (targetIsBody ? 2 : 0)
            h = (h ^ (h >> 31)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (h ^ (h >> 29)) & UInt64(mask))
        }
    }

    var key: Key
    var events = 0
    var updates = 0
    var minPerEvent = Int.max
    var maxPerEvent = 0

    /// The row with names, from the string table of the trace it was counted in.
    func fanOut(strings: [String]) -> CauseFanOut {
        CauseFanOut(
            source: strings[Int(key.source)] + (key.sourceIsBody ? ".body" : ""),
            target: strings[Int(key.target)] + (key.targetIsBody ? ".body" : ""),
            label: key.label.wireName, property: strings[Int(key.property)], events: events, updates: updates,
            minPerEvent: minPerEvent, maxPerEvent: maxPerEvent
        )
    }
}

/// Ids of fan-out keys: open addressing with linear probing, half full at most. Millions of
/// edges name few distinct keys, and this answers without the dictionary's SipHash; the seed is
/// random so that no file can make its keys collide.
struct FanOutKeyTable {
    private var keys: [FanOutCount.Key?] = Array(repeating: nil, count: 1 << 10)
    private var ids: [Int] = Array(repeating: 0, count: 1 << 10)
    private var count = 0
    private let seed = UInt64.random(in: .min ... .max)

    /// The id of `key`, or `next` (now its id) when the key is new.
    mutating func id(of key: FanOutCount.Key, next: Int) -> Int {
        var slot = key.slot(seed: seed, mask: keys.count - 1)
        while let existing = keys[slot] {
            if existing == key { return ids[slot] }
            slot = (slot + 1) & (keys.count - 1)
        }
        keys[slot] = key
        ids[slot] = next
        count += 1
        if count * 2 > keys.count { grow() }
        return next
    }

    private mutating func grow() {
        let old = zip(keys, ids).compactMap { key, id in key.map { ($0, id) } }
        keys = Array(repeating: nil, count: keys.count * 2)
        ids = Array(repeating: 0, count: keys.count)
        for (key, id) in old {
            var slot = key.slot(seed: seed, mask: keys.count - 1)
            while keys[slot] != nil { slot = (slot + 1) & (keys.count - 1) }
            keys[slot] = key
            ids[slot] = id
        }
    }
}

extension Trace {
    /// Edges into nodes whose body ran (and whose update overlaps `range`), grouped by cause
    /// event and merged by (source title, target title, label, property); most updates first.
    public func causeFanOuts(in range: TimeRange? = nil) -> [CauseFanOut] {
        causeFanOutCounts(in: range).map { $0.fanOut(strings: strings) }
            .sorted { ($0.updates, $1.source, $1.target, $1.property) > ($1.updates, $0.source, $0.target, $0.property) }
    }

    /// The fan-outs in the order first met, with interned names.
    func causeFanOutCounts(in range: TimeRange?) -> [FanOutCount] {
        // Locals, read once: a stored property of a struct reached in the loop can cost a copy
        // (a retain per array) per iteration, over millions of edges.
        let nodes = graph.nodes, edges = graph.edges
        let offsets = graph.outgoingOffsets, outgoing = graph.outgoingEdges
        let updateStarts = updates.start, updateDurations = updates.duration
        var ids = FanOutKeyTable()
        var totals: [FanOutCount] = []
        // Walk by source node (one node is one cause event), counting each event's targets per
        // key in `eventCount` (reset through `touched`) instead of a (key, event) table.
        var eventCount: [Int] = []
        var touched: [Int] = []
        for source in 0..<nodes.count {
            for edge in outgoing[Int(offsets[source])..<Int(offsets[source + 1])] {
                let target = Int(edges.target[Int(edge)])
                let update = Int(nodes.update[target])
                guard update != Int(noRow) else { continue }
                if let range, !range.overlaps(start: updateStarts[update], end: updateStarts[update] + updateDurations[update]) { continue }
                let key = FanOutCount.Key(
                    source: nodes.name[source], target: nodes.name[target], property: edges.changedProperty[Int(edge)],
                    sourceIsBody: nodes.kind[source] == .viewBody, targetIsBody: nodes.kind[target] == .viewBody, label: edges.label[Int(edge)]
                )
                let id = ids.id(of: key, next: totals.count)
                if id == totals.count {
                    totals.append(FanOutCount(key: key))
                    eventCount.append(0)
                }
                if eventCount[id] == 0 { touched.append(id) }
                eventCount[id] += 1
            }
            for id in touched {
                let count = eventCount[id]
                eventCount[id] = 0
                totals[id].events += 1
                totals[id].updates += count
                totals[id].minPerEvent = min(totals[id].minPerEvent, count)
                totals[id].maxPerEvent = max(totals[id].maxPerEvent, count)
            }
            touched.removeAll(keepingCapacity: true)
        }
        return totals
    }
}
