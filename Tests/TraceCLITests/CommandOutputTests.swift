import Foundation
import Testing
import TraceCLI

/// What `tracesvc inspect`, `compare` and `check` print, pinned in `Expected/` (text, Markdown,
/// JSON, JUnit, GitHub annotations and exit statuses), on the Landmarks samples and on traces of
/// other apps: a generated "Synthetic" app and the "Mail" signpost export.
@Suite struct CommandOutputTests {
    static let mail = Golden.fixtures.appendingPathComponent("xctrace-signposts/os-signpost.xml").path

    /// Two generated traces of an app that is not Landmarks, written by `tracesvc generate`.
    static func syntheticPair(in folder: Folder) async throws -> (before: String, after: String) {
        let before = folder.path("synthetic-before.json"), after = folder.path("synthetic-after.json")
        try await Golden.run(["generate", "--updates", "600", "--seed", "3", "--output", before], pinnedAs: "generate-synthetic", folder: folder)
        let second = await TraceSvc.capture(["generate", "--updates", "660", "--seed", "4", "--output", after])
        #expect(second.status == 0, "\(second.error)")
        return (before, after)
    }

    // MARK: inspect

    @Test func inspectTextAndJSONOfASample() async throws {
        let trace = Golden.sample("landmarks-favorites-slow")
        try await Golden.run(["inspect", trace], pinnedAs: "inspect-favorites-slow")
        try await Golden.run(["inspect", trace, "--format", "json"], pinnedAs: "inspect-favorites-slow-json")
        try await Golden.run(["inspect", trace, "--start", "1000000000", "--end", "1500000000", "--top", "3"], pinnedAs: "inspect-favorites-slow-range")
    }

    @Test func inspectOfOtherApps() async throws {
        let folder = try Folder()
        let (trace, _) = try await Self.syntheticPair(in: folder)
        try await Golden.run(["inspect", trace, "--top", "4"], pinnedAs: "inspect-synthetic", folder: folder)
        try await Golden.run(["inspect", Self.mail], pinnedAs: "inspect-mail-signposts")
        try await Golden.run(["inspect", Self.mail, "--format", "json"], pinnedAs: "inspect-mail-signposts-json")
        try await Golden.run(["inspect", Golden.sample("landmarks-concurrency-slow"), "--top", "3"], pinnedAs: "inspect-concurrency-slow")
    }

    @Test func inspectExitStatuses() async throws {
        let folder = try Folder()
        let trace = Golden.sample("landmarks-favorites-slow")
        let missing = try await Golden.run(["inspect", folder.path("missing.json")], pinnedAs: "inspect-missing-file", folder: folder)
        #expect(missing.status == 1)
        let backwards = try await Golden.run(["inspect", trace, "--start", "2000", "--end", "1000"], pinnedAs: "inspect-backwards-range")
        #expect(backwards.status == 1)
        let badRun = try await Golden.run(["inspect", trace, "--run", "0"], pinnedAs: "inspect-run-zero")
        #expect(badRun.status == 2)
        let badThreshold = try await Golden.run(["inspect", trace, "--threshold", "longBodyMs"], pinnedAs: "inspect-bad-threshold")
        #expect(badThreshold.status == 2)
        let badFormat = try await Golden.run(["inspect", trace, "--format", "xml"], pinnedAs: "inspect-bad-format")
        #expect(badFormat.status == 2)
    }

    // MARK: compare

    @Test func compareTheFavoritesSamplesInEveryFormat() async throws {
        let before = Golden.sample("landmarks-favorites-slow"), after = Golden.sample("landmarks-favorites-fixed")
        try await Golden.run(["compare", before, after], pinnedAs: "compare-favorites")
        try await Golden.run(["compare", before, after, "--format", "markdown"], pinnedAs: "compare-favorites-markdown")
        try await Golden.run(["compare", before, after, "--format", "json"], pinnedAs: "compare-favorites-json")
        try await Golden.run(["compare", before, after, "--a-start", "1000000000", "--top", "3"], pinnedAs: "compare-favorites-range")
    }

