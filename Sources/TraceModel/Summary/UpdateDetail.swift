// Everything the side panel shows about one update.

public struct UpdateDetail: Sendable, Equatable, Encodable {
    public struct Thread: Sendable, Equatable, Encodable {
        public var index: Int
        public var name: String
        public var tid: Int64
    }

    public struct Group: Sendable, Equatable, Encodable {
        public var id: Int
        public var start: Nanoseconds
        public var duration: Nanoseconds
        public var label: String
    }

    /// A direct cause: the source node of an edge into one of this update's nodes.
    public struct Cause: Sendable, Equatable, Encodable {
        /// Graph node id as the graph API spells it ("n12").
        public var node: String
        public var kind: String
        public var title: String
        public var isAppCode: Bool
        /// Edge label: "update" or "creation".
        public var label: String
        /// The property whose change travelled along the edge, or "".
        public var property: String
    }

    /// A layout update's own measures (Instruments' layout tables): what `description` computed
    /// ("_LazyVStackLayout: sizeThatFits(…)"), its time without the layouts it called, its depth
    /// in the pass and whether the answer came from the cache. Each nil when not recorded.
    public struct Layout: Sendable, Equatable, Encodable {
        @NullWhenAbsent public var selfDuration: Nanoseconds?
        @NullWhenAbsent public var depth: Int?
        @NullWhenAbsent public var cached: Bool?
    }

    /// What the update made run after it (Instruments 27): the updates' total time and count.
    public struct Downstream: Sendable, Equatable, Encodable {
        public var cost: Nanoseconds
        public var events: Int
    }

    public var id: Int
    public var start: Nanoseconds
    public var duration: Nanoseconds
    public var kind: String
    public var severity: String
    public var sourceSeverity: String
    public var module: String
    public var view: String
    public var description: String
    public var category: String
    public var allocations: Int
    @NullWhenAbsent public var thread: Thread?
    @NullWhenAbsent public var process: TraceProcess?
    @NullWhenAbsent public var group: Group?
    /// Neighbouring updates of the same view (same module and view name).
    @NullWhenAbsent public var previous: Int?
    @NullWhenAbsent public var next: Int?
    /// The first `maxCauses` direct causes, and how many there are.
    public var causes: [Cause]
    public var causeCount: Int
    /// Layout updates only (kind "layout" with any of the layout tables' measures).
    @NullWhenAbsent public var layout: Layout?
    /// Nil when the recording has no downstream cost (older than Instruments 27, or none for this row):
    /// `downstreamRecorded` tells the two apart, so the page says "not recorded" rather than 0.
    @NullWhenAbsent public var downstream: Downstream?
    public var downstreamRecorded: Bool

    public static let maxCauses = 100
}

extension Trace {
    /// The update at row `id`, or nil when there is no such row.
    public func updateDetail(_ id: Int) -> UpdateDetail? {
        let table = updates
        guard id >= 0, id < table.count else { return nil }
        let threadRow = Int(table.thread[id])
        let thread = threadRow == Int(noRow) ? nil : threads[threadRow]
        let groupRow = Int(table.group[id])

        // Neighbours in the view's own list (ascending rows), not in every update.
        let sameName = indexes.lists.viewLists(self).updates(ofView: table.viewName[id], byDuration: false)
        var position = sameName.startIndex, high = sameName.endIndex
        while position < high {
            let mid = (position + high) / 2
            if Int(sameName[mid]) < id { position = mid + 1 } else { high = mid }
        }
        func isSameModule(_ row: UInt32) -> Bool { table.module[Int(row)] == table.module[id] }
        let previous = sameName[..<position].last(where: isSameModule).map(Int.init)
        let next = sameName[(position + 1)...].first(where: isSameModule).map(Int.init)

        var causes: [UpdateDetail.Cause] = []
        var causeCount = 0
        for node in indexes.nodes(ofUpdate: id) {
            causeCount += graph.incoming(Int(node)).count
            for edge in graph.incoming(Int(node)) where causes.count < UpdateDetail.maxCauses {
                let source = Int(graph.edges.source[Int(edge)])
                causes.append(UpdateDetail.Cause(
                    node: "n\(source)", kind: graph.nodes.kind[source].wireName,
                    title: causeTitle(node: source), isAppCode: graph.nodes.isAppCode[source],
                    label: graph.edges.label[Int(edge)].wireName,
                    property: string(graph.edges.changedProperty[Int(edge)])
                ))
            }
        }

        return UpdateDetail(
            id: id, start: table.start[id], duration: table.duration[id], kind: table.kind[id].wireName,
            severity: table.severity(id).wireName, sourceSeverity: table.sourceSeverity[id].wireName,
            module: string(table.module[id]), view: string(table.viewName[id]),
            description: string(table.description[id]), category: string(table.category[id]),
            allocations: Int(table.allocations[id]),
            thread: thread.map { UpdateDetail.Thread(index: threadRow, name: $0.name, tid: $0.tid) },
            process: thread.map { processes[Int($0.process)] },
            group: groupRow == Int(noRow) ? nil : UpdateDetail.Group(
                id: groupRow, start: updateGroups.start[groupRow], duration: updateGroups.duration[groupRow],
                label: string(updateGroups.label[groupRow])
            ),
            previous: previous, next: next, causes: causes, causeCount: causeCount,
            layout: layoutDetail(id),
            downstream: table.downstreamCost(id).map { UpdateDetail.Downstream(cost: $0, events: table.downstreamEvents(id) ?? 0) },
            downstreamRecorded: table.hasDownstream
        )
    }

    private func layoutDetail(_ id: Int) -> UpdateDetail.Layout? {
        let table = updates
        let layout = UpdateDetail.Layout(selfDuration: table.selfDuration(id), depth: table.layoutDepth(id), cached: table.isCached(id))
        return layout.selfDuration == nil && layout.depth == nil && layout.cached == nil ? nil : layout
    }
}
