import Foundation
import Testing
@testable import TraceFormats
import TraceModel
import TraceSamples

/// The Swift Tasks instrument's tables (Fixtures/xctrace-concurrency: a "Recipes" app, written in
/// the exact shape `xctrace export` gives them), the native format's version 2, and the samples.
@Suite struct SwiftTasksTests {
    static let tables = ["SwiftTaskStateTable", "SwiftTasksInfoTable", "SwiftTaskLifetime"]

    static func recipes(_ tables: [String] = tables) throws -> Trace {
        var bytes: [UInt8] = []
        for table in tables {
            let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-concurrency/\(table)", withExtension: "xml"))
            bytes += try Data(contentsOf: url)
        }
        return try XCTraceImporter.importTrace(from: .memory(bytes, chunkSize: 997), displayName: "recipes.xml")
    }

    static func row(_ trace: Trace, task id: Int64, _ state: SwiftTaskState, _ nth: Int = 0) throws -> Int {
        let task = try #require(trace.tasks.taskID.firstIndex(of: id))
        let rows = trace.indexes.states(ofTask: task).map(Int.init).filter { trace.taskStates.state[$0] == state }
        return try #require(rows.dropFirst(nth).first)
    }

    @Test func mainActorRunsAndWaitsComeFromTheStateTable() throws {
        let trace = try Self.recipes()
        #expect(trace.tasks.count == 3, "tasks 7 (unknown state only), 90 and 91")
        #expect(trace.taskStates.count == 9)
        let states = trace.taskStates
        // Running on the main actor (main thread) twice; on the global executor it is not main-actor work.
        #expect(trace.indexes.mainActorRuns.map { states.duration[Int($0)] } == [2_500_000, 400_000])
        #expect(trace.indexes.mainActorWaits.map { states.duration[Int($0)] } == [150_000_000, 8_000_000])
        let window = TimeRange(start: 0, end: 4_000_000_000)
        let timeline = trace.timeline(window: window, width: 4000, lanes: [.mainActor, .mainActorWaits], index: TimelineIndex())
        // Waits use their own thresholds (150 ms red, 8 ms normal); main-actor work the update ones (2.5 ms red).
        #expect(timeline.lanes["main-actor-waits"]?.events.map(\.severity) == [.red, .normal])
        #expect(timeline.lanes["main-actor"]?.events.map(\.severity) == [.red, .normal])
        #expect(timeline.lanes["main-actor"]?.events.first?.label == "RecipeStore.refresh() Recipes")
        #expect(timeline.lanes["main-actor-waits"]?.events.first?.taskState == Int(trace.indexes.mainActorWaits[0]))
        #expect(trace.timelineByFullScan(window: window, width: 4000, lanes: [.mainActor, .mainActorWaits]) == timeline)
    }

    @Test func aClickedIntervalShowsTheTaskAroundIt() throws {
        let trace = try Self.recipes()
        let wait = try #require(trace.taskStateDetail(try Self.row(trace, task: 90, .enqueued)))
        #expect(wait.task.title == "View.task @ Recipes/RecipeView.swift:27")
        #expect(wait.task.id == 90)
        #expect(wait.actor == "Main Actor (0x6000017c0a80)")
        #expect(wait.isMainActor)
        #expect(wait.severity == "red")
        #expect(wait.priority == "High/User Initiated (25)")
        #expect(wait.narrative == "Was enqueued on actor Main Actor (0x6000017c0a80) for 150.00 ms")
        #expect(wait.creationBacktrace.map(\.name) == ["RecipeView.body.getter", "+ 0x5b7333"])
        #expect(wait.creationBacktrace.first?.isAppCode == true)
        #expect(wait.states.map(\.state) == ["creating", "enqueued", "running", "suspended", "enqueued", "running"])
        #expect((wait.task.start, wait.task.end) == (1_500_000_000, 1_680_930_000), "lifetime from SwiftTaskLifetime")

        let running = try #require(trace.taskStateDetail(try Self.row(trace, task: 90, .running)))
        #expect(running.resumeFunction == "RecipeStore.refresh() Recipes")
        #expect(running.thread?.name == "Main Thread")

        let suspended = try #require(trace.taskStateDetail(try Self.row(trace, task: 90, .suspended)))
        #expect(suspended.waitingFor?.title == "Task 91", "an address is no name")
        #expect(suspended.suspendBacktrace.map(\.name) == ["swift_task_switch", "RecipeView.body.getter"])
        #expect(suspended.suspendBacktrace.first?.isAppCode == false)

        let background = try #require(trace.taskStateDetail(try Self.row(trace, task: 91, .running)))
        #expect(background.actor == "Global Concurrent Executor")
        #expect(!background.isMainActor)
        #expect(background.severity == "normal")
        #expect(try Self.row(trace, task: 91, .continuation) >= 0)
        #expect(trace.taskStateDetail(trace.taskStates.count) == nil)
    }

