import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TraceServer

/// An `xctrace export` of two runs of an app other than Landmarks: potential hangs per run, one
/// `<node>` each, the run in its xpath (as `--xpath '/trace-toc/run/data/table[@schema=…]'` writes it).
func twoRunExport(app: String = "Orchard") -> String {
    let schema = "<schema name=\"potential-hangs\"><col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col>"
        + "<col><mnemonic>duration</mnemonic><name>Duration</name><engineering-type>duration</engineering-type></col>"
        + "<col><mnemonic>hang-type</mnemonic><name>Hang Type</name><engineering-type>hang-type</engineering-type></col>"
        + "<col><mnemonic>thread</mnemonic><name>Thread</name><engineering-type>thread</engineering-type></col></schema>"
    func node(run: Int, pid: Int, hangs: [(start: Int, duration: Int, kind: String)]) -> String {
        var rows = ""
        for (index, hang) in hangs.enumerated() {
            let thread = index == 0
                ? "<thread id=\"4\" fmt=\"Main Thread (0x5100) (\(app), pid: \(pid))\"><tid id=\"5\" fmt=\"0x5100\">20736</tid><process id=\"6\" fmt=\"\(app) (\(pid))\"><pid id=\"7\" fmt=\"\(pid)\">\(pid)</pid></process></thread>"
                : "<thread ref=\"4\"/>"
            let id = 10 * (index + 1)
            rows += "<row><start-time id=\"\(id)\" fmt=\"\">\(hang.start)</start-time><duration id=\"\(id + 1)\" fmt=\"\">\(hang.duration)</duration>"
                + "<hang-type id=\"\(id + 2)\" fmt=\"\(hang.kind)\">\(hang.kind)</hang-type>\(thread)</row>\n"
        }
        return "<node xpath='//trace-toc[1]/run[\(run)]/data[1]/table[4]'>\(schema)\n\(rows)</node>\n"
    }
    return "<?xml version=\"1.0\"?>\n<trace-query-result>\n"
        + node(run: 1, pid: 801, hangs: [(1_000_000_000, 300_000_000, "Hang")])
        + node(run: 2, pid: 802, hangs: [(500_000_000, 150_000_000, "Microhang"), (2_000_000_000, 900_000_000, "Hang")])
        + "</trace-query-result>\n"
}

