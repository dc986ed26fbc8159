import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TraceFormats
import TraceModel
import TraceSamples

/// Runs the built `tracesvc check` (as CI would) on the sample traces and on a trace of another app.
@Suite struct CheckTests {
    static let samples = LiveServerTests.packageRoot.appendingPathComponent("SampleTraces")

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A scratch folder for budgets, outputs and generated traces.
    final class Folder {
        let url = testFilesRoot.appendingPathComponent("check-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        func file(_ name: String, _ text: String) throws -> String {
            let path = url.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func read(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }
    }

    static func sample(_ name: String) -> String { samples.appendingPathComponent("\(name).json").path }

    /// Runs the binary with output in files (a pipe could fill up and stall it).
    static func tracesvc(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let folder = try Folder()
        let process = Process()
        process.executableURL = LiveServerTests.packageRoot.appendingPathComponent(".build/debug/tracesvc")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["GITHUB_STEP_SUMMARY"] = nil
        env["TRACESVC_TOKEN"] = nil
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = try FileHandle.creatingForWriting(at: URL(fileURLWithPath: folder.path("out")))
        process.standardError = try FileHandle.creatingForWriting(at: URL(fileURLWithPath: folder.path("err")))
        try process.run()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: try folder.read("out"), stderr: try folder.read("err"))
    }

    static let noRedRows = """
        {"version": 1, "window": {"from": "1s"},
         "rules": [{"name": "No red LandmarkListItemView updates", "metric": "red-updates", "views": "LandmarkListItemView", "max": 0}]}
        """

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func results(_ document: [String: Any]) throws -> [[String: Any]] {
        try #require(document["results"] as? [[String: Any]])
    }

    // MARK: The samples

