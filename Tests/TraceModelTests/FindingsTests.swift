import Foundation
import Testing
@testable import TraceModel

/// Small recordings of apps other than the samples (names, shapes, counts of their own), so the
/// rules are shown to hold for any app. The Landmarks samples are checked in SampleFindingsTests.
private struct AppRecording {
    var builder: TraceBuilder
    let main: Int32
    let module: StringRef
    private var nextEvent: Int64 = 1

    init(app: String) {
        builder = TraceBuilder(metadata: TraceMetadata(name: app.lowercased(), app: app, refreshRate: 60, start: 0, end: 20_000_000_000, sourceFormat: "test"))
        let process = builder.addProcess(TraceProcess(pid: 7, name: app))
        main = builder.addThread(TraceThread(tid: 1, name: "Main Thread", process: process, isMain: true))
        module = builder.intern(app)
    }

    mutating func group(start: Nanoseconds, end: Nanoseconds) -> Int32 {
        builder.addUpdateGroup(start: start, duration: end - start, label: builder.intern("Transaction"), thread: main)
    }

    /// A view body that ran, with its graph node.
    @discardableResult
    mutating func body(_ view: String, start: Nanoseconds, duration: Nanoseconds, group: Int32 = noRow, kind: UpdateKind = .viewBody) -> UInt32 {
        let row = builder.addUpdate(start: start, duration: duration, kind: kind, module: module, viewName: builder.intern(view), thread: main, group: group)
        return node(.viewBody, view, at: start, update: row)
    }

    mutating func node(_ kind: NodeKind, _ name: String, owner: String = "", at time: Nanoseconds, update: Int32 = noRow) -> UInt32 {
        defer { nextEvent += 1 }
        return builder.addNode(
            kind: kind, name: builder.intern(name), owner: builder.intern(owner), isAppCode: kind != .externalEnvironment,
            eventID: nextEvent, timestamp: time, update: update
        )
    }

    mutating func edge(_ source: UInt32, _ target: UInt32, _ label: EdgeLabel = .update, property: String = "", at time: Nanoseconds, group: Int32 = noRow) {
        builder.addEdge(source: source, target: target, label: label, changedProperty: builder.intern(property), timestamp: time, group: group)
    }

    /// 1 ms main-thread samples over [start, end) of the stack given root first as (symbol, binary).
    mutating func samples(_ frames: [(String, String)], from start: Nanoseconds, to end: Nanoseconds) {
        let app = builder.metadata.app
        let ids = frames.map { builder.addFrame(name: builder.intern($0.0), binary: builder.intern($0.1), isAppCode: $0.1 == app) }
        let stack = UInt32(builder.addStack(rootToLeaf: ids))
        var time = start
        while time < end {
            builder.addSample(time: time, thread: main, weight: 1_000_000, stack: stack)
            time += 1_000_000
        }
    }

    /// `changes` writes of `property`, each running `bodies` bodies of `view` in their own transaction.
    mutating func fanOut(source: String, owner: String, property: String, view: String, bodies: Int, changes: Int, label: EdgeLabel = .update) {
        for change in 0..<changes {
            let start = Nanoseconds(1_000_000_000 + change * 1_000_000_000)
            let group = group(start: start, end: start + Nanoseconds(bodies) * 300_000 + 100_000)
            let state = node(.observable, source, owner: owner, at: start)
            for index in 0..<bodies {
                let row = body(view, start: start + Nanoseconds(index) * 300_000, duration: 250_000, group: group)
                edge(state, row, label, property: property, at: start, group: group)
            }
        }
    }

    consuming func build() throws -> Trace { try builder.build() }
}

private let rowStack = [("main", "Weather"), ("ForecastCell.body.getter", "Weather"), ("DateFormatter.init()", "Foundation"), ("udat_open", "libicucore.A.dylib")]

@Suite struct FindingsTests {
    // MARK: Collection fan-out