    @Test func aMarkOfOverlappingIntervalsListsThemLongestFirst() throws {
        let trace = try Self.recipes()
        let states = trace.taskStates
        let all = trace.taskStates(on: .mainActorWaits, in: TimeRange(start: 0, end: 4_000_000_000))
        #expect(all.count == 2)
        #expect(all.rows.map { states.duration[$0] } == [150_000_000, 8_000_000])
        let limited = trace.taskStates(on: .mainActorWaits, in: TimeRange(start: 0, end: 4_000_000_000), limit: 1)
        #expect(limited.rows.count == 1 && limited.count == 2)
        #expect(trace.taskStates(on: .mainActor, in: TimeRange(start: 1_651_000_000, end: 1_652_000_000)).rows.map { states.duration[$0] } == [2_500_000])
        #expect(trace.taskStates(on: .hangs, in: TimeRange(start: 0, end: 1)).count == 0)
    }

    @Test func summaryChargesEachWaitToTheFunctionItDelayed() throws {
        let trace = try Self.recipes()
        let rows = trace.taskSummary()
        let refresh = try #require(rows.first { $0.resumeFunction == "RecipeStore.refresh() Recipes" })
        #expect(refresh.isMainActor)
        #expect(refresh.running == 2_900_000)
        #expect(refresh.waiting == 158_000_000)
        #expect(refresh.longestWait == 150_000_000)
        #expect(refresh.runs == 2)
        let background = try #require(rows.first { $0.actor == "Global Concurrent Executor" })
        #expect(background.running == 19_000_000)
        // Clipped to a range: only the part of the 150 ms wait inside it.
        let ranged = trace.taskSummary(in: TimeRange(start: 1_600_000_000, end: 1_651_000_000))
        #expect(ranged.first { $0.resumeFunction == "RecipeStore.refresh() Recipes" }?.waiting == 50_030_000)
    }

    @Test func theStateTableAloneStillNamesTasks() throws {
        let trace = try Self.recipes(["SwiftTaskStateTable"])
        #expect(trace.taskTitle(try #require(trace.tasks.taskID.firstIndex(of: 90))) == "View.task @ Recipes/RecipeView.swift:27")
        #expect(trace.indexes.mainActorWaits.count == 2)
        #expect(trace.metadata.importNotes.allSatisfy { !$0.hasPrefix("Skipped table") }, "tables read are not skipped")
        #expect(trace.metadata.importNotes.contains { $0.hasPrefix("No SwiftTaskLifetime table") })
    }

    // MARK: Every state Instruments writes

    /// Fixtures/xctrace-task-states: a "Harbor" app's SwiftTaskStateTable alone (no lifetime or
    /// info table), with Waiting and Ending rows, a run whose resume function is a sentinel, and a
    /// state no version tracesvc knows writes ("Sleeping", twice).
    static func harbor() throws -> Trace {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-task-states/SwiftTaskStateTable", withExtension: "xml"))
        return try XCTraceImporter.importTrace(from: .memory(try [UInt8](Data(contentsOf: url)), chunkSize: 613), displayName: "harbor.xml")
    }