    @Test func slowScrollFailsNoRedListRowsAndTheFixedScrollPasses() throws {
        let folder = try Folder()
        let budget = try folder.file("budget.json", Self.noRedRows)
        let slow = try Self.tracesvc(["check", Self.sample("landmarks-scroll-slow"), "--budget", budget])
        #expect(slow.status == 1, "\(slow.stdout)\(slow.stderr)")
        #expect(slow.stdout.contains("FAIL  No red LandmarkListItemView updates: 115 (limit 0)"), "\(slow.stdout)")
        #expect(slow.stdout.contains("LandmarkListItemView (Landmarks): 115; updates "))
        let fixed = try Self.tracesvc(["check", Self.sample("landmarks-scroll-fixed"), "--budget", budget])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(fixed.stdout.contains("PASS  No red LandmarkListItemView updates: 0 (limit 0)"))

        // Without the window, launch counts: both versions decode the first two rows' images there.
        let withLaunch = try folder.file("launch.json", Self.noRedRows.replacingOccurrences(of: #""window": {"from": "1s"},"#, with: ""))
        let fixedWithLaunch = try Self.tracesvc(["check", Self.sample("landmarks-scroll-fixed"), "--budget", withLaunch])
        #expect(fixedWithLaunch.status == 1 && fixedWithLaunch.stdout.contains(": 2 (limit 0)"), "\(fixedWithLaunch.stdout)")
    }

    @Test func favoritesSlowRegressedAgainstFixedAndNotTheOtherWayRound() throws {
        let slow = try Self.tracesvc([
            "check", Self.sample("landmarks-favorites-slow"), "--baseline", Self.sample("landmarks-favorites-fixed"), "--format", "json",
        ])
        #expect(slow.status == 1, "\(slow.stdout)\(slow.stderr)")
        let results = try Self.results(try Self.json(slow.stdout))
        let count = try #require(results.first { $0["metric"] as? String == "baseline-body-count" })
        #expect(count["passed"] as? Bool == false && count["unit"] as? String == "percent")
        let row = try #require((count["offenders"] as? [[String: Any]])?.first)
        #expect(row["view"] as? String == "LandmarkListItemView" && row["module"] as? String == "Landmarks")
        // Launch (12 rows) plus two taps: 12 rows each before the fix, one each after.
        #expect(row["countBefore"] as? Int == 14 && row["countAfter"] as? Int == 36)
        #expect(row["measured"] as? Int == 157)
        #expect((row["updates"] as? [Int])?.count == 20 && row["updateCount"] as? Int == 36)

        let fixed = try Self.tracesvc(["check", Self.sample("landmarks-favorites-fixed"), "--baseline", Self.sample("landmarks-favorites-slow")])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(fixed.stdout.contains("PASS  baseline: view body count") && fixed.stdout.contains("PASS  baseline: view body time"))
    }

    @Test func aCollectionFanOutFindingFailsTheSlowFavoritesOnly() throws {
        let folder = try Folder()
        let budget = try folder.file("budget.json", """
            {"version": 1, "rules": [{"name": "No shared-collection fan-out", "metric": "findings", "kinds": "collection-fan-out", "views": "Landmark*", "max": 0}]}
            """)
        let slow = try Self.tracesvc(["check", Self.sample("landmarks-favorites-slow"), "--budget", budget, "--format", "json"])
        #expect(slow.status == 1, "\(slow.stdout)\(slow.stderr)")
        let result = try #require(Self.results(try Self.json(slow.stdout)).first)
        #expect(result["measured"] as? Int == 1)
        let finding = try #require((result["offenders"] as? [[String: Any]])?.first)
        #expect((finding["title"] as? String)?.hasPrefix("collection-fan-out, ") == true)
        #expect(finding["view"] as? String == "LandmarkListItemView" && finding["module"] as? String == "Landmarks")
        #expect(finding["updateCount"] as? Int == 24, "two changes, twelve rows each")
        let fixed = try Self.tracesvc(["check", Self.sample("landmarks-favorites-fixed"), "--budget", budget])
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
    }

    @Test func aTraceOfAnotherAppWithAGlobRule() throws {
        let folder = try Folder()
        let path = folder.path("feed.json")
        let generated = try Self.tracesvc(["generate", "--updates", "3000", "--seed", "7", "--output", path])
        #expect(generated.status == 0, "\(generated.stderr)")
        // Counted independently of the budget code: red updates of FeedView0...FeedView24 (not FeedItemView).
        let trace = try TraceImporter.importTrace(at: URL(fileURLWithPath: path), displayName: "feed.json")
        let views = trace.summary(in: nil, filter: .all).processes.flatMap(\.modules).flatMap(\.views)
        let feedViews = views.filter { $0.name.hasPrefix("FeedView") && $0.name.dropFirst(8).allSatisfy(\.isNumber) }
        let red = feedViews.reduce(0) { $0 + $1.stats.red }
        #expect(red > 1, "the seed gives red FeedViews to find")

        let budget = try folder.file("budget.json", """
            {"version": 1, "rules": [
              {"name": "feed views", "metric": "red-updates", "views": "FeedView[0-9]*", "max": \(red - 1)},
              {"name": "feed views, loose", "metric": "red-updates", "views": "FeedView[0-9]*", "max": \(red)},
              {"name": "landmarks", "metric": "red-updates", "views": "LandmarkListItemView", "max": 0}
            ]}
            """)
        let run = try Self.tracesvc(["check", path, "--budget", budget, "--format", "json"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let results = try Self.results(try Self.json(run.stdout))
        #expect(results.map { $0["passed"] as? Bool } == [false, true, true])
        #expect(results.map { $0["measured"] as? Int } == [red, red, 0])
        let offenders = try #require(results[0]["offenders"] as? [[String: Any]])
        #expect(Set(offenders.compactMap { $0["view"] as? String }) == Set(feedViews.filter { $0.stats.red > 0 }.map(\.name)))
        #expect(results[2]["notes"] as? [String] == [#"no update matches "LandmarkListItemView""#])
    }

    // MARK: Exit codes

    @Test func usageErrorsAndUnreadableInputExit2WithAClearMessage() throws {
        let folder = try Folder()
        let trace = Self.sample("landmarks-scroll-slow")
        let nothing = try Self.tracesvc(["check", trace])
        #expect(nothing.status == 2 && nothing.stderr.contains("nothing to check: give --budget FILE, --baseline OLD_TRACE (or --baseline-tags), or both"))
        let unknownOption = try Self.tracesvc(["check", trace, "--baseline", trace, "--budgte", "x.json"])
        #expect(unknownOption.status == 2 && unknownOption.stderr.contains("Unknown option '--budgte'. Did you mean '--budget'?"))
        let badFormat = try Self.tracesvc(["check", trace, "--baseline", trace, "--format", "xml"])
        #expect(badFormat.status == 2 && badFormat.stderr.contains("xml"))
        let badServer = try Self.tracesvc(["check", trace, "--baseline", trace, "--server", "localhost:8080"])
        #expect(badServer.status == 2 && badServer.stderr.contains("--server must be an http:// or https:// URL"))

        let missing = try Self.tracesvc(["check", folder.path("missing.json"), "--baseline", trace])
        #expect(missing.status == 2 && missing.stderr.contains("missing.json:1:1: cannot open file"), "\(missing.stderr)")
        let notATrace = try folder.file("notes.txt", "hello")
        let unreadable = try Self.tracesvc(["check", trace, "--baseline", notATrace])
        #expect(unreadable.status == 2 && unreadable.stderr.contains("notes.txt:1:1: not a trace file"), "\(unreadable.stderr)")
        let budget = try folder.file("budget.json", "{\n  \"version\": 1,\n  \"rules\": [{\"metric\": \"red-updates\", \"views\": \"Row[\", \"max\": 0}]\n}\n")
        let badBudget = try Self.tracesvc(["check", trace, "--budget", budget])
        #expect(badBudget.status == 2)
        #expect(badBudget.stderr == "tracesvc check: \(budget):3:48: rules[0].views: bad pattern \"Row[\": the '[' at character 4 is never closed with ']'\n")
        #expect(badBudget.stdout.isEmpty, "no verdict on a budget that could not be read")
    }

    @Test func helpDocumentsTheExitCodes() throws {
        let help = try Self.tracesvc(["check", "--help"])
        #expect(help.status == 0)
        for line in ["0  within budget", "1  over budget or regressed", "2  usage error"] {
            #expect(help.stdout.contains(line), "\(help.stdout)")
        }
    }

    // MARK: Output formats

    private func scrollSlowRun(_ extra: [String], environment: [String: String] = [:], in folder: Folder? = nil) throws -> (Run, Folder) {
        let folder = try folder ?? Folder()
        let budget = try folder.file("budget.json", """
            {"version": 1, "window": {"from": "1s"}, "rules": [
              {"name": "No red <rows> & \\"friends\\"", "metric": "red-updates", "views": "LandmarkListItemView", "max": 0},
              {"metric": "hitch-count", "max": 0},
              {"metric": "hang-count", "max": 0},
              {"metric": "fan-out", "views": "Nothing*", "max": 0}
            ]}
            """)
        let run = try Self.tracesvc(["check", Self.sample("landmarks-scroll-slow"), "--budget", budget] + extra, environment: environment)
        return (run, folder)
    }

    @Test func jsonReportParses() throws {
        let (run, _) = try scrollSlowRun(["--format", "json"])
        #expect(run.status == 1)
        let document = try Self.json(run.stdout)
        #expect(document["passed"] as? Bool == false && document["trace"] as? String == "landmarks-scroll-slow")
        let results = try Self.results(document)
        #expect(results.map { $0["name"] as? String } == [#"No red <rows> & "friends""#, "hitch-count ≤ 0", "hang-count ≤ 0", "fan-out of Nothing* ≤ 0"])
        #expect(results.map { $0["passed"] as? Bool } == [false, false, true, true])
        let hitch = try #require((results[1]["offenders"] as? [[String: Any]])?.first)
        #expect(hitch["start"] is Int && hitch["duration"] as? Int == 8_333_333 && (hitch["updates"] as? [Int])?.isEmpty == false)
    }

    @Test func junitReportHasOneTestCasePerRule() throws {
        let folder = try Folder()
        let (run, _) = try scrollSlowRun(["--format", "junit", "--output", folder.path("check.xml")], in: folder)
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAIL  hitch-count ≤ 0"), "with --output the readable text still goes to standard output")
        let document = try XMLDocument(data: Data(try folder.read("check.xml").utf8))
        let suites = try #require(document.rootElement())
        #expect(suites.name == "testsuites" && suites.attribute(forName: "failures")?.stringValue == "2")
        let cases = try document.nodes(forXPath: "/testsuites/testsuite/testcase").compactMap { $0 as? XMLElement }
        #expect(cases.map { $0.attribute(forName: "name")?.stringValue } == [#"No red <rows> & "friends""#, "hitch-count ≤ 0", "hang-count ≤ 0", "fan-out of Nothing* ≤ 0"])
        let failures = cases.map { $0.elements(forName: "failure").first }
        #expect(failures.map { $0 != nil } == [true, true, false, false])
        #expect(failures[0]?.attribute(forName: "message")?.stringValue == "red-updates: 115 (limit 0)")
        #expect(failures[0]?.stringValue?.hasPrefix("LandmarkListItemView (Landmarks): 115; updates ") == true)
        #expect(cases[3].elements(forName: "system-out").first?.stringValue == #"note: no cause made a view matching "Nothing*" run"#)
    }

    @Test func githubAnnotationsAndJobSummary() throws {
        let folder = try Folder()
        let summary = folder.path("summary.md")
        try Data("earlier step\n".utf8).write(to: URL(fileURLWithPath: summary))
        let (run, _) = try scrollSlowRun(["--format", "github"], environment: ["GITHUB_STEP_SUMMARY": summary], in: folder)
        let budget = folder.path("budget.json")
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let errors = lines.filter { $0.hasPrefix("::error ") }
        #expect(errors.count == 2 && lines.allSatisfy { $0.hasPrefix("::") }, "one command a line: \(run.stdout)")
        // Each annotation points at its rule's line in the budget file.
        #expect(errors[0].hasPrefix("::error file=\(budget),line=2,title=tracesvc check%3A No red <rows> & \"friends\"::115 (limit 0)%0ALandmarkListItemView (Landmarks): 115"))
        #expect(lines.contains { $0.hasPrefix("::warning file=\(budget),line=5,title=tracesvc check%3A fan-out of Nothing* ≤ 0::no cause made") })
        let markdown = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(markdown.hasPrefix("earlier step\n### tracesvc check: ❌ landmarks-scroll-slow"), "appended, not overwritten")
        #expect(markdown.contains("| ❌ | hitch-count ≤ 0 | 12 | 0 |") && markdown.contains("| ✅ | hang-count ≤ 0 | 0 | 0 |"))
    }

    // MARK: --server

    @Test func serverUploadGivesLinksThatOpen() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch)
        defer { _ = server.stop() }
        let folder = try Folder()
        let budget = try folder.file("budget.json", #"{"version": 1, "rules": [{"metric": "hang-count", "max": 0}], "baseline": {"countTolerance": 0.5}}"#)
        let run = try Self.tracesvc([
            "check", Self.sample("landmarks-favorites-slow"), "--budget", budget, "--baseline", Self.sample("landmarks-favorites-fixed"),
            "--format", "json", "--server", server.base.absoluteString, "--token", "secret",
        ])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let document = try Self.json(run.stdout)
        let links = try #require(document["links"] as? [String: String])
        let traceLink = try #require(links["trace"].flatMap(URL.init(string:)))
        let id = traceLink.lastPathComponent
        let (info, _) = try await URLSession.shared.data(from: URL(string: "/api/traces/\(id)", relativeTo: server.base)!)
        #expect((try JSONSerialization.jsonObject(with: info) as? [String: Any])?["name"] as? String == "landmarks-favorites-slow")
        let baselineID = try #require(links["baseline"].flatMap(URL.init(string:))?.lastPathComponent)
        let root = server.base.absoluteString.trimmingSuffix("/")
        #expect(links["trace"] == "\(root)/traces/\(id)?v=3" && links["baseline"] == "\(root)/traces/\(baselineID)?v=3")
        #expect(links["comparison"] == "\(root)/compare/\(baselineID)/\(id)?v=3")

        let regression = try #require(Self.results(document).first { $0["metric"] as? String == "baseline-body-count" })
        let viewLink = try #require((regression["offenders"] as? [[String: Any]])?.first?["link"] as? String)
        #expect(viewLink == "\(links["trace"]!)&p=updates&pv=Landmarks%3ALandmarkListItemView")
        for link in [links["trace"]!, links["comparison"]!, viewLink] {
            let (_, response) = try await URLSession.shared.data(from: try #require(URL(string: link)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(link)")
        }
    }

    @Test func anUnreachableServerStillGivesTheVerdict() throws {
        let run = try Self.tracesvc([
            "check", Self.sample("landmarks-favorites-fixed"), "--baseline", Self.sample("landmarks-favorites-slow"),
            "--server", "http://127.0.0.1:9",
        ])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("could not upload to http://127.0.0.1:9"))
        #expect(run.stdout.contains("within budget") && !run.stdout.contains("Trace: http"))
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