    @Test func fanOutNamesTheCollectionAndTheViewOfAnyApp() throws {
        var recording = AppRecording(app: "Recipes")
        recording.fanOut(source: "@Observable RecipeStore", owner: "RecipeStore", property: "bookmarks", view: "RecipeRow", bodies: 10, changes: 3)
        let trace = try recording.build()
        let findings = trace.findings().filter { $0.kind == .collectionFanOut }
        let finding = try #require(findings.first)
        #expect(findings.count == 1)
        #expect(finding.subjects.contains(FindingSubject(role: .view, name: "RecipeRow", detail: "Recipes")))
        #expect(finding.subjects.contains { $0.role == .property && $0.name == "bookmarks" })
        #expect(finding.title.contains("RecipeStore") && finding.title.contains("10 RecipeRow bodies") && finding.title.contains("3 changes"))
        #expect(finding.occurrences == 3 && finding.evidence.updateCount == 30 && finding.costNs == 30 * 250_000)
        // Per-item models would run one body per change: 9 of 10 saved.
        #expect(finding.savingNs == 27 * 250_000)
        let representative = try #require(finding.evidence.representativeUpdate)
        #expect(trace.string(trace.updates.viewName[representative]) == "RecipeRow")
        #expect(trace.causeGraph(ofUpdate: representative)?.nodes.contains { $0.title == "@Observable RecipeStore" } == true)
    }

    @Test func fanOutNeedsEnoughBodiesEnoughTimesFromAStateChange() throws {
        func fanOuts(bodies: Int, changes: Int, label: EdgeLabel = .update, options: FindingsOptions = FindingsOptions()) throws -> [Finding] {
            var recording = AppRecording(app: "Recipes")
            recording.fanOut(source: "@Observable RecipeStore", owner: "RecipeStore", property: "bookmarks", view: "RecipeRow", bodies: bodies, changes: changes, label: label)
            return try recording.build().findings(options).filter { $0.kind == .collectionFanOut }
        }
        #expect(try fanOuts(bodies: 7, changes: 5).isEmpty)  // below the default 8
        #expect(try fanOuts(bodies: 20, changes: 1).isEmpty)  // once is not "repeatedly"
        #expect(try fanOuts(bodies: 20, changes: 3, label: .creation).isEmpty)  // creating rows is not a fan-out
        var lower = FindingsOptions()
        try lower.set("fanOutMinBodies", to: "5")
        #expect(try fanOuts(bodies: 7, changes: 5, options: lower).count == 1)
    }

    @Test func oneBodyPerItemModelIsNotAFanOut() throws {
        // The fixed shape: each change has its own model and runs its own row.
        var recording = AppRecording(app: "Recipes")
        recording.fanOut(source: "@Observable RecipeModel", owner: "RecipeModel", property: "isBookmarked", view: "RecipeRow", bodies: 1, changes: 12)
        #expect(try recording.build().findings().isEmpty)
    }

    // MARK: Long body

    @Test func longBodyNamesTheViewAndTheFramesItCalls() throws {
        var recording = AppRecording(app: "Weather")
        for index in 0..<4 {
            let start = Nanoseconds(500_000_000 + index * 50_000_000)
            recording.body("ForecastCell", start: start, duration: 3_000_000)
            recording.samples(rowStack, from: start, to: start + 3_000_000)
        }
        recording.body("ForecastCell", start: 900_000_000, duration: 200_000)
        let trace = try recording.build()
        let finding = try #require(trace.findings().first { $0.kind == .longBody })
        #expect(finding.subjects.first == FindingSubject(role: .view, name: "ForecastCell", detail: "Weather"))
        // The app's call into Foundation is named, not the ICU leaf under it.
        let frame = try #require(finding.evidence.frames.first)
        #expect(frame.name == "DateFormatter.init()" && frame.binary == "Foundation" && frame.caller == "ForecastCell.body.getter")
        #expect(finding.savingIsLowerBound && finding.worstNs == 3_000_000)
        #expect(frame.weightNs == 12_000_000)
        #expect(finding.title.contains("ForecastCell.body") && finding.title.contains("4 times") && finding.title.contains("DateFormatter.init()"))
        #expect(finding.occurrences == 4 && finding.costNs == 12_000_000 && finding.savingNs == 8_000_000)
        let representative = try #require(finding.evidence.representativeUpdate)
        #expect(finding.evidence.range == TimeRange(start: trace.updates.start[representative], end: trace.updates.end(representative)))
        #expect(finding.evidence.thread == 0)
        #expect(finding.severity == .medium)
    }

