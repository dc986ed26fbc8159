import Testing
import TraceModel
import TraceSamples

/// `main-actor-blocked`, `main-actor-wait`, and hang and hitch readings that name the task, on the
/// Landmarks concurrency samples and on another app (Harbor: other task, actor and view names,
/// 60 Hz, no refresh rate in the recording).
@Suite struct ConcurrencyFindingsTests {
    static let slow = SampleTraces.trace(named: "landmarks-concurrency-slow")
    static let fixed = SampleTraces.trace(named: "landmarks-concurrency-fixed")

    /// The findings of `kind`, each as its rule found it: an incident's parts count (the hitch,
    /// the wait and the block of one incident are one finding with them as parts).
    static func only(_ kind: FindingKind, _ trace: Trace, _ options: FindingsOptions = FindingsOptions()) -> [Finding] {
        trace.findings(options).flatMap { $0.parts.isEmpty ? [$0] : $0.parts }.filter { $0.kind == kind }
    }

    @Test func theSlowSampleBlocksTheMainActorWithTheImageLoader() throws {
        let blocked = Self.only(.mainActorBlocked, Self.slow)
        #expect(blocked.count == 1)
        let finding = try #require(blocked.first)
        #expect(finding.id == "main-actor-blocked:LandmarkImageLoader.loadImages(for:)@View.task @ Landmarks/LandmarkDetail.swift:58")
        #expect(finding.title.hasPrefix("LandmarkImageLoader.loadImages(for:) ran on the Main Actor for 120 ms in Task 502 (created by View.task @ Landmarks/LandmarkDetail.swift:58), during 1 hitch of "))
        #expect(finding.title.contains("; View.task @ Landmarks/MapView.swift:31 waited 120 ms for it"))
        #expect(finding.severity == .high)
        #expect(finding.costNs == 120_000_000 && finding.savingNs == 120_000_000)
        #expect(finding.fix.contains("@concurrent") && finding.fix.contains("assign the result"))
        #expect(finding.subjects.prefix(3).map(\.role) == [.function, .task, .task])
        #expect(finding.subjects[1].detail == "View.task @ Landmarks/LandmarkDetail.swift:58")
        #expect(finding.evidence.frames.first?.name == "UIImage.init(contentsOfFile:)")
        // The run first, then MapView's wait; the run opens in the task panel.
        let states = Self.slow.taskStates
        let run = try #require(finding.evidence.taskStates.first)
        #expect(states.state[run] == .running && states.duration[run] == 120_000_000)
        #expect(Self.slow.taskStateDetail(finding.evidence.taskStates[1])?.task.title == "View.task @ Landmarks/MapView.swift:31")
        // Its representative update is the body the loader's write made run: the cause chain's graph.
        let update = try #require(finding.evidence.representativeUpdate)
        #expect(Self.slow.string(Self.slow.updates.viewName[update]) == "LandmarkDetail")
    }

    @Test func theSlowSampleNamesWhatMapViewsTaskWaitedFor() throws {
        let finding = try #require(Self.only(.mainActorWait, Self.slow).first)
        #expect(Self.only(.mainActorWait, Self.slow).count == 1)
        #expect(finding.title.hasPrefix("View.task @ Landmarks/MapView.swift:31 waited 120 ms"))
        // The detail task's own first run (95 µs) held it too.
        #expect(finding.title.hasSuffix(" for the Main Actor while Task 502 ran LandmarkImageLoader.loadImages(for:) (120 ms) and 1 shorter run"))
        #expect(finding.severity == .high, "over 100 ms: red on the lane")
        #expect(finding.savingNs == 120_095_000)
        #expect(finding.subjects.first == FindingSubject(role: .task, name: "View.task @ Landmarks/MapView.swift:31", detail: "View.task @ Landmarks/MapView.swift:31"))
        #expect(finding.subjects.contains(FindingSubject(role: .function, name: "MapView.updateRegion()", detail: "Main Actor (0x600001f04000)")))
        #expect(Self.slow.taskStates.state[finding.evidence.taskStates[0]] == .enqueued)
        #expect(Self.slow.taskStates.state[finding.evidence.taskStates[1]] == .running)
    }

    @Test func theSlowSamplesHitchWaitAndBlockAreOneIncident() throws {
        // Task 502's 120 ms run, MapView's 120 ms wait behind it and the 125 ms hitch it caused:
        // one finding, its cost the time they cover together (issue 41: not 365 ms).
        let incident = try #require(Self.slow.findings().first { !$0.parts.isEmpty })
        #expect(incident.kind == .mainActorBlocked && incident.parts.map(\.kind) == [.mainActorBlocked, .hitchExplained, .mainActorWait])
        #expect(Self.slow.findings().filter { [.mainActorBlocked, .mainActorWait, .hitchExplained].contains($0.kind) }.count == 1)
        #expect(incident.costNs >= 125_000_000 && incident.costNs <= 135_000_000, "\(incident.costNs)")
    }

    @Test func theFixedSampleHasNeither() {
        #expect(Self.only(.mainActorBlocked, Self.fixed).isEmpty)
        #expect(Self.only(.mainActorWait, Self.fixed).isEmpty)
    }

