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