    @Test func oneFrameCalledFromSeveralPlacesIsNamedOnce() throws {
        var recording = AppRecording(app: "Weather")
        let callers = ["ForecastCell.date.getter", "ForecastCell.time.getter", "ForecastCell.day.getter"]
        for index in 0..<3 {
            let start = Nanoseconds(500_000_000 + index * 50_000_000)
            recording.body("ForecastCell", start: start, duration: 3_000_000)
            recording.samples([("main", "Weather"), ("ForecastCell.body.getter", "Weather"), (callers[index], "Weather"), ("DateFormatter.string(from:)", "Foundation")],
                              from: start, to: start + 3_000_000)
        }
        let finding = try #require(try recording.build().findings().first { $0.kind == .longBody })
        #expect(finding.evidence.frames.count == 3, "one row per caller in the evidence")
        #expect(finding.title.components(separatedBy: "DateFormatter.string(from:)").count == 2, "\(finding.title)")
        #expect(finding.subjects.filter { $0.name == "DateFormatter.string(from:)" }.count == 1)
    }

    @Test func fewOrShortOrNonBodyUpdatesAreNotLongBodies() throws {
        var recording = AppRecording(app: "Weather")
        recording.body("ForecastCell", start: 100_000_000, duration: 3_000_000)
        recording.body("ForecastCell", start: 200_000_000, duration: 3_000_000)  // only two long ones
        for index in 0..<5 { recording.body("HourlyStrip", start: Nanoseconds(300_000_000 + index * 10_000_000), duration: 950_000) }  // under 1 ms
        for index in 0..<5 { recording.body("Grid", start: Nanoseconds(400_000_000 + index * 10_000_000), duration: 4_000_000, kind: .layout) }
        let trace = try recording.build()
        #expect(trace.findings().filter { $0.kind == .longBody }.isEmpty)
        var options = FindingsOptions()
        try options.set("longBodyNs", to: "900000")
        try options.set("longBodyMinCount", to: "2")
        #expect(Set(trace.findings(options).filter { $0.kind == .longBody }.compactMap { $0.subjects.first?.name }) == ["ForecastCell", "HourlyStrip"])
    }

    // MARK: Environment churn

    private func environmentChange(notified views: [String], running: Set<String>, changes: Int = 2) throws -> Trace {
        var recording = AppRecording(app: "Notes")
        for change in 0..<changes {
            let start = Nanoseconds(1_000_000_000 * (change + 1))
            let group = recording.group(start: start, end: start + 2_000_000)
            let external = recording.node(.externalEnvironment, "External Environment", at: start)
            let writer = recording.node(.environmentWriter, "EnvironmentWriter: DynamicTypeSize", at: start)
            recording.edge(external, writer, property: "dynamicTypeSize", at: start, group: group)
            for (index, view) in views.enumerated() {
                let time = start + Nanoseconds(index) * 100_000
                let target = running.contains(view)
                    ? recording.body(view, start: time, duration: 80_000, group: group)
                    : recording.node(.viewBody, view, at: time)
                recording.edge(writer, target, property: "dynamicTypeSize", at: time, group: group)
            }
        }
        return try recording.build()
    }

