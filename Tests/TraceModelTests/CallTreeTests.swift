import Testing
@testable import TraceModel

@Suite struct CallTreeTests {
    /// Main thread: main -> body (3 ms), main -> layout (1 ms); worker: work (2 ms); plus one
    /// tiny 1 us sample on main -> tiny.
    private func profile() throws -> Trace {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "cpu", start: 0, end: 100_000_000, sourceFormat: "test"))
        let process = builder.addProcess(TraceProcess(pid: 1, name: "App"))
        let worker = builder.addThread(TraceThread(tid: 2, name: "Worker", process: process, isMain: false))
        let main = builder.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let app = builder.intern("App"), ui = builder.intern("SwiftUI")
        func frame(_ name: String, _ binary: StringRef) -> UInt32 { builder.addFrame(name: builder.intern(name), binary: binary, isAppCode: binary == app) }
        let mainFrame = frame("main", app), body = frame("body", app), layout = frame("layout", ui), work = frame("work", app), tiny = frame("tiny", app)
        let bodyStack = UInt32(builder.addStack(rootToLeaf: [mainFrame, body]))
        let layoutStack = UInt32(builder.addStack(rootToLeaf: [mainFrame, layout]))
        let workStack = UInt32(builder.addStack(rootToLeaf: [work]))
        let tinyStack = UInt32(builder.addStack(rootToLeaf: [mainFrame, tiny]))
        for ms in 0..<3 { builder.addSample(time: Nanoseconds(ms) * 1_000_000, thread: main, weight: 1_000_000, stack: bodyStack) }
        builder.addSample(time: 3_000_000, thread: main, weight: 1_000_000, stack: layoutStack)
        for ms in 0..<2 { builder.addSample(time: Nanoseconds(ms) * 1_000_000, thread: worker, weight: 1_000_000, stack: workStack) }
        builder.addSample(time: 50_000_000, thread: main, weight: 1_000, stack: tinyStack)
        return try builder.build()
    }

    @Test func topDownHasThreadRootsMainFirstWithSelfAndTotal() throws {
        let tree = try profile().callTree(CallTreeQuery(minPercent: 0))
        #expect(tree.totalWeight == 6_001_000 && tree.sampleCount == 7)
        #expect(tree.roots.map(\.name) == ["Main Thread", "Worker"])
        let main = tree.roots[0]
        #expect(main.total == 4_001_000 && main.selfWeight == 0 && main.binary == "")
        let mainFrame = try #require(main.children.first)
        #expect(mainFrame.name == "main" && mainFrame.total == 4_001_000 && mainFrame.selfWeight == 0)
        #expect(mainFrame.children.map(\.name) == ["body", "layout", "tiny"])
        #expect(mainFrame.children[0].selfWeight == 3_000_000 && mainFrame.children[0].isAppCode)
        #expect(mainFrame.children[1].binary == "SwiftUI" && !mainFrame.children[1].isAppCode)
    }

    @Test func lightNodesFoldIntoTheirParentsSelf() throws {
        let tree = try profile().callTree(CallTreeQuery(minPercent: 1))
        let mainFrame = try #require(tree.roots.first?.children.first)
        #expect(mainFrame.children.map(\.name) == ["body", "layout"])
        #expect(mainFrame.selfWeight == 1_000)
    }

    @Test func aLightThreadStaysARootSoRootsAddUpToTheTotal() throws {
        // The worker has a third of the weight; a 50% threshold folds its frames, not the thread.
        let tree = try profile().callTree(CallTreeQuery(minPercent: 50))
        #expect(tree.roots.map(\.name) == ["Main Thread", "Worker"])
        #expect(tree.roots.reduce(0) { $0 + $1.total } == tree.totalWeight)
        #expect(tree.roots[1].children.isEmpty && tree.roots[1].selfWeight == 2_000_000)
    }

    @Test func aTreeHoldsAtMostMaxNodesTheHeaviestAndCountsTheRest() throws {
        // `maxNodes + 500` leaf functions under one caller, function i weighing i + 1 (one sample each).
        let functions = CallTreeQuery.maxNodes + 500
        var builder = TraceBuilder(metadata: TraceMetadata(name: "wide", start: 0, end: 1_000_000_000, sourceFormat: "test"))
        let process = builder.addProcess(TraceProcess(pid: 1, name: "Wide"))
        let thread = builder.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let app = builder.intern("Wide")
        let caller = builder.addFrame(name: builder.intern("caller"), binary: app, isAppCode: true)
        for index in 0..<functions {
            let leaf = builder.addFrame(name: builder.intern("f\(index)"), binary: app, isAppCode: true)
            let stack = UInt32(builder.addStack(rootToLeaf: [caller, leaf]))
            builder.addSample(time: Nanoseconds(index), thread: thread, weight: Nanoseconds(index + 1), stack: stack)
        }
        let trace = try builder.build()
        let total = Nanoseconds(functions) * Nanoseconds(functions + 1) / 2

        let topDown = trace.callTree(CallTreeQuery(minPercent: 0))
        let callerNode = try #require(topDown.roots.first?.children.first)
        // The caller is a node too: the lightest 501 functions are left out, their weight in its self.
        #expect(callerNode.name == "caller" && callerNode.children.count == CallTreeQuery.maxNodes - 1)
        #expect(topDown.omittedNodes == 501 && callerNode.total == total)
        #expect(callerNode.children.last?.name == "f501" && callerNode.selfWeight == 501 * 502 / 2)
        #expect(String(decoding: topDown.json(), as: UTF8.self).contains("\"omittedNodes\":501"))

        let bottomUp = trace.callTree(CallTreeQuery(mode: .bottomUp, minPercent: 0))
        // Roots are the functions; each one's caller is a node of its own: half the budget each.
        #expect(bottomUp.roots.count == CallTreeQuery.maxNodes / 2 && bottomUp.roots.allSatisfy { $0.children.count == 1 })
        #expect(bottomUp.omittedNodes == 2 * functions - CallTreeQuery.maxNodes)
        #expect(bottomUp.roots.first?.name == "f\(functions - 1)")

        #expect(try profile().callTree(CallTreeQuery(minPercent: 0)).omittedNodes == 0)
    }

    @Test func bottomUpStartsAtFunctionsOnCPU() throws {
        let tree = try profile().callTree(CallTreeQuery(mode: .bottomUp, minPercent: 0))
        #expect(tree.roots.map(\.name) == ["body", "work", "layout", "tiny"])
        #expect(tree.roots[0].total == 3_000_000 && tree.roots[0].selfWeight == 3_000_000)
        #expect(tree.roots[0].children.map(\.name) == ["main"])
        #expect(tree.roots[1].children.isEmpty)
    }

    @Test func rangeAndThreadRestrictTheSamples() throws {
        let trace = try profile()
        let early = trace.callTree(CallTreeQuery(range: TimeRange(start: 0, end: 1_500_000), minPercent: 0))
        #expect(early.sampleCount == 4 && early.totalWeight == 4_000_000)
        let worker = trace.callTree(CallTreeQuery(thread: 0, minPercent: 0))
        #expect(worker.roots.map(\.name) == ["Worker"] && worker.totalWeight == 2_000_000)
    }
}