    @Test func waitingAndEndingAreStatesAndAnUnknownOneIsNotedOnceByName() throws {
        let trace = try Self.harbor()
        let states = { (id: Int64) in
            trace.indexes.states(ofTask: trace.tasks.taskID.firstIndex(of: id)!).map { trace.taskStates.state[Int($0)] }
        }
        #expect(states(300) == [.creating, .enqueued, .running, .waiting, .enqueued, .running])
        #expect(states(301) == [.creating, .running, .ending])
        #expect(states(302) == [.unknown, .unknown])
        let waiting = try #require(trace.taskStateDetail(try Self.row(trace, task: 300, .waiting)))
        #expect(waiting.state == "waiting" && waiting.duration == 5_500_000_000)
        #expect(waiting.waitingFor?.id == 301)
        #expect(waiting.severity == "normal", "waiting on a task is no wait for the main actor")
        #expect(trace.indexes.mainActorWaits.map { trace.taskStates.duration[Int($0)] } == [3_000_000, 2_000_000])
        let notes = trace.metadata.importNotes.filter { $0.contains("task state") }
        #expect(notes == [#"SwiftTaskStateTable: task state "Sleeping" is not one tracesvc knows (2 rows): read as unknown."#])
        // The Recipes fixture's "Unknown" is a state Instruments writes: no note.
        #expect(try Self.recipes().metadata.importNotes.allSatisfy { !$0.contains("task state") })
    }

    @Test func withoutTheLifetimeTableATaskLivesFromItsFirstToItsLastState() throws {
        let trace = try Self.harbor()
        let task = try #require(trace.tasks.taskID.firstIndex(of: 300))
        #expect((trace.tasks.start[task], trace.tasks.end[task]) == (2_000_000_000, 7_507_040_000))
        let prefetch = try #require(trace.tasks.taskID.firstIndex(of: 301))
        #expect((trace.tasks.start[prefetch], trace.tasks.end[prefetch]) == (2_003_500_000, 2_017_585_000))
        let detail = try #require(trace.taskStateDetail(try Self.row(trace, task: 300, .running)))
        #expect((detail.task.start, detail.task.end) == (2_000_000_000, 7_507_040_000))
        #expect(trace.metadata.importNotes.contains("No SwiftTaskLifetime table in the export: each task's lifetime is taken from its first and last state."))
        // With the table, its rows decide (Recipes: task 90's lifetime is longer than its states).
        #expect(try Self.recipes().metadata.importNotes.allSatisfy { !$0.contains("SwiftTaskLifetime") })
    }

    @Test func aTaskThatRanIsNeverSaidNotToHaveResumed() throws {
        let trace = try Self.harbor()
        let rows = trace.taskSummary()
        // The second run has no resume function in the export: it ran all the same, and its
        // 2 ms wait for the main actor is charged to that run.
        let unnamed = try #require(rows.first { $0.resumeFunction.isEmpty && $0.isMainActor })
        #expect(unnamed.title == "(resume function not recorded)")
        #expect((unnamed.running, unnamed.runs, unnamed.waiting) == (800_000, 1, 2_000_000))
        let refresh = try #require(rows.first { $0.resumeFunction == "InboxModel.refresh() Harbor" })
        #expect((refresh.running, refresh.waiting) == (1_200_000, 3_000_000))
        #expect(rows.allSatisfy { !$0.title.contains("never") })
        // A wait the recording ends in says so.
        var builder = TraceBuilder(metadata: TraceMetadata(name: "cut", sourceFormat: "test"))
        let task = builder.addTask(taskID: 4)
        var wait = SwiftTaskStateRow(start: 10, duration: 50, task: task, state: .enqueued)
        wait.actor = builder.intern("Main Actor (0x1)")
        wait.isMainActor = true
        builder.addTaskState(wait)
        let cut = try builder.build().taskSummary()
        #expect(cut.map(\.title) == ["(did not run again before the recording ended)"])
        #expect(cut.first?.waiting == 50)
    }