    @Test func environmentChangeThatMostlyNotifiesBodiesThatDoNotRunIsChurn() throws {
        let views = ["NoteRow", "Toolbar", "Sidebar", "Editor", "StatusBar"]
        let trace = try environmentChange(notified: views, running: ["Editor"])
        let finding = try #require(trace.findings().first { $0.kind == .environmentChurn })
        #expect(finding.subjects.first == FindingSubject(role: .environment, name: "External Environment → EnvironmentWriter: DynamicTypeSize"))
        #expect(finding.subjects.contains(FindingSubject(role: .property, name: "dynamicTypeSize", detail: "environment")))
        #expect(finding.subjects.contains(FindingSubject(role: .view, name: "Sidebar")))
        // The totals of both changes, said once: no "notifies 5 … 8 of 10" that reads as a contradiction.
        #expect(finding.title.hasPrefix("2 changes of dynamicTypeSize"))
        #expect(finding.title.contains("notified 10 view bodies (up to 5 at once); 8 of them did not need to run"), "\(finding.title)")
        #expect(finding.occurrences == 2 && finding.worstNs == 1_920_000)
        // The checks: each 2 ms transaction less the 80 µs body that ran.
        #expect(finding.costNs == 2 * 1_920_000 && finding.savingNs == Nanoseconds(Double(finding.costNs) * 0.8))
        let representative = try #require(finding.evidence.representativeUpdate)
        #expect(trace.string(trace.updates.viewName[representative]) == "Editor")
        #expect(trace.causeGraph(ofUpdate: representative)?.nodes.contains { $0.title == "Sidebar" && $0.dimmed } == true)
    }

    @Test func aRarelyChangingValueIsLowWithAdviceThatFitsIt() throws {
        let views = ["NoteRow", "Toolbar", "Sidebar", "Editor", "StatusBar"]
        // Two changes (an appearance switch and back): low, and no advice about geometry or timers.
        let rare = try #require(try environmentChange(notified: views, running: ["Editor"], changes: 2).findings().first)
        #expect(rare.severity == .low && rare.fix.contains("changed twice") && !rare.fix.contains("timers"))
        let once = try #require(try environmentChange(notified: views, running: ["Editor"], changes: 1).findings().first)
        #expect(once.title.hasPrefix("A change of dynamicTypeSize") && once.title.contains("notified 5 view bodies; 4 of them"))
        #expect(once.fix.contains("changed once"))
        // Changing again and again: the churn's own severity and the advice to read narrower values.
        let often = try #require(try environmentChange(notified: views, running: ["Editor"], changes: 6).findings().first)
        #expect(often.severity != .low && often.fix.contains("Read narrower values"))
    }

    @Test func environmentChangesWhoseBodiesRunOrThatNotifyOneViewAreNotChurn() throws {
        let views = ["NoteRow", "Toolbar", "Sidebar"]
        #expect(try environmentChange(notified: views, running: Set(views)).findings().isEmpty)
        #expect(try environmentChange(notified: ["NoteRow"], running: []).findings().isEmpty)
        var strict = FindingsOptions()
        try strict.set("environmentMinSkippedShare", to: "0.9")
        #expect(try environmentChange(notified: views, running: ["Sidebar"]).findings(strict).isEmpty)
    }

    // MARK: Hangs and hitches

    private func hang(busy: Bool) throws -> Trace {
        var recording = AppRecording(app: "Mail")
        let start: Nanoseconds = 2_000_000_000, length: Nanoseconds = 400_000_000
        recording.builder.addHang(TimelineInterval(start: start, duration: length, kind: "Hang", detail: "", thread: recording.main))
        if busy {
            recording.body("MessageList", start: start + 10_000_000, duration: 300_000_000)
            recording.samples([("main", "Mail"), ("MessageList.body.getter", "Mail"), ("NSAttributedString.init(html:)", "UIFoundation")], from: start, to: start + length)
        } else {
            // The main thread ran into a lock just before the hang and came back after it.
            recording.samples([("main", "Mail"), ("MailStore.load()", "Mail"), ("pthread_mutex_lock", "libsystem_pthread.dylib")], from: start - 5_000_000, to: start + 2_000_000)
            recording.body("Inbox", start: start + length + 1_000_000, duration: 200_000)
        }
        return try recording.build()
    }

