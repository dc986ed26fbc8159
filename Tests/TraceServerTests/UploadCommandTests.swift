import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `tracesvc upload` and `tracesvc check --baseline-tags --upload` (issue 29, points 2 and 6),
/// run as CI runs them: the built binary against a real `tracesvc serve`.
@Suite struct UploadCommandTests {
    typealias Folder = CheckTests.Folder

    static func getJSON(_ server: LiveServerTests.Server, _ path: String) async throws -> [String: Any] {
        let (data, response) = try await URLSession.shared.data(from: URL(string: path, relativeTo: server.base)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path): \(String(decoding: data, as: UTF8.self))")
        return try CheckTests.json(String(decoding: data, as: UTF8.self))
    }

    /// A live server on a scratch data directory, a folder for the trace files, and the server's
    /// address as the commands take it.
    struct LiveUpload {
        let scratch: Scratch
        let server: LiveServerTests.Server
        let folder: Folder
        var root: String { server.base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }

        init(arguments: [String] = []) throws {
            folder = try Folder()
            let scratch = try Scratch()
            do {
                server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: arguments)
            } catch {
                scratch.remove()
                throw error
            }
            self.scratch = scratch
        }

        func end() {
            _ = server.stop()
            scratch.remove()
        }
    }

    @Test func uploadPrintsTheLinkAndARetryStoresNothingTwice() async throws {
        let live = try LiveUpload()
        defer { live.end() }
        let file = try live.folder.file("recipes-scroll.json", recipesTrace(build: 1, bodyNs: 300_000))

        let first = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "branch=main", "--tag", "scenario=scroll", "--tag", "nightly"])
        #expect(first.status == 0, "\(first.stderr)")
        let link = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix("\(live.root)/traces/") && !link.contains("\n"), "one line, the trace's link: \(first.stdout)")
        let (_, opened) = try await URLSession.shared.data(from: try #require(URL(string: link)))
        #expect((opened as? HTTPURLResponse)?.statusCode == 200)

        // The same file again (a retried CI step): the same trace, not a second one.
        let again = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "branch=main", "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let answer = try CheckTests.json(again.stdout)
        #expect(answer["isNew"] as? Bool == false)
        #expect(link.contains(try #require(answer["id"] as? String)))
        #expect(answer["tags"] as? [String] == ["branch:main", "nightly", "scenario:scroll"])
        let listed = try await Self.getJSON(live.server, "/api/traces?tag=scenario:scroll&limit=10")
        #expect(listed["total"] as? Int == 1)
    }

    @Test func everyFailureIsOneLineAndANonZeroExit() async throws {
        let live = try LiveUpload(arguments: ["--write-token", "s3cret", "--max-upload-mb", "1"])
        defer { live.end() }
        let good = try live.folder.file("good.json", recipesTrace(build: 2, bodyNs: 300_000))
        func expectOneLine(_ run: CheckTests.Run, status: Int32, saying text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(run.status == status, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stderr.contains(text), "\(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1 || status == 2,
                    "one line: \(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
        }

        expectOneLine(try CheckTests.tracesvc(["upload", good, "--server", "http://127.0.0.1:9", "--retries", "0"]),
                      status: 1, saying: "cannot reach http://127.0.0.1:9 (connection refused)")
        expectOneLine(try CheckTests.tracesvc(["upload", good, "--server", live.root]),
                      status: 1, saying: "needs its write token (HTTP 401)")
        let big = live.folder.path("big.json")
        try Data(repeating: UInt8(ascii: " "), count: 1_200_000).write(to: URL(fileURLWithPath: big))
        expectOneLine(try CheckTests.tracesvc(["upload", big, "--server", live.root], environment: ["TRACESVC_TOKEN": "s3cret"]),
                      status: 1, saying: "too large (HTTP 413)")
        let broken = try live.folder.file("broken.json", "{\"format\": \"tracesvc-trace\", \"version\": 1,\n  \"metadata\": 12\n}")
        expectOneLine(try CheckTests.tracesvc(["upload", broken, "--server", live.root], environment: ["TRACESVC_TOKEN": "s3cret"]),
                      status: 1, saying: "cannot read it (HTTP 422) at broken.json:")
        expectOneLine(try CheckTests.tracesvc(["upload", good, "--server", live.root, "--tag", "Branch=main"]),
                      status: 2, saying: "Branch")

        // The token from a file: stored, and nothing of the refused uploads was.
        let tokenFile = try live.folder.file("token", "s3cret\n")
        let stored = try CheckTests.tracesvc(["upload", good, "--server", live.root, "--token-file", tokenFile])
        #expect(stored.status == 0, "\(stored.stderr)")
        let listed = try await Self.getJSON(live.server, "/api/traces?limit=10&q=good")
        #expect(listed["total"] as? Int == 1)
        #expect((try await Self.getJSON(live.server, "/api/traces?limit=10&q=broken"))["total"] as? Int == 0)
    }

    /// Issue 41, item 3: no tag is lost or moved without a word. A sample's bytes store no tag
    /// and say so; the same file with another build is refused unless --retag, and says the move.
    @Test func tagsAreNeverLostOrMovedSilently() async throws {
        let live = try LiveUpload(arguments: ["--write-token", "s3cret"])
        defer { live.end() }
        let token = ["TRACESVC_TOKEN": "s3cret"]

        // A sample's bytes: exit 1, the tags named as not stored and why, in words and in JSON.
        let sample = live.scratch.samples.appendingPathComponent("sample-app.json").path
        let onSample = try CheckTests.tracesvc(["upload", sample, "--server", live.root, "--tag", "scenario=lm", "--tag", "build=1", "--format", "json"], environment: token)
        #expect(onSample.status == 1, "\(onSample.stdout)\(onSample.stderr)")
        #expect(onSample.stderr.contains("did not store the tags build:1, scenario:lm (HTTP 403)") && onSample.stderr.contains("is the sample 'sample-app'"), "\(onSample.stderr)")
        let sampleOutcome = try #require(try CheckTests.json(onSample.stdout)["tagOutcome"] as? [String: Any])
        #expect(sampleOutcome["notStored"] as? [String] == ["build:1", "scenario:lm"])
        #expect(sampleOutcome["stored"] as? [String] == [])
        // Without tags a sample's bytes are fine: they open the sample.
        #expect(try CheckTests.tracesvc(["upload", sample, "--server", live.root], environment: token).status == 0)

        let file = try live.folder.file("recipes.json", recipesTrace(build: 1, bodyNs: 300_000))
        let first = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "scenario=lm", "--tag", "build=1"], environment: token)
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        let link = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let path: Substring = link.split(separator: "/").last ?? ""
        let id = String(path.prefix { $0 != "?" })

        // The same bytes as build 2: refused, the trace keeps build 1, and the answer names the move.
        let moved = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "build=2", "--format", "json"], environment: token)
        #expect(moved.status == 1)
        #expect(moved.stderr.contains("did not store the tags build:2 (HTTP 409)") && moved.stderr.contains("build:1 → build:2"), "\(moved.stderr)")
        let conflict = try #require(try CheckTests.json(moved.stdout)["tagOutcome"] as? [String: Any])
        #expect((conflict["conflicts"] as? [[String: String]]) == [["from": "build:1", "to": "build:2"]])
        #expect((try await Self.getJSON(live.server, "/api/traces/\(id)"))["tags"] as? [String] == ["build:1", "scenario:lm"])

        // --retag moves it, and says so on standard error and in JSON.
        let retagged = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "build=2", "--tag", "nightly", "--retag", "--format", "json"], environment: token)
        #expect(retagged.status == 0, "\(retagged.stderr)")
        #expect(retagged.stderr.contains("stored before as trace \(id)") && retagged.stderr.contains("moved (--retag): build:1 → build:2"), "\(retagged.stderr)")
        let outcome = try #require(try CheckTests.json(retagged.stdout)["tagOutcome"] as? [String: Any])
        #expect(outcome["stored"] as? [String] == ["build:2", "nightly"])
        #expect((outcome["moved"] as? [[String: String]]) == [["from": "build:1", "to": "build:2"]])
        #expect((try await Self.getJSON(live.server, "/api/traces/\(id)"))["tags"] as? [String] == ["build:2", "nightly", "scenario:lm"])

        // The same file with the tags it has: a retry, fine and quiet about moves.
        let retry = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "build=2"], environment: token)
        #expect(retry.status == 0 && retry.stderr.contains("tags stored: build:2") && !retry.stderr.contains("moved"), "\(retry.stderr)")
    }

    /// `upload --token`, and a wrong token told apart from none.
    @Test func aWrongTokenIsNotAMissingOne() async throws {
        let live = try LiveUpload(arguments: ["--write-token", "s3cret"])
        defer { live.end() }
        let file = try live.folder.file("recipes.json", recipesTrace(build: 3, bodyNs: 300_000))
        let none = try CheckTests.tracesvc(["upload", file, "--server", live.root])
        #expect(none.status == 1 && none.stderr.contains("needs its write token (HTTP 401): give --token TOKEN"), "\(none.stderr)")
        let wrong = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--token", "guess"])
        #expect(wrong.status == 1 && wrong.stderr.contains("refused the write token given (HTTP 401)"), "\(wrong.stderr)")
        let stale = try CheckTests.tracesvc(["upload", file, "--server", live.root], environment: ["TRACESVC_TOKEN": "old"])
        #expect(stale.status == 1 && stale.stderr.contains("refused the write token given"), "\(stale.stderr)")
        let both = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--token", "s3cret", "--token-file", file])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let right = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--token", "s3cret"])
        #expect(right.status == 0, "\(right.stderr)")
    }

    @Test func checkTakesTheLatestTaggedBaselineAndRecordsItsVerdict() async throws {
        let live = try LiveUpload()
        defer { live.end() }
        // main's history: an older fixed trace, then the newest one, then another scenario's.
        let older = try live.folder.file("main-1.json", recipesTrace(build: 1, bodyNs: 300_000))
        let newest = try live.folder.file("main-2.json", recipesTrace(build: 2, bodyNs: 300_000))
        let other = try live.folder.file("open.json", recipesTrace(build: 3, bodyNs: 300_000))
        for (file, scenario) in [(older, "scroll"), (newest, "scroll"), (other, "open")] {
            let run = try CheckTests.tracesvc(["upload", file, "--server", live.root, "--tag", "branch=main", "--tag", "scenario=\(scenario)", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let newestID = try #require(try CheckTests.json(CheckTests.tracesvc(["upload", newest, "--server", live.root, "--format", "json"]).stdout)["id"] as? String)

        // A pull request's trace whose rows got five times slower: the rank test calls it a regression against main-2.
        let checked = try live.folder.file("pr.json", recipesTrace(build: 4, bodyNs: 1_500_000))
        let budget = try live.folder.file("budget.json", #"{"version": 1, "rules": [{"metric": "hang-count", "max": 0}]}"#)
        let run = try CheckTests.tracesvc([
            "check", checked, "--budget", budget, "--server", live.root, "--baseline-tags", "branch=main,scenario=scroll",
            "--upload", "--tag", "branch=pr-7", "--tag", "commit=abc123", "--format", "json",
        ])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let document = try CheckTests.json(run.stdout)
        let links = try #require(document["links"] as? [String: String])
        #expect(links["baseline"]?.contains(newestID) == true, "the newest trace with the tags: \(links)")
        #expect(try CheckTests.results(document).contains { ($0["metric"] as? String)?.hasPrefix("baseline-") == true && $0["passed"] as? Bool == false })
        let checkedID = try #require(links["trace"].flatMap(URL.init(string:))?.lastPathComponent)

        // Uploaded with the baseline's scenario and its own branch, and its verdict recorded.
        let info = try await Self.getJSON(live.server, "/api/traces/\(checkedID)")
        #expect(info["tags"] as? [String] == ["branch:pr-7", "commit:abc123", "scenario:scroll"])
        let history = try await Self.getJSON(live.server, "/api/history?tag=scenario:scroll&metric=update-count")
        let points = try #require(history["builds"] as? [[String: Any]]).flatMap { $0["traces"] as? [[String: Any]] ?? [] }
        let verdict = try #require(points.first { $0["id"] as? String == checkedID }?["check"] as? [String: Any])
        #expect(verdict["passed"] as? Bool == false && verdict["baselineId"] as? String == newestID)
        #expect(points.filter { !($0["check"] is NSNull) && $0["check"] != nil }.count == 1, "only the checked trace has a verdict")

        // No trace with the tags yet: checked without a baseline, and said so.
        let lonely = try CheckTests.tracesvc(["check", checked, "--budget", budget, "--server", live.root, "--baseline-tags", "branch=release"])
        #expect(lonely.status == 0, "\(lonely.stdout)\(lonely.stderr)")
        #expect(lonely.stderr.contains("no trace on \(live.root) has the tags branch=release"))
    }
}