    // MARK: Two processes

    /// Fixtures/xctrace-two-processes: an app (Recipes, 4411) and its widget (RecipesWidget,
    /// 4520) recorded together, each with a task 90 (one interned `swift-task-id` value, as
    /// xctrace writes it); the widget's task 91 awaits the widget's task 90.
    static func twoProcesses() throws -> Trace {
        var bytes: [UInt8] = []
        for table in tables {
            let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-two-processes/\(table)", withExtension: "xml"))
            bytes += try Data(contentsOf: url)
        }
        return try XCTraceImporter.importTrace(from: .memory(bytes, chunkSize: 991), displayName: "two-processes.xml")
    }

    /// (pid, task id, title) of every task, in row order.
    static func taskKeys(_ trace: Trace) -> [String] {
        (0..<trace.tasks.count).map { task in
            let process = Int(trace.tasks.process[task])
            let pid = process == Int(noRow) ? -1 : trace.processes[process].pid
            return "\(pid):\(trace.tasks.taskID[task]) \(trace.taskTitle(task))"
        }.sorted()
    }

    @Test func tasksOfTwoProcessesWithTheSameIDStayApart() throws {
        let trace = try Self.twoProcesses()
        #expect(Self.taskKeys(trace) == [
            "4411:90 View.task @ Recipes/RecipeView.swift:27",
            "4520:90 Provider.task @ RecipesWidget/Provider.swift:12",
            "4520:91 Task 91",
        ])
        func task(_ pid: Int32, _ id: Int64) throws -> Int {
            try #require((0..<trace.tasks.count).first { row in
                trace.tasks.taskID[row] == id && trace.processes[Int(trace.tasks.process[row])].pid == pid
            })
        }
        let app = try task(4411, 90), widget = try task(4520, 90), awaiting = try task(4520, 91)
        // Each task has its own states and lifetime (SwiftTaskLifetime), not the other's.
        let states = { (task: Int) in trace.indexes.states(ofTask: task).map { trace.taskStates.state[Int($0)] } }
        #expect(states(app) == [.enqueued, .running])
        #expect(states(widget) == [.enqueued, .running])
        #expect((trace.tasks.start[app], trace.tasks.end[app]) == (1_500_000_000, 1_652_500_000))
        #expect((trace.tasks.start[widget], trace.tasks.end[widget]) == (1_519_000_000, 1_541_000_000))
        // The widget's task 91 awaits the widget's task 90, not the app's.
        let suspended = try #require(trace.indexes.states(ofTask: awaiting).first)
        let detail = try #require(trace.taskStateDetail(Int(suspended)))
        #expect(detail.waitingFor?.row == widget)
        #expect(detail.waitingFor?.process?.pid == 4520)
        let process = try #require(detail.task.process)
        #expect((process.index, process.pid, process.name) == (Int(trace.tasks.process[awaiting]), 4520, "RecipesWidget"))
        // The creation backtrace comes from the widget's own SwiftTasksInfoTable row.
        let widgetRun = try #require(trace.indexes.states(ofTask: widget).last)
        #expect(try #require(trace.taskStateDetail(Int(widgetRun))).creationBacktrace.map(\.name) == ["Provider.getTimeline(in:completion:)"])
        let appRun = try #require(trace.indexes.states(ofTask: app).last)
        #expect(try #require(trace.taskStateDetail(Int(appRun))).creationBacktrace.map(\.name) == ["RecipeView.body.getter"])
    }

    @Test func tasksOfTwoProcessesSurviveTheNativeFormatAndExport() throws {
        let original = try Self.twoProcesses()
        let bytes = NativeTraceWriter.encode(original)
        let native = try TraceImporter.importTrace(at: try temporaryFile(bytes), displayName: "two.json")
        #expect(Self.taskKeys(native) == Self.taskKeys(original))
        for row in 0..<original.taskStates.count {
            #expect(native.taskStateDetail(row) == original.taskStateDetail(row))
        }
        var exported: [UInt8] = []
        try XCTraceExporter.export(original, layout: .tarBundle) { exported += $0 }
        let again = try XCTraceImporter.importTrace(from: .memory(exported), displayName: "two.tar")
        #expect(Self.taskKeys(again) == Self.taskKeys(original))
    }

    @Test func aTaskListedTwiceForOneProcessIsNamed() throws {
        let v3 = minimalTrace.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 3")
        let twice = v3.replacingOccurrences(of: Self.lastTable, with: Self.lastTable + """
            , "tasks": [[7, 0, "", null, 10, 20], [7, null, "", null, 10, 20], [7, 0, "", null, 10, 20]]
            """)
        #expect(try importError(twice).contains("tasks[2].taskID: task 7 of process 0 is listed twice (tasks[0] and tasks[2])"))
        let processes = twice.replacingOccurrences(of: "[7, 0, \"\", null, 10, 20]]", with: "[7, 1, \"\", null, 10, 20]]")
        #expect(try importError(processes).contains("tasks[2].process: refers to process 1"))
    }

    // MARK: Native format versions 2 and 3

    /// The last table of `minimalTrace`, to append tables after.
    static let lastTable = #""edges": [[1, 0, "update", "isFavorite", 1000, 0]]"#

    @Test func theNativeFormatCarriesTasksAndStates() throws {
        let original = try Self.recipes()
        let bytes = NativeTraceWriter.encode(original)
        #expect(String(decoding: bytes.prefix(60), as: UTF8.self).contains("\"version\": 3"))
        let trace = try TraceImporter.importTrace(at: try temporaryFile(bytes), displayName: "recipes.json")
        #expect(trace.metadata.sourceFormat == "tracesvc-json/3")
        #expect(trace.tasks.taskID == original.tasks.taskID)
        #expect(trace.taskStates.start == original.taskStates.start)
        #expect(trace.taskStates.state == original.taskStates.state)
        #expect(trace.indexes.mainActorWaits == original.indexes.mainActorWaits)
        for row in 0..<original.taskStates.count {
            #expect(trace.taskStateDetail(row) == original.taskStateDetail(row))
        }
        #expect(NativeTraceWriter.encode(trace) == bytes, "reading and writing again gives the same bytes")
    }

    /// A version 2 file as tracesvc eec7caa wrote it (tasks without a process column) reads as
    /// the sample did then: its tasks of no known process, its states and updates.
    @Test func version2FilesWithTasksOfNoProcessStillRead() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/native/landmarks-concurrency-slow-v2", withExtension: "json"))
        let old = try TraceImporter.importTrace(at: url, displayName: "landmarks-concurrency-slow-v2.json")
        let sample = SampleTraces.trace(named: "landmarks-concurrency-slow")
        #expect(old.metadata.sourceFormat == "tracesvc-json/2")
        #expect(old.tasks.count == sample.tasks.count && old.tasks.count > 0)
        #expect(old.tasks.taskID == sample.tasks.taskID)
        #expect(old.tasks.process.allSatisfy { $0 == noRow })
        #expect(old.taskStates.start == sample.taskStates.start && old.taskStates.state == sample.taskStates.state)
        #expect(old.indexes.mainActorWaits == sample.indexes.mainActorWaits)
        // The updates up to the image loader's write; the sample has since gained the bodies it runs.
        #expect(old.updates.count == 59 && old.updates.start.prefix(27) == sample.updates.start.prefix(27))
        // A version 2 file whose rows carry version 3's process column is an error at that column.
        let text = try String(contentsOf: url, encoding: .utf8)
            .replacingOccurrences(of: "[501, \"View.task", with: "[501, 0, \"View.task")
        #expect(try importError(text).contains(":361:11: tasks[0].name: expected a string, found a number"))
    }

    @Test func version1FilesStillReadAndCannotHoldTasks() throws {
        // A version 1 file is a version 3 file without the task tables (the upgrade path); a sample
        // without signposts, which version 1 never had.
        let sample = SampleTraces.trace(named: "environment-color-scheme")
        var text = String(decoding: NativeTraceWriter.encode(sample), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"version\": 3", with: "\"version\": 1")
            .replacingOccurrences(of: ",\n  \"tasks\": []", with: "").replacingOccurrences(of: ",\n  \"taskStates\": []", with: "")
        #expect(!text.contains("\"tasks\""))
        let old = try TraceImporter.importTrace(at: try temporaryFile(text), displayName: "old.json")
        #expect(old.metadata.sourceFormat == "tracesvc-json/1")
        #expect(old.updates.start == sample.updates.start)
        #expect(old.graph.edges.count == sample.graph.edges.count)
        #expect(old.tasks.count == 0)

        let withTasks = minimalTrace.replacingOccurrences(of: Self.lastTable, with: Self.lastTable + ", \"tasks\": []")
        #expect(withTasks != minimalTrace)
        #expect(try importError(withTasks).contains("unknown key \"tasks\"; a version 1 trace has:"))
        #expect(try importError(minimalTrace.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 4"))
            .contains("unsupported version 4; this tracesvc reads versions 1 to 3"))
    }

    @Test func badTaskRowsAreNamed() throws {
        let v3 = minimalTrace.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 3")
        let bad = v3.replacingOccurrences(of: Self.lastTable, with: Self.lastTable + """
            , "tasks": [[7, null, "", null, 10, 20]],
            "taskStates": [[10, 5, 1, "running", "Main Actor", true, "", "", null, null, null, ""]]
            """)
        #expect(try importError(bad).contains("taskStates[0].task: refers to task 1, but only 1 task (0...0) come before it"))
        let badState = bad.replacingOccurrences(of: "[[10, 5, 1, \"running\"", with: "[[10, 5, 0, \"sleeping\"")
        #expect(try importError(badState).contains("taskStates[0].state: unknown task state \"sleeping\""))
    }

    // MARK: export-xctrace

    @Test(arguments: ["landmarks-concurrency-slow", "landmarks-concurrency-fixed"])
    func tasksSurviveExportAndImport(name: String) throws {
        let original = SampleTraces.trace(named: name)
        var bytes: [UInt8] = []
        try XCTraceExporter.export(original, layout: .tarBundle) { bytes += $0 }
        let xml = String(decoding: bytes, as: UTF8.self)
        #expect(xml.contains("<analysis-core-swift-task ref="), "repeated tasks are refs, as Instruments writes them")
        #expect(xml.contains("<schema name=\"SwiftTasksInfoTable\">"))
        let imported = try XCTraceImporter.importTrace(from: .memory(bytes), displayName: name + ".tar")
        #expect(Set(imported.tasks.taskID) == Set(original.tasks.taskID))
        #expect(imported.indexes.mainActorRuns == original.indexes.mainActorRuns)
        #expect(imported.indexes.mainActorWaits == original.indexes.mainActorWaits)
        for row in 0..<original.taskStates.count {
            var before = try #require(original.taskStateDetail(row))
            var after = try #require(imported.taskStateDetail(row))
            // Thread rows may be numbered differently; names and tids are compared.
            #expect(after.thread?.name == before.thread?.name && after.thread?.tid == before.thread?.tid)
            (before.thread, after.thread) = (nil, nil)
            // Task rows are numbered in the order the importer meets them; ids are compared.
            (before.task.row, after.task.row) = (0, 0)
            before.task.process?.index = 0
            after.task.process?.index = 0
            before.waitingFor?.row = 0
            after.waitingFor?.row = 0
            #expect(after == before)
        }
        #expect(imported.taskSummary() == original.taskSummary())
    }
}