    @Test func busyHangNamesTheLongUpdatesAndFrames() throws {
        let trace = try hang(busy: true)
        let findings = trace.findings()
        let finding = try #require(findings.first { $0.kind == .hangExplained })
        #expect(finding.title.contains("busy") && finding.title.contains("MessageList"))
        #expect(finding.subjects.first == FindingSubject(role: .thread, name: "Main Thread", detail: "busy"))
        #expect(finding.evidence.frames.first?.name == "NSAttributedString.init(html:)")
        #expect(finding.evidence.updates.map { trace.string(trace.updates.viewName[$0]) } == ["MessageList"])
        #expect((finding.evidence.cpuCoverage ?? 0) > 0.9 && finding.severity == .high)
        #expect(finding.costNs == 400_000_000 && finding.savingNs == 300_000_000)
        #expect(findings.first == finding)  // the costliest finding comes first
    }

    @Test func blockedHangShowsTheFramesAroundItNotBusy() throws {
        let finding = try #require(try hang(busy: false).findings().first { $0.kind == .hangExplained })
        #expect(finding.title.contains("blocked") && !finding.title.contains("busy"))
        #expect(finding.evidence.frames.first?.name == "pthread_mutex_lock" && finding.evidence.frames.first?.caller == "MailStore.load()")
        #expect(finding.evidence.updates.isEmpty && (finding.evidence.cpuCoverage ?? 1) < 0.05)
        #expect(finding.evidence.range == TimeRange(start: 1_980_000_000, end: 2_420_000_000))
    }

    @Test func hitchIsReadFromTheFrameBeforeIt() throws {
        // 60 Hz: the 14 ms body ran in the frame before the hitch, unsampled; the hitch itself is idle.
        var recording = AppRecording(app: "Photos")
        recording.body("ThumbnailGrid", start: 984_000_000, duration: 14_000_000)
        recording.builder.addHitch(TimelineInterval(start: 1_000_000_000, duration: 16_666_666, kind: "Hitch", detail: ""))
        let trace = try recording.build()
        let finding = try #require(trace.findings().first { $0.kind == .hitchExplained })
        #expect(finding.title.contains("busy") && finding.title.contains("ThumbnailGrid updates"))
        #expect(finding.evidence.range == TimeRange(start: 1_000_000_000 - 16_666_666, end: 1_000_000_000))
        // No CPU samples at all: no coverage to give, the long update tells it was busy.
        #expect(finding.evidence.cpuCoverage == nil && finding.savingNs == 14_000_000)
    }

    @Test func onlyRecordedIntervalsAreExplainedAndTheirNumberIsCapped() throws {
        var recording = AppRecording(app: "Mail")
        recording.body("Inbox", start: 1_000_000_000, duration: 30_000_000)  // long, but no hang or hitch recorded
        #expect(try recording.build().findings().allSatisfy { $0.kind != .hangExplained && $0.kind != .hitchExplained })

        // Four hitches each in a different view's long updates: four causes, the two costliest kept.
        var many = AppRecording(app: "Mail")
        for index in 0..<4 {
            let start = Nanoseconds(index + 1) * 100_000_000
            many.builder.addHitch(TimelineInterval(start: start, duration: Nanoseconds(index + 1) * 8_000_000, kind: "Hitch", detail: ""))
            many.body("View\(index)", start: start - 16_000_000, duration: 15_000_000)
        }
        var options = FindingsOptions()
        try options.set("maxIntervalFindings", to: "2")
        let hitches = try many.build().findings(options).filter { $0.kind == .hitchExplained }
        #expect(hitches.filter { $0.occurrences == 1 }.map(\.costNs) == [32_000_000, 24_000_000])
        // The two left out are counted, not dropped without a word.
        let rest = try #require(hitches.first { $0.id == "hitch-explained:more" })
        #expect(rest.occurrences == 2 && rest.costNs == 24_000_000 && rest.worstNs == 16_000_000)
        #expect(rest.title == "2 more hitches of up to 16.0 ms (24.0 ms in all): 2 other causes than the findings above", "\(rest.title)")
        #expect(rest.evidence.intervals == [TimeRange(start: 100_000_000, end: 108_000_000), TimeRange(start: 200_000_000, end: 216_000_000)])
        #expect(hitches.count == 3)
    }

