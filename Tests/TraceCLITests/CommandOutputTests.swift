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
        // The header, where the run-to-run noise came from, then the verdict.
        #expect(text.output.split(separator: "\n").dropFirst(3).first?.hasPrefix("Run-to-run noise: the default prior") == true)
        #expect(text.output.split(separator: "\n").dropFirst(4).first == "Verdict")
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
        // The flame graph pools them too (merged by frame names, weights per run).
        let svgPath = folder.url.appendingPathComponent("pooled.svg").path
        let pooledFlame = await TraceSvc.capture(["compare", "--top", "1", "--flamegraph", svgPath] + slow + ["--"] + fixed)
        #expect(pooledFlame.status == 0 && pooledFlame.error.contains("functions gone since A"), "\(pooledFlame.error)")
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(svg.contains("per run of 3 recordings of A and 3 of B"))
    }

    /// A fix that frees the Main Actor lets the app draw more frames, and the views that update
    /// once a frame update more often: checked against the slow recording as baseline, that is no
    /// regression (issue 26), for the Landmarks sample and for another app.
    @Test func aFixThatDrawsMoreFramesPassesAgainstTheSlowBaseline() async throws {
        let harbor = Golden.packageRoot.appendingPathComponent("Tests/Fixtures")
        for (slow, fixed, view) in [
            (Golden.sample("landmarks-concurrency-slow"), Golden.sample("landmarks-concurrency-fixed"), "NavigationStack"),
            (harbor.appendingPathComponent("harbor-conversation.json").path, harbor.appendingPathComponent("harbor-conversation-fixed.json").path, "ScrollView"),
        ] {
            let compare = await TraceSvc.capture(["compare", slow, fixed])
            #expect(compare.status == 0)
            let row = try #require(compare.output.split(separator: "\n").first { $0.contains("\(view) (SwiftUI") })
            #expect(row.contains("more frames drawn: +"), "\(row)")
            let check = await TraceSvc.capture(["check", fixed, "--baseline", slow])
            #expect(check.status == 0 && check.output.contains("within budget") && !check.output.contains("FAIL"), "\(check.output)")
            // The other way round fewer frames are drawn: the views that follow them are not faster either.
            let back = await TraceSvc.capture(["check", slow, "--baseline", fixed])
            #expect(back.status == 0 && !back.output.contains(view), "\(back.output)")
        }
    }

    /// Times are typed as budget files and the browser take them: "1s", "1 s", "1000 ms" and
    /// 1000000000 (ns) are the same time; anything else is refused before a trace is read.
    @Test func rangeOptionsTakeTheDurationsBudgetsTake() async throws {
        let before = Golden.sample("landmarks-favorites-slow"), after = Golden.sample("landmarks-favorites-fixed")
        let inNanoseconds = await TraceSvc.capture(["compare", before, after, "--a-start", "1000000000", "--b-end", "2500000000", "--top", "3"])
        #expect(inNanoseconds.status == 0)
        for (start, end) in [("1s", "2.5s"), ("1 s", "2.5 s"), ("1000 ms", "2500ms")] {
            let typed = await TraceSvc.capture(["compare", before, after, "--a-start", start, "--b-end", end, "--top", "3"])
            #expect(typed.status == 0 && typed.output == inNanoseconds.output, "--a-start \(start) --b-end \(end)")
        }
        let inspected = await TraceSvc.capture(["inspect", before, "--start", "1000000000", "--end", "1500000000", "--top", "3"])
        let typed = await TraceSvc.capture(["inspect", before, "--start", "1 s", "--end", "1.5 s", "--top", "3"])
        #expect(typed.status == 0 && typed.output == inspected.output && inspected.output.contains("Showing 1.000 s – 1.500 s"))
        let wrong = await TraceSvc.capture(["compare", before, after, "--a-start", "1 parsec"])
        #expect(wrong.status == 2 && wrong.error.contains("--a-start") && wrong.error.contains("1 parsec"), "\(wrong.error)")
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

    /// What a CI job reads: a Markdown report like compare's, annotations that point at the budget
    /// rule's line, a hitch named by its recorded start and length, and one line when the server
    /// to upload to is not there.
    @Test func checkReportsWhatACIJobNeeds() async throws {
        let folder = try Folder()
        let budget = try folder.file("budget.json", Self.budget)
        let slow = Golden.sample("landmarks-favorites-slow"), fixed = Golden.sample("landmarks-favorites-fixed")
        let markdown = try await Golden.run(["check", slow, "--budget", budget, "--baseline", fixed, "--format", "markdown"], pinnedAs: "check-favorites-slow-markdown", folder: folder)
        #expect(markdown.status == 1 && markdown.output.hasPrefix("### tracesvc check: ❌ landmarks-favorites-slow"))

        // Each budget rule's annotation names the file and the line its object starts on (Self.budget:
        // the rules are on lines 2-5); the baseline rules come from no line.
        let github = await TraceSvc.capture(["check", slow, "--budget", budget, "--baseline", fixed, "--format", "github"])
        let errors = github.output.split(separator: "\n").filter { $0.hasPrefix("::error") }
        #expect(errors.contains { $0.hasPrefix("::error file=\(budget),line=4,title=tracesvc check%3A fan-out of LandmarkListItemView") })
        #expect(errors.contains { $0.hasPrefix("::error file=\(budget),line=5,title=tracesvc check%3A findings (collection-fan-out)") })
        #expect(errors.contains { $0.hasPrefix("::error title=tracesvc check%3A baseline%3A view body count::") })

        // The hitch's own interval (1.008 s, 125 ms), not the frames around it the CPU range reads (1.000 s).
        let hitches = try folder.file("hitches.json", #"{"version": 1, "rules": [{"metric": "findings", "kinds": ["hitch-explained"], "max": 0}]}"#)
        let hitch = await TraceSvc.capture(["check", Golden.sample("landmarks-concurrency-slow"), "--budget", hitches])
        #expect(hitch.status == 1 && hitch.output.hasSuffix("at 1.008 s, 125 ms\n"), "\(hitch.output)")
        let json = await TraceSvc.capture(["check", Golden.sample("landmarks-concurrency-slow"), "--budget", hitches, "--format", "json"])
        #expect(json.output.contains(#""start" : 1008333325"#) && json.output.contains(#""duration" : 124999995"#))

        // Nothing listens on port 9 of this machine: one line on standard error, the verdict stands.
        let offline = await TraceSvc.capture(["check", slow, "--budget", budget, "--server", "http://127.0.0.1:9"])
        let errorLines = offline.error.split(separator: "\n")
        #expect(offline.status == 1 && errorLines.count == 1 && errorLines[0].hasPrefix("tracesvc check: could not upload to http://127.0.0.1:9: uploading "), "\(offline.error)")
        #expect(!offline.error.contains("NSError") && !offline.error.contains("UserInfo"))

        // The help text's paragraphs wrap at words within 80 columns (the usage line is ArgumentParser's):
        // a line of a paragraph breaks only where the next word would not fit.
        let help = await TraceSvc.capture(["check", "--help"])
        let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("USAGE:") }
        #expect(lines.count > 10 && lines.allSatisfy { $0.count <= 80 })
        // (ArgumentParser fills a line to 79 characters.)
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty && !next.hasPrefix(" ") && !line.hasPrefix(" ") {
            let word = next.split(separator: " ").first ?? ""
            #expect(line.count + 1 + word.count >= 80, "\"\(line)\" breaks before \"\(word)\", which fits")
        }
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

    /// Every command's help wraps its paragraphs at words, not at the source's hard line breaks
    /// (issue 41: upload's broke after "branch, commit," with room for more on the line).
    @Test func everyCommandsHelpWrapsItsParagraphsAtWords() async throws {
        for command in ["serve", "inspect", "compare", "flamegraph", "check", "upload", "generate", "export-xctrace", "migrate", "mcp"] {
            let help = await TraceSvc.capture([command, "--help"])
            #expect(help.status == 0, "\(command): \(help.error)")
            let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("USAGE:") }
            for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty && !next.hasPrefix(" ") && !line.hasPrefix(" ")
                && !line.hasPrefix("tracesvc ") && !next.hasPrefix("tracesvc ") && !line.hasSuffix(":") {
                let word = next.split(separator: " ").first ?? ""
                #expect(line.count + 1 + word.count >= 80, "\(command) --help: \"\(line)\" breaks before \"\(word)\", which fits")
            }
        }
    }

    @Test func helpIsOnStandardOutputAndExitsZero() async throws {
        let help = try await Golden.run(["--help"], pinnedAs: "help")
        #expect(help.status == 0 && help.error.isEmpty)
        #expect(!help.output.contains("bench"), "the benchmarks are tracesvc-bench's")
        let unknown = try await Golden.run(["bench-timeline"], pinnedAs: "unknown-command")
        #expect(unknown.status == 2)
    }
}
