import Testing
@testable import TraceModel

/// Issue 41: the history's findings over the builds. A hitch or hang finding's id is its time,
/// which no other build shares, so each build's hitches were rows of their own, each "gone" after
/// its one build; they are one row per kind, as compare counts them.
@Suite struct FindingHistoryTests {
    private func mark(_ id: String, _ kind: String, cost: Int64, severity: String = "medium", subject: String = "") -> TraceMeasurements.FindingMark {
        TraceMeasurements.FindingMark(id: id, kind: kind, subject: subject, severity: severity, costNs: cost)
    }

    @Test func aBuildsHitchesAreOneRowFollowedOverTheBuilds() {
        let series = HistorySeries(metric: .updateCount, traces: (1...4).map { build in
            HistoryTrace(id: "t\(build)", name: "pantry-\(build)", orderKey: Int64(build), uploadedAt: "", tags: ["build:\(build)"], value: 100, check: nil)
        })
        let fanOut = mark("collection-fan-out:@Observable Pantry.items>ItemRowView", "collection-fan-out", cost: 30)
        let findings: [String: [TraceMeasurements.FindingMark]] = [
            "t1": [mark("hitch-explained:1027596405", "hitch-explained", cost: 160, severity: "high", subject: "PriceTagView"), fanOut],
            "t2": [mark("hitch-explained:1034049434", "hitch-explained", cost: 130, subject: "PriceTagView"),
                   mark("hitch-explained:2345501021", "hitch-explained", cost: 20, severity: "high", subject: "CartBadge"), fanOut],
            "t3": [mark("hitch-explained:1349084509", "hitch-explained", cost: 110, subject: "PriceTagView"), fanOut],
            "t4": [fanOut],
        ]
        let rows = series.findingHistories(findings)
        #expect(rows.map(\.id) == ["collection-fan-out:@Observable Pantry.items>ItemRowView", "hitch-explained"])
        let hitches = rows[1]
        #expect(hitches.builds == 3 && hitches.firstSeen.label == "1" && hitches.lastSeen.label == "3" && !hitches.stillPresent)
        #expect(hitches.costNs == 110 && hitches.kind == "hitch-explained")
        // Within one trace: costs added, the highest severity, the costliest one's subject.
        let two = TraceMeasurements.followed(findings["t2"]!)
        #expect(two.count == 2 && two[0].id == "hitch-explained" && two[0].costNs == 150 && two[0].severity == "high" && two[0].subject == "PriceTagView")
        // Marks of other kinds stay as they are, in order; one id twice is still one mark (17
        // marks and more: checked by a set, fewer pair by pair).
        for count in [2, 17] {
            let distinct = (0..<count).map { mark("long-body:View\($0)", "long-body", cost: Int64(10 + $0)) }
            #expect(TraceMeasurements.followed(distinct) == distinct)
            let twice = TraceMeasurements.followed(distinct + [mark("long-body:View0", "long-body", cost: 5, severity: "high")])
            #expect(twice.count == count && twice[0].costNs == 15 && twice[0].severity == "high" && Array(twice.dropFirst()) == Array(distinct.dropFirst()))
        }
        // The finding-cost metric follows the same row.
        let measurements = TraceMeasurements(totals: .init(), views: [], findings: findings["t2"]!)
        #expect(HistoryMetric.findingCost.value(in: measurements, module: nil, view: nil, finding: "hitch-explained") == 150)
    }
}
