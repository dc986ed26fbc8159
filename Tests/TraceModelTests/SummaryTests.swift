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
        #expect(Set(process.keys) == ["name", "pid", "count", "totalNs", "avgNs", "maxNs", "orange", "red", "modules"])
        let module = (process["modules"] as! [[String: Any]])[0]
        #expect(Set(module.keys) == ["name", "count", "totalNs", "avgNs", "maxNs", "orange", "red", "views"])
        let view = (module["views"] as! [[String: Any]])[0]
        #expect(Set(view.keys) == ["name", "category", "kind", "count", "totalNs", "avgNs", "maxNs", "orange", "red"])
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
