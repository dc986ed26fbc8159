import Testing
import TraceModel
import TraceSamples

/// The cause chain across concurrency: the Swift task that wrote a state on the Main Actor is
/// drawn before the state in an update's cause graph (docs/cause-graph.md, "Swift tasks in the chain").
@Suite struct TaskCauseChainTests {
    /// The last update of `view`.
    static func lastUpdate(of view: String, in trace: Trace) throws -> Int {
        try #require((0..<trace.updates.count).last { trace.string(trace.updates.viewName[$0]) == view })
    }

    static func node(_ graph: CauseGraphDocument, titled title: String) throws -> CauseGraphDocument.Node {
        try #require(graph.nodes.first { $0.title == title })
    }

    static func edge(_ graph: CauseGraphDocument, from: CauseGraphDocument.Node, to: CauseGraphDocument.Node) -> CauseGraphDocument.Edge? {
        graph.edges.first { $0.from == from.id && $0.to == to.id }
    }

    @Test func theLoaderTaskComesBeforeTheStateItWrote() throws {
        let trace = SampleTraces.trace(named: "landmarks-concurrency-slow")
        let graph = try #require(trace.causeGraph(ofUpdate: try Self.lastUpdate(of: "LandmarkGallery", in: trace)))
        let run = try Self.node(graph, titled: "Task 502")
        let creator = try Self.node(graph, titled: "View.task @ Landmarks/LandmarkDetail.swift:58")
        let state = try Self.node(graph, titled: "@Observable LandmarkImageLoader.images")
        let detail = try Self.node(graph, titled: "LandmarkDetail")
        let waiter = try Self.node(graph, titled: "View.task @ Landmarks/MapView.swift:31")
        #expect(run.kind == "swift-task" && creator.kind == "swift-task" && waiter.kind == "swift-task")
        #expect(run.subtitle == "ran 120 ms on the Main Actor")
        #expect(creator.subtitle == "created Task 502")
        #expect(waiter.subtitle == "waited 120 ms for the Main Actor")
        // creation → run → wrote → state → update → body, left to right.
        #expect(Self.edge(graph, from: creator, to: run)?.label == "creation")
        let wrote = try #require(Self.edge(graph, from: run, to: state))
        #expect(wrote.label == "wrote" && wrote.property == "LandmarkImageLoader.loadImages(for:)")
        #expect(Self.edge(graph, from: state, to: detail)?.label == "update")
        #expect(Self.edge(graph, from: run, to: waiter)?.label == "waited")
        #expect(creator.x < run.x && run.x < state.x && state.x < detail.x)
        // The nodes open the task: the run, the creator's first state, the wait.
        let states = trace.taskStates
        let link = try #require(run.task)
        #expect(link.role == "ran" && link.basis == .thread && link.durationNs == 120_000_000)
        #expect(states.state[link.taskState] == .running && trace.taskTitle(link.task) == "Task 502")
        #expect(trace.taskStateDetail(try #require(creator.task).taskState)?.task.title == "View.task @ Landmarks/LandmarkDetail.swift:58")
        let wait = try #require(waiter.task)
        #expect(wait.role == "waited" && states.state[wait.taskState] == .enqueued)
    }

    @Test func fixedTheLoaderOnlyHopsBackToAssign() throws {
        let trace = SampleTraces.trace(named: "landmarks-concurrency-fixed")
        let graph = try #require(trace.causeGraph(ofUpdate: try Self.lastUpdate(of: "LandmarkDetail", in: trace)))
        let run = try Self.node(graph, titled: "Task 502")
        #expect(run.subtitle == "ran 140 µs on the Main Actor")
        #expect(!graph.nodes.contains { $0.task?.role == "waited" }, "nothing waited for it")
        #expect(graph.nodes.contains { $0.task?.role == "created" })
    }

    @Test func harborTiesTheWriteByThreadBacktraceOrTimeAndSaysWhichIsUnsure() throws {
        for (write, basis) in [(OtherAppTraces.MessagesWrite.mainThread, TaskWriteBasis.thread), (.backtraceOnly, .backtrace), (.timeOnly, .time)] {
            let trace = OtherAppTraces.harbor(messagesWrite: write)
            let graph = try #require(trace.causeGraph(ofUpdate: try Self.lastUpdate(of: "MessageList", in: trace)))
            let run = try Self.node(graph, titled: "Task 7002")
            #expect(run.task?.basis == basis)
            #expect(run.subtitle.hasSuffix("(same time only)") == (basis == .time))
            let state = try Self.node(graph, titled: "@State messages")
            #expect(Self.edge(graph, from: run, to: state)?.property == "MessageStore.decodeHistory()")
            #expect(Self.edge(graph, from: try Self.node(graph, titled: "View.task @ Harbor/ConversationView.swift:44"), to: run)?.label == "creation")
            #expect(Self.edge(graph, from: run, to: try Self.node(graph, titled: "View.task @ Harbor/ComposerView.swift:19"))?.label == "waited")
        }
    }

    @Test func aStateWrittenOutsideAnyTaskHasNoTask() throws {
        let trace = OtherAppTraces.harbor()
        let graph = try #require(trace.causeGraph(ofUpdate: try Self.lastUpdate(of: "ComposerView", in: trace)))
        #expect(graph.nodes.contains { $0.title == "@State isComposing" })
        #expect(!graph.nodes.contains { $0.kind == "swift-task" })
        // A view's merged graph draws no tasks.
        let merged = trace.causeGraph(ofView: "ConversationView", module: "Harbor")
        #expect(!merged.nodes.contains { $0.kind == "swift-task" })
    }

    @Test func aWriteOnAnotherThreadThanTheRunIsNotTheTasks() throws {
        var builder = TraceBuilder(metadata: TraceMetadata(name: "threads", sourceFormat: "test"))
        let process = builder.addProcess(TraceProcess(pid: 9, name: "Kiln"))
        let main = builder.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let other = builder.addThread(TraceThread(tid: 2, name: "", process: process, isMain: false))
        let task = builder.addTask(taskID: 11)
        var run = SwiftTaskStateRow(start: 1_000, duration: 5_000_000, task: task, state: .running)
        run.actor = builder.intern("Main Actor (0x9)")
        run.isMainActor = true
        run.thread = main
        builder.addTaskState(run)
        let node = builder.addNode(kind: .state, name: builder.intern("@State kilnTemperature"), owner: 0, isAppCode: true, eventID: 1, timestamp: 2_000, update: noRow)
        builder.addStateChange(timestamp: 2_000, node: node, description: 0, thread: other)
        builder.addStateChange(timestamp: 3_000, node: node, description: 0, thread: main)
        builder.addStateChange(timestamp: 9_000_000, node: node, description: 0, thread: main)
        let trace = try builder.build()
        #expect(trace.mainActorRun(writing: 0) == nil, "written on another thread while the task ran")
        #expect(trace.mainActorRun(writing: 1)?.basis == .thread)
        #expect(trace.mainActorRun(writing: 2) == nil, "no task ran then")
    }
}