    @Test func nestedHangsAreReadUntilTheTraceIsReadAFewTimesAndTheRestCounted() throws {
        // 3,000 hangs, each one sample later than the last and all ending together, over 3,000
        // samples: reading each would scan 4.5M samples. The longest are read, the rest counted.
        var recording = AppRecording(app: "Notes")
        let count = 3_000
        for index in 0..<count {
            let start = Nanoseconds(index) * 1_000_000
            recording.builder.addHang(TimelineInterval(start: start, duration: Nanoseconds(count - index) * 1_000_000, kind: "Hang", detail: "", thread: recording.main))
            recording.samples([("main", "Notes"), ("work\(index)", "Notes")], from: start, to: start + 1_000_000)
        }
        let hangs = try recording.build().findings().filter { $0.kind == .hangExplained }
        #expect(hangs.reduce(0) { $0 + $1.occurrences } == count, "every hang is counted once")
        let rest = try #require(hangs.last { $0.id == "hang-explained:more" })
        #expect(rest.title.contains("not read: the recording's hangs overlap"), "\(rest.title)")
        #expect(rest.occurrences > count - 20, "only the longest few are read: \(rest.occurrences) counted")
        #expect(hangs.first?.title.hasPrefix("Hang of 3.00 s at 0.000 s") == true, "\(hangs.first?.title ?? "")")
    }

    @Test func hitchesReadTheSameWayAreOneFindingWithTheirOccurrences() throws {
        // A scroll: twelve hitches, each after a long MessageRow update; one after a long Toolbar one.
        var recording = AppRecording(app: "Mail")
        for index in 0..<12 {
            let start = 1_000_000_000 + Nanoseconds(index) * 100_000_000
            recording.builder.addHitch(TimelineInterval(start: start, duration: index == 5 ? 33_333_333 : 16_666_666, kind: "Hitch", detail: ""))
            recording.body("MessageRow", start: start - 16_000_000, duration: index == 5 ? 30_000_000 : 14_000_000)
        }
        recording.builder.addHitch(TimelineInterval(start: 3_000_000_000, duration: 16_666_666, kind: "Hitch", detail: ""))
        recording.body("Toolbar", start: 3_000_000_000 - 16_000_000, duration: 14_000_000)
        let trace = try recording.build()
        let hitches = trace.findings().filter { $0.kind == .hitchExplained }
        #expect(hitches.count == 2)
        let rows = try #require(hitches.first { $0.title.contains("MessageRow") })
        #expect(rows.occurrences == 12 && rows.costNs == 11 * 16_666_666 + 33_333_333 && rows.worstNs == 33_333_333)
        #expect(rows.title.hasPrefix("12 hitches of up to 33.3 ms (217 ms in all)"), "\(rows.title)")
        #expect(rows.evidence.intervals.count == 12 && rows.evidence.intervals.first?.start == 1_000_000_000)
        #expect(rows.evidence.updateCount == 12)
        #expect(rows.id == "hitch-explained:1000000000", "stable: the first occurrence")
        let toolbar = try #require(hitches.first { $0.title.contains("Toolbar") })
        #expect(toolbar.occurrences == 1 && toolbar.title.hasPrefix("Hitch of 16.7 ms at 3.000 s"))
    }

    // MARK: Repeated body in one transaction