    @Test func compareTracesOfAnotherApp() async throws {
        let folder = try Folder()
        let (before, after) = try await Self.syntheticPair(in: folder)
        try await Golden.run(["compare", before, after, "--top", "5"], pinnedAs: "compare-synthetic", folder: folder)
        try await Golden.run(["compare", before, after, "--top", "5", "--format", "markdown"], pinnedAs: "compare-synthetic-markdown", folder: folder)
        try await Golden.run(["compare", Golden.sample("landmarks-concurrency-slow"), Golden.sample("landmarks-concurrency-fixed")], pinnedAs: "compare-concurrency")
    }

    /// Recordings of "Pantry" (an app that is not Landmarks), written by `tracesvc generate --scenario`.
    static func pantry(_ scenario: String, runs: ClosedRange<Int>, in folder: Folder) async throws -> [String] {
        var paths: [String] = []
        for run in runs {
            let path = folder.path("\(scenario)-\(run).json")
            let generated = await TraceSvc.capture(["generate", "--scenario", scenario, "--seed", String(run), "--output", path])
            #expect(generated.status == 0, "\(generated.error)")
            paths.append(path)
        }
        return paths
    }

    @Test func compareTellsTheVerdictFirstAndEachRowPerItsOwnInteraction() async throws {
        let folder = try Folder()
        let slow = try await Self.pantry("pantry-slow", runs: 1...3, in: folder), fixed = try await Self.pantry("pantry-fixed", runs: 1...3, in: folder)
        let text = try await Golden.run(["compare", slow[0], fixed[0]], pinnedAs: "compare-pantry", folder: folder)
        // A tap-driven view reads per tap, a frame-driven one per frame (not one column for every row).
        #expect(text.output.contains("Button Tap 14 → 1") && text.output.contains("Frame Update 1 → 1"))
        #expect(text.output.split(separator: "\n").dropFirst(3).first == "Verdict")
        let markdown = try await Golden.run(["compare", slow[0], fixed[0], "--format", "markdown"], pinnedAs: "compare-pantry-markdown", folder: folder)
        #expect(markdown.output.contains("| Button Tap 14 → 1 |") && markdown.output.contains("([Findings](#findings))"))
        // Three recordings a side, pooled.
        try await Golden.run(["compare", "--top", "4"] + slow + ["--"] + fixed, pinnedAs: "compare-pantry-pooled", folder: folder)
        let json = await TraceSvc.capture(["compare", "--format", "json"] + slow + ["--"] + fixed)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["a"] as? [String: Any])?["runs"] as? Int == 3 && (object["b"] as? [String: Any])?["runs"] as? Int == 3)
        let tooMany = try await Golden.run(["compare", slow[0], slow[1], fixed[0]], pinnedAs: "compare-three-without-separator", folder: folder)
        #expect(tooMany.status == 2)
        let pooledRange = try await Golden.run(["compare", "--a-start", "5"] + slow + ["--"] + fixed, pinnedAs: "compare-pooled-range", folder: folder)
        #expect(pooledRange.status == 2)
    }

    @Test func compareExitStatuses() async throws {
        let folder = try Folder()
        let trace = Golden.sample("landmarks-favorites-slow")
        let unreadable = try await Golden.run(["compare", trace, try folder.file("notes.txt", "hello")], pinnedAs: "compare-unreadable", folder: folder)
        #expect(unreadable.status == 1)
        let backwards = try await Golden.run(["compare", trace, trace, "--b-start", "5", "--b-end", "4"], pinnedAs: "compare-backwards-range")
        #expect(backwards.status == 1)
        let oneTrace = try await Golden.run(["compare", trace], pinnedAs: "compare-one-trace")
        #expect(oneTrace.status == 2)
    }

    // MARK: check

    static let budget = """
        {"version": 1, "window": {"from": "1s"}, "rules": [
          {"name": "No red list rows", "metric": "red-updates", "views": "LandmarkListItemView", "max": 0},
          {"metric": "hitch-count", "max": 0},
          {"metric": "fan-out", "views": "LandmarkListItemView", "max": 4},
          {"metric": "findings", "kinds": ["collection-fan-out"], "max": 0}
        ]}
        """

    @Test func checkABudgetAndABaselineInEveryFormat() async throws {
        let folder = try Folder()
        let budget = try folder.file("budget.json", Self.budget)
        let slow = Golden.sample("landmarks-favorites-slow"), fixed = Golden.sample("landmarks-favorites-fixed")
        let failing = ["check", slow, "--budget", budget, "--baseline", fixed]
        let text = try await Golden.run(failing, pinnedAs: "check-favorites-slow", folder: folder)
        #expect(text.status == 1)
        try await Golden.run(failing + ["--format", "json"], pinnedAs: "check-favorites-slow-json", folder: folder)
        try await Golden.run(failing + ["--format", "junit"], pinnedAs: "check-favorites-slow-junit", folder: folder)
        let summary = folder.path("summary.md")
        try await Golden.run(failing + ["--format", "github"], environment: ["GITHUB_STEP_SUMMARY": summary], pinnedAs: "check-favorites-slow-github", folder: folder)
        try Golden.compare(try folder.read("summary.md"), with: "check-favorites-slow-job-summary", sourceLocation: #_sourceLocation)
        let output = try await Golden.run(failing + ["--format", "json", "--output", folder.path("report.json")], pinnedAs: "check-favorites-slow-output-file", folder: folder)
        #expect(output.status == 1)
        let printed = await TraceSvc.capture(failing + ["--format", "json"]).output
        #expect(try folder.read("report.json") + "\n" == printed, "--output writes what the format prints")

        let passing = try await Golden.run(["check", fixed, "--budget", budget, "--baseline", slow], pinnedAs: "check-favorites-fixed", folder: folder)
        #expect(passing.status == 0)
    }

    @Test func checkATraceOfAnotherApp() async throws {
        let folder = try Folder()
        let (before, after) = try await Self.syntheticPair(in: folder)
        let budget = try folder.file("budget.json", """
            {"version": 1, "rules": [
              {"name": "views", "metric": "red-updates", "views": "*View[0-9]", "max": 2},
              {"metric": "hang-count", "max": 0},
              {"metric": "orange-updates", "max": 1000}
            ]}
            """)
        let run = try await Golden.run(["check", after, "--budget", budget, "--baseline", before], pinnedAs: "check-synthetic", folder: folder)
        try await Golden.run(["check", after, "--budget", budget, "--baseline", before, "--format", "json"], pinnedAs: "check-synthetic-json", folder: folder)
        #expect(run.status == 1)
    }

    @Test func checkPerInteractionAgainstSeveralBaselines() async throws {
        let folder = try Folder()
        let fixed = try await Self.pantry("pantry-fixed", runs: 1...2, in: folder), slow = try await Self.pantry("pantry-slow", runs: 3...3, in: folder)
        let budget = try folder.file("budget.json", """
            {"version": 1, "rules": [
              {"name": "One row per item added", "metric": "per-interaction", "interaction": "Add to Cart", "views": "ItemRowView", "max": 2}
            ]}
            """)
        let run = try await Golden.run(["check", slow[0], "--budget", budget, "--baseline", fixed[0], "--baseline", fixed[1]], pinnedAs: "check-pantry-baselines", folder: folder)
        #expect(run.status == 1)
        let passing = await TraceSvc.capture(["check", fixed[1], "--budget", budget, "--baseline", fixed[0]])
        #expect(passing.status == 0, "\(passing.output)")
    }

    @Test func checkExitStatuses() async throws {
        let folder = try Folder()
        let trace = Golden.sample("landmarks-scroll-slow")
        let nothing = try await Golden.run(["check", trace], pinnedAs: "check-nothing-to-check")
        #expect(nothing.status == 2)
        let badBudget = try await Golden.run(["check", trace, "--budget", try folder.file("budget.json", "{\"version\": 1, \"rules\": [{\"metric\": \"reds\"}]}")], pinnedAs: "check-bad-budget", folder: folder)
        #expect(badBudget.status == 2)
        let missing = try await Golden.run(["check", folder.path("missing.json"), "--baseline", trace], pinnedAs: "check-missing-trace", folder: folder)
        #expect(missing.status == 2)
        let badServer = try await Golden.run(["check", trace, "--baseline", trace, "--server", "localhost:8080"], pinnedAs: "check-bad-server")
        #expect(badServer.status == 2)
    }

    @Test func helpIsOnStandardOutputAndExitsZero() async throws {
        let help = try await Golden.run(["--help"], pinnedAs: "help")
        #expect(help.status == 0 && help.error.isEmpty)
        #expect(!help.output.contains("bench"), "the benchmarks are tracesvc-bench's")
        let unknown = try await Golden.run(["bench-timeline"], pinnedAs: "unknown-command")
        #expect(unknown.status == 2)
    }
}
