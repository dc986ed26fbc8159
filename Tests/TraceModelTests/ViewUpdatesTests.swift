import Testing
@testable import TraceModel

/// A small trace: two views in the same module updating in turn, caused by an @Observable
/// property (app code) or by a system node, in two update groups on the main thread.
func landmarksTrace() throws -> Trace {
    var builder = TraceBuilder(metadata: TraceMetadata(name: "landmarks", start: 0, end: 20_000_000, sourceFormat: "test"))
    let process = builder.addProcess(TraceProcess(pid: 42, name: "Landmarks"))
    let main = builder.addThread(TraceThread(tid: 7, name: "Main Thread", process: process, isMain: true))
    let module = builder.intern("Landmarks")
    let item = builder.intern("LandmarkListItemView")
    let list = builder.intern("LandmarkList")
    let group0 = builder.addUpdateGroup(start: 0, duration: 5_000_000, label: builder.intern("Transaction"), thread: main)
    let group1 = builder.addUpdateGroup(start: 10_000_000, duration: 5_000_000, label: builder.intern("Transaction"), thread: main)
    // Rows after sorting: 0 item 200us, 1 list 700us, 2 item 1.5ms, 3 item 100us (other module), 4 item 50us
    let u0 = builder.addUpdate(start: 1_000_000, duration: 200_000, kind: .viewBody, module: module, viewName: item, thread: main, group: group0)
    let u1 = builder.addUpdate(start: 2_000_000, duration: 700_000, kind: .viewBody, module: module, viewName: list, thread: main, group: group0)
    let u2 = builder.addUpdate(start: 11_000_000, duration: 1_500_000, kind: .viewBody, module: module, viewName: item,
                               description: builder.intern("body"), category: builder.intern("View"), allocations: 12, thread: main, group: group1)
    builder.addUpdate(start: 12_000_000, duration: 100_000, kind: .viewBody, module: builder.intern("Other"), viewName: item, thread: main, group: group1)
    builder.addUpdate(start: 13_000_000, duration: 50_000, kind: .viewBody, module: module, viewName: item, thread: main, group: group1)
    let favorites = builder.addNode(kind: .observable, name: builder.intern("@Observable ModelData"), isAppCode: true, eventID: 1, timestamp: 10_900_000)
    let system = builder.addNode(kind: .externalEnvironment, name: builder.intern("External Environment"), isAppCode: false, eventID: 2, timestamp: 900_000)
    let n0 = builder.addNode(kind: .viewBody, name: item, isAppCode: true, eventID: 3, timestamp: 1_000_000, update: u0)
    let n2 = builder.addNode(kind: .viewBody, name: item, isAppCode: true, eventID: 4, timestamp: 11_000_000, update: u2)
    builder.addNode(kind: .viewBody, name: list, isAppCode: true, eventID: 5, timestamp: 2_000_000, update: u1)
    builder.addEdge(source: system, target: n0, label: .update, timestamp: 1_000_000)
    builder.addEdge(source: system, target: n2, label: .update, timestamp: 11_000_000)
    builder.addEdge(source: favorites, target: n2, label: .update, changedProperty: builder.intern("favoritesCollection"), timestamp: 11_000_000)
    return try builder.build()
}

@Suite struct ViewUpdatesTests {
    @Test func listsOneViewOfOneModuleWithItsCause() throws {
        let page = try landmarksTrace().viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks"))
        #expect(page.total == 3)
        #expect(page.updates.map(\.id) == [0, 2, 4])
        #expect(page.updates[1].severity == "red" && page.updates[1].group == 1 && page.updates[1].kind == "view-body")
        // App code wins over the system's node.
        #expect(page.updates[1].cause == "@Observable ModelData.favoritesCollection")
        #expect(page.updates[0].cause == "External Environment")
        #expect(page.updates[2].cause == "")
    }

    @Test func anyModuleWhenNoneIsGiven() throws {
        #expect(try landmarksTrace().viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView")).total == 4)
        #expect(try landmarksTrace().viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Nope")).total == 0)
        #expect(try landmarksTrace().viewUpdates(ViewUpdatesQuery(view: "Nope")).total == 0)
    }

    @Test func categoryNarrowsToOneSummaryRow() throws {
        let trace = try landmarksTrace()
        #expect(trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks", category: "View")).updates.map(\.id) == [2])
        #expect(trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", category: "Layout")).total == 0)
        // Every summary row lists exactly as many updates as it counts.
        var rows = 0
        for process in trace.summary(in: nil, filter: .all).processes {
            for module in process.modules {
                for view in module.views {
                    let listed = trace.viewUpdates(ViewUpdatesQuery(view: view.name, module: module.name, category: view.category))
                    #expect(listed.total == view.stats.count, "\(module.name) \(view.name) \(view.category)")
                    rows += 1
                }
            }
        }
        #expect(rows == 4, "item (two categories), list, and item in the other module")
    }

    @Test func sortsByDurationAndPages() throws {
        let trace = try landmarksTrace()
        let longestFirst = trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks", sort: .duration, descending: true))
        #expect(longestFirst.updates.map(\.duration) == [1_500_000, 200_000, 50_000])
        let shortestFirst = trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks", sort: .duration))
        #expect(shortestFirst.updates.map(\.id) == [4, 0, 2])
        let newestFirst = trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks", descending: true, offset: 1, limit: 1))
        #expect(newestFirst.total == 3 && newestFirst.updates.map(\.id) == [2])
    }

    @Test func equalDurationsStayInStartOrderEitherWay() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "ties", start: 0, end: 10_000_000, sourceFormat: "test"))
        let view = builder.intern("Row"), module = builder.intern("App")
        for (start, duration) in [(1_000, 300), (2_000, 100), (3_000, 300), (4_000, 100), (5_000, 300)] {
            builder.addUpdate(start: Nanoseconds(start), duration: Nanoseconds(duration), kind: .viewBody, module: module, viewName: view)
        }
        let trace = try builder.build()
        func ids(_ descending: Bool) -> [Int] {
            trace.viewUpdates(ViewUpdatesQuery(view: "Row", sort: .duration, descending: descending)).updates.map(\.id)
        }
        #expect(ids(false) == [1, 3, 0, 2, 4])
        #expect(ids(true) == [0, 2, 4, 1, 3])
        // Asked again (the lists are now built): the same pages.
        #expect(ids(true) == [0, 2, 4, 1, 3])
        #expect(trace.viewUpdates(ViewUpdatesQuery(view: "Row", descending: true, offset: 1, limit: 2)).updates.map(\.id) == [3, 2])
    }

    @Test func filtersByRangeAndLongLane() throws {
        let trace = try landmarksTrace()
        let inRange = trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks", range: TimeRange(start: 1_100_000, end: 11_000_001)))
        // The first update (1.0-1.2 ms) overlaps the range start; the one at 11 ms starts inside.
        #expect(inRange.updates.map(\.id) == [0, 2])
        let long = trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", module: "Landmarks", filter: .longViewBody))
        #expect(long.updates.map(\.id) == [2])
        #expect(trace.viewUpdates(ViewUpdatesQuery(view: "LandmarkListItemView", filter: .longRepresentable)).total == 0)
    }
}
