import Foundation
import Testing
@testable import TraceFormats
import TraceModel
import TraceSamples

@Suite struct BudgetReaderTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs")

    private func read(_ text: String) throws -> Budget {
        try BudgetReader.read(at: try temporaryFile(text, name: "budget.json"), displayName: "budget.json")
    }

    /// The one line a user sees for a bad budget file.
    private func error(_ text: String) throws -> String {
        do {
            _ = try read(text)
            return "no error"
        } catch let error as TraceFormatError {
            return error.description
        }
    }

    @Test func readsEveryPartOfABudget() throws {
        let budget = try read("""
            {"$schema": "https://example.com/budgets.schema.json", "version": 1,
             "window": {"from": "1s"},
             "rules": [
               {"name": "No red rows", "metric": "red-updates", "views": "Row*", "max": 0},
               {"metric": "body-time-p95", "views": ["Row*", "Cell[0-9]"], "perView": true, "window": {"from": "500us", "to": "2.5s"}, "max": "1.5ms"},
               {"metric": "hang-longest", "max": "250ms"},
               {"metric": "fan-out", "views": "Row*", "max": 4},
               {"metric": "findings", "kinds": ["long-body", "hang-explained"], "minSeverity": "medium", "thresholds": {"longBodyMinCount": 5, "busyCoverage": 0.25}, "max": 1}
             ],
             "baseline": {"countTolerance": 0.05, "timeTolerance": 0.5, "views": "Row*"}}
            """)
        #expect(budget.window == BudgetWindow(from: 1_000_000_000))
        #expect(budget.rules.map(\.name) == [
            "No red rows", "body-time-p95 of Row*, Cell[0-9] (each view) ≤ 1.5ms", "hang-longest ≤ 250ms", "fan-out of Row* ≤ 4",
            "findings (long-body, hang-explained) ≤ 1",
        ])
        #expect(budget.rules.map(\.metric) == [.redUpdates, .bodyTimeP95, .hangLongest, .fanOut, .findings])
        #expect(budget.rules.map(\.limit) == [0, 1_500_000, 250_000_000, 4, 1])
        var options = FindingsOptions()
        options.longBodyMinCount = 5
        options.busyCoverage = 0.25
        #expect(budget.rules[4].findings == FindingsFilter(kinds: [.longBody, .hangExplained], minSeverity: .medium, options: options))
        #expect(budget.rules[0].findings == FindingsFilter())
        #expect(budget.rules[1].perView && budget.rules[1].views.map(\.pattern) == ["Row*", "Cell[0-9]"])
        #expect(budget.rules[1].window == BudgetWindow(from: 500_000, to: 2_500_000_000))
        #expect(budget.rules[0].window == nil, "the budget's window applies when the rules are evaluated")
        #expect(budget.baseline == BaselineTolerance(count: 0.05, time: 0.5, views: [try Glob("Row*")]))
    }

    @Test func aBaselineOnlyBudgetKeepsTheDefaultTolerances() throws {
        let budget = try read(#"{"version": 1}"#)
        #expect(budget.rules.isEmpty && budget.baseline == BaselineTolerance())
        #expect(BudgetReader.duration("16ms") == 16_000_000 && BudgetReader.duration("2µs") == 2_000 && BudgetReader.duration("ms") == nil)
        // The CLI's and the browser's syntax: a space before the unit is fine, a bare number is not a budget duration.
        #expect(BudgetReader.duration("1 s") == 1_000_000_000 && BudgetReader.duration("2.5 ms") == 2_500_000 && BudgetReader.duration("16") == nil)
    }

    @Test(arguments: [
        (#"{"version": 1, "rules": [{"metric": "red-updates", "maxx": 0}]}"#,
         #"budget.json:1:52: rules[0]: unknown key "maxx"; expected one of: name, metric, views, perView, window, max, kinds, minSeverity, thresholds, functions, over, interaction"#),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "max": -1}]}"#,
         "budget.json:1:59: rules[0].max: must not be negative, found -1"),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "max": "2ms"}]}"#,
         #"budget.json:1:59: rules[0].max: red-updates counts; expected a whole number, found the string "2ms""#),
        (#"{"version": 1, "rules": [{"max": 5, "metric": "hang-total"}]}"#,
         #"budget.json:1:34: rules[0].max: hang-total is a time; expected a duration string with a unit such as "16ms", "500us" or "1.5s", found the number 5"#),
        (#"{"version": 1, "rules": [{"metric": "hang-total", "max": "-5ms"}]}"#,
         #"budget.json:1:58: rules[0].max: must not be negative, found "-5ms""#),
        (#"{"version": 1, "rules": [{"metric": "hang-total", "max": "5 min"}]}"#,
         #"budget.json:1:58: rules[0].max: "5 min" is not a duration; write a number and a unit (ns, us, ms, s), e.g. "16ms""#),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "views": ["Row*", "[abc"], "max": 0}]}"#,
         #"budget.json:1:70: rules[0].views[1]: bad pattern "[abc": the '[' at character 1 is never closed with ']'"#),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "views": [], "max": 0}]}"#,
         #"budget.json:1:61: rules[0].views: an empty list matches no view; leave "views" out to mean every view"#),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "views": 3, "max": 0}]}"#,
         #"budget.json:1:61: rules[0].views: expected an array of a name pattern ("*Row*") or an array of them, found a number"#),
        (#"{"version": 1, "rules": [{"metric": "red", "max": 0}]}"#,
         #"budget.json:1:37: rules[0].metric: unknown metric "red"; metrics: red-updates, orange-updates, long-updates, body-time-total, body-time-p95, hang-count, hang-longest, hang-total, hitch-count, hitch-longest, hitch-total, fan-out, findings, main-actor-run-longest, main-actor-run-total, main-actor-wait-longest, main-actor-wait-total, main-actor-tasks-over, per-interaction"#),
        (#"{"version": 1, "rules": [{"metric": "hang-count", "views": "X", "max": 0}]}"#,
         "budget.json:1:60: rules[0].views: hang-count is not about views; views narrow only red-updates, orange-updates, long-updates, body-time-total, body-time-p95, fan-out, findings, per-interaction"),
        (#"{"version": 1, "rules": [{"metric": "fan-out", "perView": true, "max": 0}]}"#,
         "budget.json:1:59: rules[0].perView: applies only to red-updates, orange-updates, long-updates, body-time-total, body-time-p95, not fan-out"),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "perView": "yes", "max": 0}]}"#,
         #"budget.json:1:63: rules[0].perView: expected true or false, found the string "yes""#),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "max": 0, "max": 1}]}"#,
         #"budget.json:1:62: rules[0]: "max" appears twice"#),
        (#"{"version": 1, "rules": [{"name": "A", "metric": "red-updates", "max": 0}, {"name": "A", "metric": "hang-count", "max": 0}]}"#,
         #"budget.json:1:85: rules[1]: another rule is named "A"; rule names must differ (they name the JUnit test cases)"#),
        (#"{"version": 2}"#, "budget.json:1:13: version: unsupported version 2; this tracesvc reads version 1"),
        (#"{"version": "1"}"#, #"budget.json:1:13: version: expected the number 1, found the string "1""#),
        (#"{"rules": []}"#, #"budget.json:1:1: the budget: missing "version": 1"#),
        (#"{"version": 1, "rules": [{"max": 0}]}"#, #"budget.json:1:26: rules[0]: missing "metric""#),
        (#"{"version": 1, "rules": [{"metric": "hitch-count"}]}"#, #"budget.json:1:26: rules[0]: missing "max""#),
        (#"{"version": 1, "window": {"from": "2s", "to": "1s"}}"#, #"budget.json:1:26: window: "to" must be after "from""#),
        (#"{"version": 1, "window": {"since": "2s"}}"#, #"budget.json:1:27: window: unknown key "since"; expected one of: from, to"#),
        (#"{"version": 1, "baseline": {"countTolerance": -0.1}}"#, "budget.json:1:47: baseline.countTolerance: must not be negative, found -0.1"),
        (#"{"version": 1, "baseline": {"timeTolerance": "20%"}}"#,
         #"budget.json:1:46: baseline.timeTolerance: expected a fraction such as 0.1 (10 % growth), found the string "20%""#),
        (#"{"version": 1, "rules": {}}"#, "budget.json:1:25: rules: expected an array of rules (objects), found an object"),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "max": 0}"#, "budget.json:1:61: expected ',' or ']', found the end of the file (is it truncated?)"),
        (#"{"version": 1, "rules": [{"metric": "findings", "kinds": "slow", "max": 0}]}"#,
         #"budget.json:1:58: rules[0].kinds: unknown finding kind "slow"; kinds: collection-fan-out, long-body, environment-churn, hang-explained, hitch-explained, repeated-body-in-transaction, main-actor-blocked, main-actor-wait, long-layout, hang-risk"#),
        (#"{"version": 1, "rules": [{"metric": "findings", "kinds": ["long-body", 3], "max": 0}]}"#,
         "budget.json:1:72: rules[0].kinds[1]: expected a string, found a number"),
        (#"{"version": 1, "rules": [{"metric": "findings", "minSeverity": "urgent", "max": 0}]}"#,
         #"budget.json:1:64: rules[0].minSeverity: unknown severity "urgent"; severities: low, medium, high"#),
        (#"{"version": 1, "rules": [{"metric": "findings", "thresholds": {"fanOutMinBodies": 1}, "max": 0}]}"#,
         "budget.json:1:83: rules[0].thresholds.fanOutMinBodies: '1' is not a number in 2...1000000"),
        (#"{"version": 1, "rules": [{"metric": "findings", "thresholds": {"fanout": 3}, "max": 0}]}"#,
         "budget.json:1:64: rules[0].thresholds: unknown key \"fanout\"; expected one of: fanOutMinBodies, fanOutMinEvents, longBodyNs, longBodyMinCount, environmentMinNotified, environmentMinSkippedShare, repeatedBodyMinRuns, busyCoverage, maxIntervalFindings, mainActorBlockedNs, mainActorWaitNs"),
        (#"{"version": 1, "rules": [{"metric": "red-updates", "kinds": "long-body", "max": 0}]}"#,
         "budget.json:1:52: rules[0].kinds: applies only to the findings metric, not red-updates"),
        (#"{"version": 1, "rules": [{"metric": "per-interaction", "max": 2}]}"#,
         #"budget.json:1:26: rules[0]: missing "interaction", the signpost name of the intervals measured (e.g. "Favorite Tap")"#),
        (#"{"version": 1, "rules": [{"metric": "fan-out", "interaction": "Tap", "max": 2}]}"#,
         "budget.json:1:63: rules[0].interaction: applies only to the per-interaction metric, not fan-out"),
        (#"{"version": 1, "rules": [{"metric": "per-interaction", "interaction": "Tap[", "max": 2}]}"#,
         #"budget.json:1:71: rules[0].interaction: bad pattern "Tap[": the '[' at character 4 is never closed with ']'"#),
        (#"{"version": 1, "rules": [{"metric": "per-interaction", "interaction": "Tap", "max": "2ms"}]}"#,
         #"budget.json:1:85: rules[0].max: per-interaction counts; expected a whole number, found the string "2ms""#),
        (#"{"version": 1} {}"#, "budget.json:1:16: unexpected content after the end of the budget object"),
        ("[1]", #"budget.json:1:1: the budget: expected a JSON object (a budget file is {"version": 1, "rules": [...]}), found an array"#),
    ])
    func badBudgetsSayWhereAndWhat(text: String, expected: String) throws {
        #expect(try error(text) == expected)
    }

    /// Every rule's mistake in one run, each on its own line with its place, in file order; the
    /// rules in between that are right say nothing.
    @Test func theMistakesOfEveryRuleAreReportedTogether() throws {
        let text = """
            {"version": 1, "rules": [
              {"metric": "reds", "max": 0},
              {"metric": "hang-count", "max": 0},
              {"metric": "hang-total", "max": 5, "views": "Row"},
              {"name": "p95", "metric": "body-time-p95", "max": "5 min"}
            ]}
            """
        #expect(try error(text) == """
            budget.json:2:14: rules[0].metric: unknown metric "reds"; metrics: \(BudgetMetric.allCases.map(\.rawValue).joined(separator: ", "))
            budget.json:4:47: rules[2].views: hang-total is not about views; views narrow only red-updates, orange-updates, long-updates, body-time-total, body-time-p95, fan-out, findings, per-interaction
            budget.json:5:53: rules[3].max: "5 min" is not a duration; write a number and a unit (ns, us, ms, s), e.g. "16ms"
            """)
        // A file whose rules cannot be told apart reports its first mistake only.
        #expect(try error(#"{"version": 1, "rules": [{"metric": "reds", "max": 0}, {"metric": "#) == #"budget.json:1:37: rules[0].metric: unknown metric "reds"; metrics: \#(BudgetMetric.allCases.map(\.rawValue).joined(separator: ", "))"#)
    }

    @Test func locationsCountLinesAndColumns() throws {
        let text = "{\n  \"version\": 1,\n  \"rules\": [\n    {\"metric\": \"red-updates\",\n     \"views\": \"Row*\", \"max\": 1.5}\n  ]\n}\n"
        #expect(try error(text) == "budget.json:5:30: rules[0].max: red-updates counts; expected a whole number, found 1.5")
    }

    // MARK: The documentation agrees with the reader

    private func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.docs.appendingPathComponent("budgets.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theSchemaListsTheKeysAndMetricsTheReaderKnows() throws {
        let schema = try schema()
        let defs = try #require(schema["$defs"] as? [String: Any])
        func keys(_ object: Any?) throws -> Set<String> {
            Set(try #require((object as? [String: Any])?["properties"] as? [String: Any]).keys)
        }
        #expect(try keys(schema) == Set(BudgetKeys.top))
        #expect(try keys(defs["rule"]) == Set(BudgetKeys.rule))
        #expect(try keys(defs["window"]) == Set(BudgetKeys.window))
        #expect(try keys((schema["properties"] as? [String: Any])?["baseline"]) == Set(BudgetKeys.baseline))
        let counts = try #require((defs["countMetric"] as? [String: Any])?["enum"] as? [String])
        let times = try #require((defs["timeMetric"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(counts) == Set(BudgetMetric.allCases.filter { $0.unit == .count }.map(\.rawValue)))
        #expect(Set(times) == Set(BudgetMetric.allCases.filter { $0.unit == .nanoseconds }.map(\.rawValue)))
        let kinds = try #require((defs["findingKind"] as? [String: Any])?["enum"] as? [String])
        #expect(kinds == FindingKind.allCases.map(\.rawValue))
        let rule = try #require((defs["rule"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(try keys(rule["thresholds"]) == Set(FindingsOptions.parameters.map(\.name)))
    }

    @Test func everyBudgetInTheCIGuideReads() throws {
        let guide = try String(contentsOf: Self.docs.appendingPathComponent("ci.md"), encoding: .utf8)
        let blocks = guide.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(!blocks.isEmpty)
        for block in blocks {
            let budget = try read(block)
            #expect(!budget.rules.isEmpty)
        }
    }
}

/// The main-actor rules: read from a file, checked on the concurrency samples and on another app.
@Suite struct MainActorBudgetTests {
    private func read(_ text: String) throws -> Budget {
        try BudgetReader.read(at: try temporaryFile(text, name: "budget.json"), displayName: "budget.json")
    }

    private func error(_ text: String) throws -> String {
        do {
            _ = try read(text)
            return "no error"
        } catch let error as TraceFormatError {
            return error.description
        }
    }

    @Test func readsFunctionsAndOver() throws {
        let budget = try read("""
            {"version": 1, "rules": [
              {"metric": "main-actor-wait-longest", "functions": ["MapView.*", "*.loadDraft()"], "max": "16ms"},
              {"metric": "main-actor-tasks-over", "over": "4ms", "max": 0},
              {"metric": "main-actor-run-total", "max": "50ms"}
            ]}
            """)
        #expect(budget.rules.map(\.name) == [
            "main-actor-wait-longest of MapView.*, *.loadDraft() ≤ 16ms", "main-actor-tasks-over over 4ms ≤ 0", "main-actor-run-total ≤ 50ms",
        ])
        #expect(budget.rules[0].functions.map(\.pattern) == ["MapView.*", "*.loadDraft()"])
        #expect(budget.rules[1].over == 4_000_000 && budget.rules[2].over == nil)
        #expect(budget.rules.map(\.limit) == [16_000_000, 0, 50_000_000])
    }

    @Test func aBudgetListsTheLongestOffendersAndCountsTheRest() throws {
        // 40 tasks of a feed app each run 18 + i ms on the Main Actor (60 Hz: one frame is 16.7 ms).
        var builder = TraceBuilder(metadata: TraceMetadata(name: "feed", sourceFormat: "test"))
        let actor = builder.intern("Main Actor (0x2)")
        let function = builder.intern("FeedModel.render(page:)")
        for i in 0..<40 {
            let task = builder.addTask(taskID: Int64(9000 + i))
            var run = SwiftTaskStateRow(start: Int64(i) * 100_000_000, duration: Int64(18 + i) * 1_000_000, task: task, state: .running)
            (run.actor, run.isMainActor, run.resumeFunction) = (actor, true, function)
            builder.addTaskState(run)
        }
        let trace = try builder.build()
        let budget = try read(#"{"version": 1, "rules": [{"metric": "main-actor-tasks-over", "max": 0}, {"metric": "main-actor-run-longest", "max": "1s"}]}"#)
        let results = trace.evaluate(budget)
        let over = results[0]
        #expect(over.measured == 40 && !over.passed)
        #expect(over.offenders.count == BudgetOffender.listedOffenders)
        #expect(over.offenders.first?.title == "Task 9039 ran 57.0 ms on the Main Actor in FeedModel.render(page:)")
        #expect(over.offenders.allSatisfy { $0.taskState != nil })
        #expect(over.notes.contains("15 more over the limit not listed"))
        #expect(results[1].passed && results[1].offenders.isEmpty && results[1].notes.isEmpty)
    }

    @Test func misplacedKeysAreNamed() throws {
        #expect(try error(#"{"version": 1, "rules": [{"metric": "hang-longest", "functions": "X*", "max": "1s"}]}"#)
            .hasSuffix("rules[0].functions: hang-longest is not about Swift tasks; functions narrow only main-actor-run-longest, main-actor-run-total, main-actor-wait-longest, main-actor-wait-total, main-actor-tasks-over"))
        #expect(try error(#"{"version": 1, "rules": [{"metric": "main-actor-run-total", "over": "1ms", "max": "1s"}]}"#)
            .hasSuffix("rules[0].over: applies only to main-actor-tasks-over, not main-actor-run-total"))
        #expect(try error(#"{"version": 1, "rules": [{"metric": "main-actor-run-total", "views": "Row", "max": "1s"}]}"#)
            .contains("rules[0].views: main-actor-run-total is not about views"))
        #expect(try error(#"{"version": 1, "rules": [{"metric": "main-actor-tasks-over", "over": 5, "max": 0}]}"#)
            .contains("rules[0].over: expected a string"))
        #expect(try error(#"{"version": 1, "rules": [{"metric": "main-actor-wait-total", "functions": [], "max": "1s"}]}"#)
            .hasSuffix(#"rules[0].functions: an empty list matches no resume function; leave "functions" out to mean every resume function"#))
        #expect(try error(#"{"version": 1, "rules": [{"metric": "main-actor-run-longest", "max": 3}]}"#)
            .contains("main-actor-run-longest is a time"))
    }

    /// The budget of docs/ci.md's "Guarding the Main Actor".
    static func guideBudget() throws -> String {
        let guide = try String(contentsOf: BudgetReaderTests.docs.appendingPathComponent("ci.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "### Guarding the Main Actor").dropFirst().first)
        return try #require(section.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
    }

    @Test func theGuidesMainActorBudgetFailsTheSlowSampleAndPassesTheFixedOne() throws {
        let budget = try read(try Self.guideBudget())
        #expect(budget.rules.count == 4)
        let slow = SampleTraces.trace(named: "landmarks-concurrency-slow").evaluate(budget)
        #expect(slow.allSatisfy { !$0.passed }, "\(slow.map { "\($0.name): \($0.measured)" })")
        let fixed = SampleTraces.trace(named: "landmarks-concurrency-fixed").evaluate(budget)
        #expect(fixed.allSatisfy { $0.passed }, "\(fixed.map { "\($0.name): \($0.measured)" })")

        let over = try #require(slow.first)
        #expect(over.measured == 1)
        let offender = try #require(over.offenders.first)
        #expect(offender.title == "Task 502 (created by View.task @ Landmarks/LandmarkDetail.swift:58) ran 120 ms on the Main Actor in LandmarkImageLoader.loadImages(for:)")
        let trace = SampleTraces.trace(named: "landmarks-concurrency-slow")
        let run = try #require(offender.taskState)
        #expect(trace.taskStates.state[run] == .running && offender.span?.duration == 120_000_000)
        let wait = try #require(slow[2].offenders.first)
        #expect(wait.title.hasPrefix("View.task @ Landmarks/MapView.swift:31 waited 120 ms"))
        #expect(wait.title.hasSuffix(" ms for the Main Actor, then ran MapView.updateRegion()"))
        #expect(trace.taskStates.state[try #require(wait.taskState)] == .enqueued)
    }

    @Test func anotherAppsTasksAreHeldToTheSameRules() throws {
        let budget = try read("""
            {"version": 1, "rules": [
              {"metric": "main-actor-tasks-over", "max": 0},
              {"metric": "main-actor-wait-longest", "functions": "ComposerView.*", "max": "16ms"},
              {"metric": "main-actor-wait-longest", "functions": "MapView.*", "max": "16ms"},
              {"metric": "main-actor-run-total", "functions": "AttachmentStore.*", "max": "0ns"}
            ]}
            """)
        let harbor = OtherAppTraces.harbor().evaluate(budget)
        // One frame is 16.7 ms: the recording states no refresh rate, so 60 Hz.
        #expect(harbor[0].measured == 1 && !harbor[0].passed)
        #expect(harbor[0].offenders.map(\.title) == ["Task 7002 (created by View.task @ Harbor/ConversationView.swift:44) ran 45.0 ms on the Main Actor in MessageStore.decodeHistory()"])
        #expect(harbor[1].measured == 40_000_000 && !harbor[1].passed)
        #expect(harbor[2].passed && harbor[2].notes == [#"no wait for the Main Actor matches "MapView.*""#])
        #expect(harbor[3].passed && harbor[3].measured == 0, "the AttachmentStore actor is not the Main Actor")
        #expect(OtherAppTraces.harbor(decodeOnMainActor: false).evaluate(budget).allSatisfy { $0.passed })
        // A recording without Swift Tasks data passes with a note.
        let noTasks = SampleTraces.trace(named: "landmarks-favorites-slow").evaluate(budget)
        #expect(noTasks.allSatisfy { $0.passed && $0.notes.contains("the recording has no Swift Tasks data (record with the Swift Tasks instrument)") })
    }
}
