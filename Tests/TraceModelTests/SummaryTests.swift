import Foundation
import Testing
@testable import TraceModel

@Suite struct SummaryTests {
    /// Two processes; Landmarks has app views and a SwiftUI layout, Widgets one view.
    func makeTrace() throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: "t", start: 0, end: 100_000_000, sourceFormat: "test"))
        let landmarks = b.addProcess(TraceProcess(pid: 10, name: "Landmarks"))
        let widgets = b.addProcess(TraceProcess(pid: 20, name: "Widgets"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: landmarks, isMain: true))
        let widgetMain = b.addThread(TraceThread(tid: 2, name: "Main Thread", process: widgets, isMain: true))
        let app = b.intern("Landmarks"), swiftUI = b.intern("SwiftUI"), widgetModule = b.intern("Widgets")
        let row = b.intern("LandmarkListItemView"), list = b.intern("LandmarkList"), stack = b.intern("HStack"), clock = b.intern("ClockView")
        let body = b.intern("View Body"), layout = b.intern("Layout")
        // Row bodies: 1.2 ms (red), 700 us (orange), 100 us; list body 300 us; one layout 2 ms (red, other lane).
        b.addUpdate(start: 1_000_000, duration: 1_200_000, kind: .viewBody, module: app, viewName: row, category: body, thread: main)
        b.addUpdate(start: 10_000_000, duration: 700_000, kind: .viewBody, module: app, viewName: row, category: body, thread: main)
        b.addUpdate(start: 20_000_000, duration: 100_000, kind: .viewBody, module: app, viewName: row, category: body, thread: main)
        b.addUpdate(start: 20_500_000, duration: 300_000, kind: .viewBody, module: app, viewName: list, category: body, thread: main)
        b.addUpdate(start: 30_000_000, duration: 2_000_000, kind: .layout, module: swiftUI, viewName: stack, category: layout, thread: main)
        b.addUpdate(start: 40_000_000, duration: 50_000, kind: .viewBody, module: widgetModule, viewName: clock, category: body, thread: widgetMain)
        return try b.build()
    }

    @Test func groupsByProcessModuleAndViewWithTotalsLongestFirst() throws {
        let summary = try makeTrace().summary(in: nil, filter: .all)
        #expect(summary.total.count == 6)
        #expect(summary.total.totalNs == 4_350_000)
        #expect(summary.total.orange == 1 && summary.total.red == 2)
        #expect(summary.processes.map(\.name) == ["Landmarks", "Widgets"])
        let landmarks = summary.processes[0]
        #expect(landmarks.pid == 10)
        #expect(landmarks.stats.count == 5)
        // Landmarks' 2.3 ms of bodies come before SwiftUI's one 2 ms layout.
        #expect(landmarks.modules.map(\.name) == ["Landmarks", "SwiftUI"])
        let rows = landmarks.modules[0].views
        #expect(rows.map(\.name) == ["LandmarkListItemView", "LandmarkList"])
        let item = rows[0].stats
        #expect(item.count == 3 && item.totalNs == 2_000_000 && item.maxNs == 1_200_000 && item.avgNs == 666_666)
        #expect(item.orange == 1 && item.red == 1)
        #expect(rows[0].kind == "view-body" && rows[0].category == "View Body")
        #expect(landmarks.modules[1].views[0].kind == "layout")
    }

    /// SwiftUI lays out a view inside its own layout pass (a nested sizeThatFits of the same
    /// view): the inner pass's time is inside the outer one's, so the view's total counts it once.
    @Test func nestedLayoutPassesOfAViewCountTheirTimeOnce() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "nested", start: 0, end: 50_000_000, sourceFormat: "test"))
        let app = b.addProcess(TraceProcess(pid: 7, name: "Trips"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: app, isMain: true))
        let swiftUI = b.intern("SwiftUI"), grid = b.intern("TripGrid"), card = b.intern("TripCard"), layout = b.intern("Layout")
        // TripGrid: a 2 ms pass [1, 3) ms holding a 1.5 ms pass [1.2, 2.7) ms of itself, which holds
        // a 0.5 ms one [1.5, 2.0) ms; then a separate 0.3 ms pass [10, 10.3) ms. TripCard's 0.4 ms
        // pass [1.3, 1.7) ms is inside TripGrid's but is another view: its own row counts it.
        for (start, duration, depth) in [(1_000_000, 2_000_000, 0), (1_200_000, 1_500_000, 1), (1_500_000, 500_000, 2), (10_000_000, 300_000, 0)] {
            let row = b.addUpdate(start: Nanoseconds(start), duration: Nanoseconds(duration), kind: .layout, module: swiftUI, viewName: grid, category: layout, thread: main)
            b.setLayout(ofUpdate: row, selfDuration: nil, depth: depth, cached: false)
        }
        b.addUpdate(start: 1_300_000, duration: 400_000, kind: .layout, module: swiftUI, viewName: card, category: layout, thread: main)
        let summary = try b.build().summary(in: nil, filter: .all)
        let views = summary.processes[0].modules[0].views
        #expect(views.map(\.name) == ["TripGrid", "TripCard"])
        // 2 ms + 0.3 ms, not 2 + 1.5 + 0.5 + 0.3 = 4.3 ms; the count, longest and colours still see every pass.
        #expect(views[0].stats.totalNs == 2_300_000)
        #expect(views[0].stats.count == 4 && views[0].stats.maxNs == 2_000_000 && views[0].stats.red == 2 && views[0].stats.orange == 0)
        #expect(views[1].stats.totalNs == 400_000)
        // TripCard's pass lies inside TripGrid's on the same thread: the module, process and
        // total count that time once too.
        #expect(summary.total.totalNs == 2_300_000 && summary.processes[0].stats.totalNs == 2_300_000)
        #expect(summary.processes[0].modules[0].stats.totalNs == 2_300_000)
        // The long-updates filter unions its own passes the same way (the 2 ms and 1.5 ms ones).
        #expect(try b.build().summary(in: nil, filter: .longOther).processes[0].modules[0].views[0].stats.totalNs == 2_000_000)
    }

    /// Every total of layout time is the union of its passes per thread: a grid's pass that asks
    /// its tiles for their sizes holds their passes, so the process and the trace count that time
    /// once, though each view's row counts its own passes and each module its own views'. Another
    /// thread's pass at the same time is that thread's time and counts. An app of its own
    /// (Orchard, with a widget extension), not the samples'.
    @Test func layoutTotalsCountNestedPassesOnceAtEveryScope() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "orchard", start: 0, end: 20_000_000, sourceFormat: "test"))
        let orchard = b.addProcess(TraceProcess(pid: 11, name: "Orchard"))
        let widgets = b.addProcess(TraceProcess(pid: 12, name: "OrchardWidgets"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: orchard, isMain: true))
        let render = b.addThread(TraceThread(tid: 2, name: "Render", process: orchard, isMain: false))
        let widgetMain = b.addThread(TraceThread(tid: 3, name: "Main Thread", process: widgets, isMain: true))
        let swiftUI = b.intern("SwiftUI"), app = b.intern("Orchard"), widgetModule = b.intern("OrchardWidgets")
        let layout = b.intern("Layout"), body = b.intern("View Body")
        func pass(_ view: String, _ module: StringRef, _ start: Nanoseconds, _ duration: Nanoseconds, depth: Int, on thread: Int32) {
            let row = b.addUpdate(start: start, duration: duration, kind: .layout, module: module, viewName: b.intern(view), category: layout, thread: thread)
            b.setLayout(ofUpdate: row, selfDuration: nil, depth: depth, cached: false)
        }
        // Main thread: LazyVGrid [1, 4) ms holds itself [1.5, 3.5), which holds two TreeTile passes
        // [2.0, 2.6) and [2.8, 3.2); HStack [5, 5.5) holds a TreeTile pass [5.1, 5.3); a 0.2 ms body.
        pass("LazyVGrid", swiftUI, 1_000_000, 3_000_000, depth: 0, on: main)
        pass("LazyVGrid", swiftUI, 1_500_000, 2_000_000, depth: 1, on: main)
        pass("TreeTile", app, 2_000_000, 600_000, depth: 2, on: main)
        pass("TreeTile", app, 2_800_000, 400_000, depth: 2, on: main)
        pass("HStack", swiftUI, 5_000_000, 500_000, depth: 0, on: main)
        pass("TreeTile", app, 5_100_000, 200_000, depth: 1, on: main)
        b.addUpdate(start: 6_000_000, duration: 200_000, kind: .viewBody, module: app, viewName: b.intern("OrchardList"), category: body, thread: main)
        // The Render thread lays a Canvas out [2, 3) while the main thread is in the grid's pass.
        pass("Canvas", swiftUI, 2_000_000, 1_000_000, depth: 0, on: render)
        // The widget extension: one 1 ms pass.
        pass("WidgetTile", widgetModule, 1_000_000, 1_000_000, depth: 0, on: widgetMain)

        let summary = try b.build().summary(in: nil, filter: .all)
        #expect(summary.processes.map(\.name) == ["Orchard", "OrchardWidgets"])
        let process = summary.processes[0]
        let modules = Dictionary(uniqueKeysWithValues: process.modules.map { ($0.name, $0) })
        let views = Dictionary(uniqueKeysWithValues: process.modules.flatMap(\.views).map { ($0.name, $0.stats) })
        // Rows: each view's own passes, nested ones of the same view once.
        #expect(views["LazyVGrid"]?.totalNs == 3_000_000 && views["TreeTile"]?.totalNs == 1_200_000)
        #expect(views["HStack"]?.totalNs == 500_000 && views["Canvas"]?.totalNs == 1_000_000 && views["OrchardList"]?.totalNs == 200_000)
        // Modules: SwiftUI's main-thread passes [1, 4) and [5, 5.5) plus Render's 1 ms; Orchard's
        // tiles (inside SwiftUI's passes, but another module) and its body.
        #expect(modules["SwiftUI"]?.stats.totalNs == 4_500_000)
        #expect(modules["Orchard"]?.stats.totalNs == 1_400_000)
        // The process: the tiles' 1.2 ms lie inside the grid's and the stack's passes: 3.5 ms on
        // the main thread, 1 ms on Render, the 0.2 ms body (adding its modules gives 5.9 ms).
        #expect(process.stats.totalNs == 4_700_000)
        #expect(process.stats.count == 8 && process.stats.maxNs == 3_000_000)
        #expect(process.stats.avgNs == 4_700_000 / 8)
        #expect(summary.processes[1].stats.totalNs == 1_000_000)
        #expect(summary.total.totalNs == 5_700_000 && summary.total.count == 9)
        // A range [2.9, 4.5) ms that holds the end of the grid's pass counts the passes it meets
        // whole, still once: the grid [1, 4) with its last tile, the Canvas [2, 3).
        let part = try b.build().summary(in: TimeRange(start: 2_900_000, end: 4_500_000), filter: .all)
        #expect(part.total.totalNs == 4_000_000)
    }

    /// Instruments 27 says what each update made run after it: the summary sums it per row (the
    /// page sorts by it); a recording without the measure has none, not zero.
    @Test func downstreamCostIsSummedPerRowAndAbsentWhenNotRecorded() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "trips", start: 0, end: 50_000_000, sourceFormat: "test"))
        let app = b.addProcess(TraceProcess(pid: 7, name: "Trips"))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: app, isMain: true))
        let module = b.intern("Trips"), list = b.intern("TripList"), card = b.intern("TripCard"), body = b.intern("View Body")
        // TripList's one cheap body made 8 updates run (9.6 ms); TripCard's two long ones made 1 each (0.2 ms).
        let listRow = b.addUpdate(start: 1_000_000, duration: 100_000, kind: .viewBody, module: module, viewName: list, category: body, thread: main)
        b.setDownstream(ofUpdate: listRow, cost: 9_600_000, events: 8)
        for start in [2_000_000, 4_000_000] as [Nanoseconds] {
            let row = b.addUpdate(start: start, duration: 1_500_000, kind: .viewBody, module: module, viewName: card, category: body, thread: main)
            b.setDownstream(ofUpdate: row, cost: 100_000, events: 1)
        }
        let summary = try b.build().summary(in: nil, filter: .all)
        let views = summary.processes[0].modules[0].views
        #expect(views.map(\.name) == ["TripCard", "TripList"])
        #expect(views[0].stats.downstreamNs == 200_000 && views[0].stats.downstreamEvents == 2)
        #expect(views[1].stats.downstreamNs == 9_600_000 && views[1].stats.downstreamEvents == 8)
        #expect(summary.total.downstreamNs == 9_800_000 && summary.processes[0].stats.downstreamEvents == 10)
        let json = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
        #expect(json.contains("\"downstreamNs\":9600000"))

        let older = try makeTrace().summary(in: nil, filter: .all)
        #expect(older.total.downstreamNs == nil && older.processes[0].modules[0].views[0].stats.downstreamNs == nil)
        #expect(String(decoding: try JSONEncoder().encode(older), as: UTF8.self).contains("\"downstreamNs\":null"))
    }

    @Test func filtersPickOneLongLane() throws {
        let trace = try makeTrace()
        let longBodies = trace.summary(in: nil, filter: .longViewBody)
        #expect(longBodies.total.count == 2)
        #expect(longBodies.processes.flatMap { $0.modules.flatMap { $0.views.map(\.name) } } == ["LandmarkListItemView"])
        let longOther = trace.summary(in: nil, filter: .longOther)
        #expect(longOther.total.count == 1 && longOther.total.maxNs == 2_000_000)
        #expect(trace.summary(in: nil, filter: .longRepresentable).processes.isEmpty)
    }

    @Test func rangeCountsUpdatesThatOverlapIt() throws {
        let trace = try makeTrace()
        // [1.5 ms, 10.1 ms) catches the 1.2 ms update still running at 1.5 ms and the one starting at 10 ms.
        let window = TimeRange(start: 1_500_000, end: 10_100_000)
        let summary = trace.summary(in: window, filter: .all)
        #expect(summary.total.count == 2)
        #expect(summary.start == 1_500_000 && summary.end == 10_100_000)
        #expect(trace.summary(in: TimeRange(start: 2_300_000, end: 9_000_000), filter: .all).total.count == 0)
        let whole = trace.summary(in: nil, filter: .all)
        #expect(whole.start == 0 && whole.end == 100_000_000)
    }

    @Test func aRangeHoldingEveryUpdateAnswersLikeNoRangeButSaysItsOwnSpan() throws {
        let trace = try landmarksTrace()
        let none = trace.summary(in: nil, filter: .all)
        let wide = trace.summary(in: TimeRange(start: -5, end: 30_000_000), filter: .all)
        #expect(wide.total == none.total && wide.processes == none.processes && wide.total.count == 5)
        #expect((wide.start, wide.end) == (-5, 30_000_000))
        // Just short of the last update's start: that update is not counted (and nothing is stale).
        let short = trace.summary(in: TimeRange(start: 0, end: 13_000_000), filter: .all)
        #expect(short.total.count == 4)
        #expect(trace.summary(in: nil, filter: .longViewBody).total.count == 2)
    }

    @Test func jsonHasTheAPIShapeWithStatsFlattened() throws {
        let summary = try makeTrace().summary(in: nil, filter: .longViewBody)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(summary)) as! [String: Any]
        #expect(Set(json.keys) == ["start", "end", "filter", "total", "processes", "omittedViews"])
        #expect(json["filter"] as? String == "long-view-body")
        let process = (json["processes"] as! [[String: Any]])[0]
        #expect(Set(process.keys) == ["name", "pid", "count", "totalNs", "avgNs", "maxNs", "orange", "red", "downstreamNs", "downstreamEvents", "modules"])
        let module = (process["modules"] as! [[String: Any]])[0]
        #expect(Set(module.keys) == ["name", "count", "totalNs", "avgNs", "maxNs", "orange", "red", "downstreamNs", "downstreamEvents", "views"])
        let view = (module["views"] as! [[String: Any]])[0]
        #expect(Set(view.keys) == ["name", "category", "kind", "count", "totalNs", "avgNs", "maxNs", "orange", "red", "downstreamNs", "downstreamEvents"])
        #expect(view["totalNs"] as? Int == 1_900_000)
        // And it decodes back to the same value.
        #expect(try JSONDecoder().decode(UpdateSummary.self, from: JSONEncoder().encode(summary)) == summary)
    }

    @Test func updatesWithoutThreadBelongToTheOnlyProcess() throws {
        var b = TraceBuilder(metadata: TraceMetadata(name: "t", sourceFormat: "test"))
        _ = b.addProcess(TraceProcess(pid: 7, name: "Solo"))
        b.addUpdate(start: 0, duration: 10, kind: .other, module: b.intern("M"), viewName: b.intern("V"))
        let summary = try b.build().summary(in: nil, filter: .all)
        #expect(summary.processes.map(\.name) == ["Solo"])
        #expect(summary.processes[0].pid == 7)
    }

    @Test func memoryFootprintCountsEveryColumn() throws {
        let trace = try makeTrace()
        let parts = Dictionary(uniqueKeysWithValues: trace.memoryFootprintByPart.map { ($0.part, $0.bytes) })
        // Eleven columns: 8+8+1+1+4+4+4+4+4+4+4 = 46 bytes per update at least.
        #expect(parts["updates"]! >= 46 * 6)
        #expect(trace.memoryFootprint == trace.memoryFootprintByPart.reduce(0) { $0 + $1.bytes })
    }

    /// A summary whose request is cancelled (its client left, the server stops) stops early, and
    /// what it made is never kept for the next request (issue 39: the whole-trace summary was kept
    /// whatever the cancelled loop had counted).
    @Test func aCancelledSummaryStopsAndIsNotKept() async throws {
        func catalogue() throws -> Trace {
            var b = TraceBuilder(metadata: TraceMetadata(name: "catalogue", start: 0, end: 100_000_000_000, sourceFormat: "test"))
            let process = b.addProcess(TraceProcess(pid: 7, name: "Catalogue"))
            let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
            let module = b.intern("Catalogue"), body = b.intern("View Body")
            for i in 0..<5_000 {
                b.addUpdate(start: Int64(i) * 10_000, duration: 5_000 + Int64(i % 13), kind: .viewBody, module: module,
                            viewName: b.intern("Cell\(i % 700)View"), category: body, thread: main)
            }
            return try b.build()
        }
        let whole = try catalogue().summary(in: nil, filter: .all)
        #expect(whole.total.count == 5_000)
        let trace = try catalogue()
        let cancelled = Task { () -> UpdateSummary in
            while !Task.isCancelled { await Task.yield() }
            return trace.summary(in: nil, filter: .all)
        }
        cancelled.cancel()
        #expect(await cancelled.value != whole, "stopped early")
        #expect(trace.summary(in: nil, filter: .all) == whole)
    }
}