@Suite struct RunSelectionTests {
    private func upload(_ client: some TestClientProtocol, query: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/traces?name=orchard.xml\(query)", method: .post, headers: [.contentType: "application/xml"],
            body: ByteBuffer(string: twoRunExport())
        )
    }

    private func hangs(_ response: TestResponse) throws -> Int? {
        let summary = try #require(try response.json()["summary"] as? [String: Any])
        return (summary["counts"] as? [String: Any])?["hangs"] as? Int
    }

    @Test func uploadReadsRunOneByDefaultAndAnotherRunWithRunN() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let secondID = try await scratch.withServer { client in
            let first = try await upload(client, query: "")
            #expect(first.status == .created, "\(first.text)")
            #expect(try hangs(first) == 1)
            let summary = try #require(try first.json()["summary"] as? [String: Any])
            let notes = try #require(summary["importNotes"] as? [String])
            #expect(notes.contains { $0.contains("runs (1, 2)") && $0.contains("?run=N") })
            // An xctrace export has no refresh rate: null, not an invented 60.
            #expect(summary["refreshRate"] is NSNull)
            #expect(summary["cpuWeightUnit"] as? String == "ns")
            // The runs, for the browser's run picker ("Run 2 of 2").
            #expect(summary["runs"] as? [Int] == [1, 2])
            #expect(summary["run"] as? Int == 1)

            let second = try await upload(client, query: "&run=2")
            #expect(second.status == .created, "another run of the same file is another trace: \(second.text)")
            #expect(try hangs(second) == 2, "run 2 alone, never added to run 1")
            // The hangs lane counts its events red, as it draws them (it said `red: 0`).
            let secondSummary = try #require(try second.json()["summary"] as? [String: Any])
            let hangLane = try #require((secondSummary["lanes"] as? [[String: Any]])?.first { $0["id"] as? String == "hangs" })
            #expect(hangLane["count"] as? Int == 2 && hangLane["red"] as? Int == 2 && hangLane["orange"] as? Int == 0)
            #expect(secondSummary["runs"] as? [Int] == [1, 2] && secondSummary["run"] as? Int == 2)
            let firstTrace = try #require(try first.json()["trace"] as? [String: Any])
            let secondTrace = try #require(try second.json()["trace"] as? [String: Any])
            #expect(firstTrace["id"] as? String != secondTrace["id"] as? String)
            #expect(firstTrace["run"] is NSNull && secondTrace["run"] as? Int == 2)
            // ?run=1 is the default: the same trace as no run at all.
            let again = try await upload(client, query: "&run=1")
            #expect(again.status == .ok)
            #expect((try again.json()["trace"] as? [String: Any])?["id"] as? String == firstTrace["id"] as? String)
            return try #require(secondTrace["id"] as? String)
        }
        // After a restart the stored file is read again: still run 2.
        try await scratch.withServer { client in
            let info = try await client.get("/api/traces/\(secondID)").json()
            #expect((info["counts"] as? [String: Any])?["hangs"] as? Int == 2)
        }
    }

    @Test func aRunTheExportDoesNotHoldIs422AndABadRunIs400() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let missing = try await upload(client, query: "&run=3")
            try expectError(missing, .unprocessableContent)
            let detail = try #require(try missing.json()["detail"] as? String)
            #expect(detail.contains("no tables of run 3") && detail.contains("runs 1, 2"), "\(detail)")
            for bad in ["0", "two", "-1"] {
                try expectError(try await upload(client, query: "&run=\(bad)"), .badRequest)
            }
            // A tracesvc trace is one recording.
            let native = try await client.execute(
                uri: "/api/traces?name=one.json&run=2", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: nativeTrace())
            )
            try expectError(native, .unprocessableContent)
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.count == 1, "only the sample: nothing of the refused uploads is stored")
        }
    }

    /// `tracesvc inspect --run N`, and hang/hitch lines without empty details (Fixtures/xctrace/two-runs.xml:
    /// run 1 has a Microhang and a hitch without a narrative, run 2 two hangs and two hitches).
    @Test func inspectReadsTheRunAskedForAndPrintsNoEmptyDetails() throws {
        let file = LiveServerTests.packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures/xctrace/two-runs.xml")
        func inspect(_ arguments: [String], file: URL = file) throws -> (status: Int32, out: String, err: String) {
            let process = Process()
            process.executableURL = LiveServerTests.packageRoot.appendingPathComponent(".build/debug/tracesvc")
            process.arguments = ["inspect", file.path] + arguments
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output, errors)
        }
        let first = try inspect([])
        #expect(first.status == 0 && first.out.contains("Hangs: 1,") && first.out.contains("Hitches: 1,"), "\(first.out)")
        #expect(first.out.contains("Microhang on Main Thread\n"), "\(first.out)")
        #expect(first.out.contains("Hitch\n"), "a hitch without a narrative ends at its kind: \(first.out)")
        #expect(!first.out.contains("Hitch: \n") && !first.out.contains("Microhang: ") && !first.out.contains("[Main Thread]"))
        #expect(!first.out.contains(" Hz"), "no refresh rate invented")
        let second = try inspect(["--run", "2"])
        #expect(second.status == 0 && second.out.contains("Hangs: 2,") && second.out.contains("Hitches: 2,"), "\(second.out)")
        #expect(second.out.contains("Hitch: Potentially expensive render"), "\(second.out)")
        // A CPU Profiler export: inspect counts cycles, not time.
        let cycles = LiveServerTests.packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures/xctrace/cpu-profile.xml")
        let cycleRun = try inspect(["--format", "json"], file: cycles)
        let cpu = try #require((try JSONSerialization.jsonObject(with: Data(cycleRun.out.utf8)) as? [String: Any])?["cpu"] as? [String: Any])
        #expect(cpu["unit"] as? String == "cycles" && cpu["samples"] as? Int == 8)
        #expect(try inspect([], file: cycles).out.contains("CPU cycles (CPU Profiler)"))
        let missing = try inspect(["--run", "3"])
        #expect(missing.status != 0 && missing.err.contains("no tables of run 3"), "\(missing.err)")
    }
}