    @Test func bodyRunningAgainFromSeveralCausesInOneTransactionIsRepeated() throws {
        var recording = AppRecording(app: "Timer")
        let group = recording.group(start: 1_000_000_000, end: 1_010_000_000)
        for run in 0..<4 {
            let time = 1_000_000_000 + Nanoseconds(run) * 2_000_000
            let state = recording.node(.state, "@State elapsed", owner: "StopwatchView", at: time)
            let body = recording.body("StopwatchView", start: time + 100_000, duration: 400_000, group: group)
            recording.edge(state, body, at: time, group: group)
        }
        let trace = try recording.build()
        let finding = try #require(trace.findings().first { $0.kind == .repeatedBody })
        #expect(finding.title.contains("StopwatchView.body runs up to 4 times in one transaction"))
        #expect(finding.subjects.contains(FindingSubject(role: .property, name: "@State StopwatchView.elapsed")))
        #expect(finding.costNs == 1_600_000 && finding.savingNs == 1_200_000 && finding.evidence.updateCount == 4)
        #expect(finding.evidence.range == TimeRange(start: 1_000_000_000, end: 1_010_000_000))
    }

    @Test func siblingInstancesAndRunsInSeparateTransactionsAreNotRepeated() throws {
        // Twelve rows from one cause in one transaction: instances of a type (a fan-out), not re-runs.
        var siblings = AppRecording(app: "Recipes")
        siblings.fanOut(source: "@State filter", owner: "RecipeList", property: "", view: "RecipeRow", bodies: 12, changes: 1)
        #expect(try siblings.build().findings().isEmpty)

        var separate = AppRecording(app: "Timer")
        for run in 0..<4 {
            let time = 1_000_000_000 + Nanoseconds(run) * 20_000_000
            let group = separate.group(start: time, end: time + 1_000_000)
            let state = separate.node(.state, "@State elapsed", owner: "StopwatchView", at: time)
            separate.edge(state, separate.body("StopwatchView", start: time, duration: 400_000, group: group), at: time, group: group)
        }
        #expect(try separate.build().findings().isEmpty)
    }

    // MARK: Options and output

    @Test func thresholdsRefuseUnknownNamesAndBadValues() {
        var options = FindingsOptions()
        #expect(throws: FindingsOptions.ParameterError.unknown("nope")) { try options.set("nope", to: "1") }
        #expect(throws: FindingsOptions.ParameterError.self) { try options.set("fanOutMinBodies", to: "x") }
        #expect(throws: FindingsOptions.ParameterError.self) { try options.set("fanOutMinBodies", to: "2.5") }
        #expect(throws: FindingsOptions.ParameterError.self) { try options.set("busyCoverage", to: "1.5") }
        #expect(throws: FindingsOptions.ParameterError.self) { try options.set("longBodyNs", to: "0") }
        #expect(options == FindingsOptions())
        #expect(FindingsOptions.ParameterError.unknown("nope").description.contains("fanOutMinBodies"))
    }

    @Test func findingsEncodeEveryEvidenceKeyWithStableKindNames() throws {
        var recording = AppRecording(app: "Recipes")
        recording.fanOut(source: "@Observable RecipeStore", owner: "RecipeStore", property: "bookmarks", view: "RecipeRow", bodies: 9, changes: 2)
        let json = try #require(String(data: try JSONEncoder().encode(recording.build().findings()), encoding: .utf8))
        #expect(json.contains(#""kind":"collection-fan-out""#))
        #expect(json.contains(#""thread":null"#) && json.contains(#""cpuCoverage":null"#))
        #expect(FindingKind.allCases.map(\.rawValue) == [
            "collection-fan-out", "long-body", "environment-churn", "hang-explained", "hitch-explained", "repeated-body-in-transaction",
            "main-actor-blocked", "main-actor-wait", "long-layout", "hang-risk",
        ])
        #expect(json.contains(#""taskStates":[]"#))
    }
}
