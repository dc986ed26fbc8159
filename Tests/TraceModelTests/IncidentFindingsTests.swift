import Testing
@testable import TraceModel

/// Issue 41: one incident (a hitch, the task that blocked the Main Actor, the task that waited
/// for it, overlapping in time) is one finding with its parts, not three; the findings' total
/// counts overlapping time once. Traces built here, of two apps other than Landmarks.
@Suite struct IncidentFindingsTests {
    /// `app` at 60 Hz: `StoreType.decodeAll()` runs 90 ms on the Main Actor from 200 ms, another
    /// task waits 80 ms for the Main Actor from 201 ms, and a 95 ms hitch shows a frame after the
    /// run began; `apart` moves the wait 600 ms and the hitch 1.2 s later, away from the run.
    static func trace(app: String, apart: Bool) throws -> Trace {
        var b = TraceBuilder(metadata: TraceMetadata(name: app.lowercased(), app: app, start: 0, end: 2_000_000_000, sourceFormat: "test"))
        b.metadata.refreshRate = 60
        let process = b.addProcess(TraceProcess(pid: 9, name: app))
        let main = b.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        let loader = b.addTask(taskID: 11, process: Int32(process), name: b.intern("View.task @ \(app)/GalleryView.swift:12"))
        let waiter = b.addTask(taskID: 12, process: Int32(process), name: b.intern("View.task @ \(app)/HeaderView.swift:30"))
        func state(_ task: UInt32, _ kind: SwiftTaskState, _ start: Nanoseconds, _ duration: Nanoseconds, resume: String = "") {
            var row = SwiftTaskStateRow(start: start, duration: duration, task: task, state: kind)
            row.actor = b.intern("Main Actor (0x600002c04000)")
            row.isMainActor = true
            row.resumeFunction = b.intern(resume)
            row.thread = kind == .running ? main : noRow
            b.addTaskState(row)
        }
        let run: Nanoseconds = 200_000_000
        state(loader, .running, run, 90_000_000, resume: "\(app)Store.decodeAll()")
        let waitStart = run + 1_000_000 + (apart ? 600_000_000 : 0)
        state(waiter, .enqueued, waitStart, 80_000_000)
        state(waiter, .running, waitStart + 80_000_000, 100_000, resume: "HeaderModel.refresh()")
        b.addHitch(TimelineInterval(start: run + 16_666_667 + (apart ? 1_200_000_000 : 0), duration: 95_000_000, kind: "Hitch", detail: "", thread: main))
        return try b.build()
    }

    @Test func anOverlappingHitchWaitAndBlockAreOneFindingWithThreeParts() throws {
        let trace = try Self.trace(app: "Quarry", apart: false)
        let findings = trace.findings()
        #expect(findings.count == 1, "\(findings.map(\.title))")
        let incident = try #require(findings.first)
        // The cause leads: the block's id, title and fix; every part as its rule found it.
        #expect(incident.kind == .mainActorBlocked && incident.id == "main-actor-blocked:QuarryStore.decodeAll()@View.task @ Quarry/GalleryView.swift:12")
        #expect(incident.parts.map(\.kind) == [.mainActorBlocked, .hitchExplained, .mainActorWait])
        #expect(incident.parts.map(\.costNs) == [90_000_000, 95_000_000, 80_000_000])
        #expect(incident.parts.allSatisfy { $0.parts.isEmpty })
        #expect(incident.fix == incident.parts[0].fix)
        // Its cost is the time the three cover together (200 ms to the hitch's end), not their 265 ms sum.
        #expect(incident.costNs == 111_666_667)
        #expect(incident.title.hasSuffix("(one incident with a hitch and a Main Actor wait: 112 ms in all)"), "\(incident.title)")
        #expect(incident.severity == .high && incident.savingNs <= incident.costNs)
        #expect(trace.totalCost(of: findings) == 111_666_667)
        // Both tasks' intervals open from it: the run first, then the wait.
        let states = trace.taskStates
        #expect(incident.evidence.taskStates.first.map { states.state[$0] } == .running)
        #expect(incident.evidence.taskStates.contains { states.state[$0] == .enqueued })
        #expect(incident.subjects.contains { $0.role == .task && $0.name == "View.task @ Quarry/HeaderView.swift:30" })
    }

    @Test func aHitchWaitAndBlockAtDifferentTimesStayThreeFindingsAndTheirTotalIsTheirSum() throws {
        let trace = try Self.trace(app: "Tideline", apart: true)
        let findings = trace.findings()
        #expect(Set(findings.map(\.kind)) == [.mainActorBlocked, .hitchExplained, .mainActorWait], "\(findings.map(\.title))")
        #expect(findings.count == 3 && findings.allSatisfy { $0.parts.isEmpty })
        #expect(!findings.contains { $0.title.contains("one incident") })
        #expect(trace.totalCost(of: findings) == 90_000_000 + 95_000_000 + 80_000_000)
    }

    @Test func theCoveredTimeCountsEachInstantOnce() {
        let ranges = [TimeRange(start: 10, end: 20), TimeRange(start: 15, end: 30), TimeRange(start: 40, end: 50), TimeRange(start: 50, end: 55), TimeRange(start: 5, end: 5)]
        #expect(TimeRange.covered(ranges) == 20 + 15)
        #expect(TimeRange.covered([]) == 0)
    }
}