    @Test func theHitchNamesTheTaskAndItsSavingIsNotZero() throws {
        let hitch = try #require(Self.only(.hitchExplained, Self.slow).first)
        #expect(hitch.title.contains("main thread busy (9"))
        #expect(hitch.title.contains(": Task 502 (created by View.task @ Landmarks/LandmarkDetail.swift:58) ran LandmarkImageLoader.loadImages(for:) on the Main Actor for 120 ms"))
        #expect(hitch.savingNs > 100_000_000, "the task's run inside the hitch, not 0 ns")
        #expect(hitch.subjects.contains { $0.role == .task && $0.name == "Task 502" })
        #expect(hitch.fix.contains("LandmarkImageLoader.loadImages(for:)"))
        let run = try #require(hitch.evidence.taskStates.first)
        #expect(Self.slow.taskStates.duration[run] == 120_000_000, "the run that overlaps the hitch most comes first")
    }

    @Test func thresholdsAreParameters() throws {
        var options = FindingsOptions()
        try options.set("mainActorBlockedNs", to: "200000000")
        #expect(Self.only(.mainActorBlocked, Self.slow, options).isEmpty)
        try options.set("mainActorWaitNs", to: "200000000")
        #expect(Self.only(.mainActorWait, Self.slow, options).isEmpty)
        // Lower, the fixed sample's short runs count: MapView's 780 µs run is over 500 µs.
        try options.set("mainActorBlockedNs", to: "500000")
        #expect(Self.only(.mainActorBlocked, Self.fixed, options).map(\.subjects.first?.name) == ["MapView.updateRegion()"])
        #expect(throws: FindingsOptions.ParameterError.self) { try options.set("mainActorWaitNs", to: "0") }
    }

    // MARK: Another app

    @Test func harborBlocksTheMainActorWithItsOwnNames() throws {
        let trace = OtherAppTraces.harbor()
        #expect(trace.metadata.refreshRate == nil)
        let blocked = Self.only(.mainActorBlocked, trace)
        #expect(blocked.map(\.id) == ["main-actor-blocked:MessageStore.decodeHistory()@View.task @ Harbor/ConversationView.swift:44"])
        let finding = try #require(blocked.first)
        #expect(finding.title.hasPrefix("MessageStore.decodeHistory() ran on the Main Actor for 45.0 ms in Task 7002 (created by View.task @ Harbor/ConversationView.swift:44), during 1 hitch of 50.0 ms; View.task @ Harbor/ComposerView.swift:19 waited 40.0 ms for it"))
        #expect(finding.evidence.frames.first?.name == "JSONDecoder.decode(_:from:)")
        #expect(trace.string(trace.updates.viewName[try #require(finding.evidence.representativeUpdate)]) == "ConversationView")

        let wait = try #require(Self.only(.mainActorWait, trace).first)
        #expect(wait.title == "View.task @ Harbor/ComposerView.swift:19 waited 40.0 ms for the Main Actor while Task 7002 ran MessageStore.decodeHistory() (40.0 ms)")
        #expect(wait.severity == .medium, "orange on the lane: over 16 ms, under 100 ms")
        // The AttachmentStore actor's 8 ms run is off the main actor; at 60 Hz 45 ms is over one frame (16.7 ms).
        #expect(!trace.findings().contains { $0.title.contains("AttachmentStore") })

        let hitch = try #require(Self.only(.hitchExplained, trace).first)
        #expect(hitch.title.contains("Task 7002 (created by View.task @ Harbor/ConversationView.swift:44) ran MessageStore.decodeHistory() on the Main Actor"))
        #expect(hitch.savingNs >= 44_000_000)
    }

    @Test func harborDecodingOffTheMainActorHasNoFinding() {
        let trace = OtherAppTraces.harbor(decodeOnMainActor: false)
        #expect(Self.only(.mainActorBlocked, trace).isEmpty)
        #expect(Self.only(.mainActorWait, trace).isEmpty)
        #expect(trace.hitches.isEmpty)
    }

    @Test func withoutCPUSamplesAHitchSaysSoInsteadOfBlocked() throws {
        let trace = OtherAppTraces.harbor(cpuSamples: false)
        #expect(trace.cpu.samples.count == 0)
        let hitch = try #require(Self.only(.hitchExplained, trace).first)
        #expect(!hitch.title.contains("blocked (0% on CPU)"))
        #expect(hitch.evidence.cpuCoverage == nil)
        // Tasks cover 91 % of the reading (the decoding 45 of 50 ms): busy, said from the Swift Tasks data.
        #expect(hitch.title.contains("main thread busy (91% in a Swift task; the recording has no CPU samples): Task 7002"))
        #expect(hitch.savingNs >= 44_000_000)

        // With no task and no long update, nothing tells busy from blocked.
        var options = FindingsOptions()
        options.busyCoverage = 1
        let unknown = try #require(Self.only(.hitchExplained, trace, options).first)
        #expect(unknown.title.contains("the recording has no CPU data, so whether the main thread was busy or blocked cannot be told"))
        #expect(unknown.subjects.first?.detail == "unknown")
        #expect(unknown.fix.hasPrefix("Record with the Time Profiler"))
    }
}
