import Foundation
import Testing
@testable import TraceModel
@testable import TraceServer

/// The history's hand-written builds (issue 40: a 2,000-trace history's p99) are the bytes
/// JSONEncoder writes for the same answer, whatever its names, tags and checks hold.
@Suite struct HistoryJSONTests {
    @Test func theHandWrittenBuildsAreTheEncodersBytes() throws {
        // Names and tags of another app, with what JSON escapes: quotes, backslashes, control
        // characters, a DEL, non-ASCII; builds with and without build and commit tags; checks with
        // and without a baseline.
        let names = ["pantry \"cold\" start.json", "back\\slash\ttab\nline\u{7F}.json", "Küche-🍳.json", "plain.json", "a/b.json"]
        let traces = (0..<12).map { index in
            HistoryTrace(
                id: String(format: "%032x", index + 1), name: names[index % names.count], orderKey: Int64(index),
                uploadedAt: "2026-12-06T09:0\(index % 10):00.000Z",
                tags: index % 4 == 3 ? ["scenario:pantry"] : ["build:\(index / 2)", "commit:c\(index)\u{1}", "scenario:pantry", "note:\"x\""],
                value: index < 6 ? 1_200_000 + Int64(index) * 1_000 : 4_800_000 - Int64(index),
                check: index % 3 == 0 ? nil : HistoryCheck(passed: index % 2 == 0, failedRules: index % 2, rules: 9,
                                                          baselineId: index % 3 == 1 ? nil : "base\u{2028}line", summary: "rule \"time\"\n failed")
            )
        }
        let series = HistorySeries(metric: .bodyTimeTotal, traces: traces)
        let answer = HistoryAnswer(
            metric: .init(.bodyTimeTotal), tags: ["scenario:pantry"], view: "ShelfRow", module: "Pantry", finding: nil, order: "upload",
            matched: 12, shown: 12, pending: 0, window: series.window, builds: series.builds, changePoints: series.changePoints,
            firstBad: series.firstBad, suspect: series.suspect, noise: series.noise, verdict: series.verdict, findings: [],
            views: [.init(module: "Pantry", view: "ShelfRow", totalNs: 1)], metrics: HistoryMetric.allCases.map(HistoryAnswer.MetricInfo.init),
            notes: ["a note"]
        )
        #expect(series.builds.count > 6 && series.builds.contains { $0.build == nil } && !series.changePoints.isEmpty)
        let handWritten = try answer.json(), encoded = try encodeJSON(answer)
        #expect(handWritten == encoded, "\(String(decoding: handWritten.prefix(600), as: UTF8.self))\n\(String(decoding: encoded.prefix(600), as: UTF8.self))")
        // And an empty history.
        var empty = answer
        empty.builds = []
        #expect(try empty.json() == encodeJSON(empty))
    }
}
