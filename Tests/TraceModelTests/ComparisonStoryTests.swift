import Foundation
import Testing
@testable import TraceModel
import TraceSamples

/// Issue 28: the comparison tells its story first (the verdict), counts and speed apart, per
/// interaction, and over several recordings a side. Held on "Pantry", an app that is not
/// Landmarks (TraceSamples/PantryTraces.swift), and on the Landmarks favorites pair.
@Suite struct ComparisonStoryTests {
    static func pantry(slow: Bool, runs: ClosedRange<UInt64>) -> ComparisonSide {
        .pooled(runs.map { PantryTraces.trace(slow: slow, run: $0).comparisonSide() })
    }

    static let pair = TraceComparison(pantry(slow: true, runs: 1...1), pantry(slow: false, runs: 1...1))

    private func view(_ comparison: TraceComparison, _ name: String) throws -> ViewComparison {
        try #require(comparison.views.first { $0.view == name })
    }

    @Test func countsAndSpeedAreTwoReadingsWithTwoWords() throws {
        // Fewer row bodies, each slower: never "faster".
        let row = try view(Self.pair, "ItemRowView")
        #expect(row.countChange == .fewer && row.countText == "fewer bodies")
        #expect(row.change == .improved, "the total time still fell")
        // Each body +21 % with one recording a side: within run-to-run noise (issue 40), though
        // every update of B is timed; five recordings a side tell it.
        #expect(row.speedChange == .same && row.changeText == "fewer bodies")
        let five = try view(TraceComparison(Self.pantry(slow: true, runs: 1...5), Self.pantry(slow: false, runs: 1...5)), "ItemRowView")
        #expect(five.speedChange == .slower && five.speedText == "slower per body")
        #expect(five.changeText == "fewer bodies, slower per body")
        // A view on one side only is new or gone, with no speed.
        let price = try view(Self.pair, "PriceTagView")
        #expect(price.countChange == .gone && price.speedChange == .none && price.changeText == "gone")
        // Layouts are updates, not bodies; too few durations are not timed.
        let layout = try view(Self.pair, "LazyVStack")
        #expect(layout.countText == "as many updates" && layout.speedChange == .same && layout.speedText == "within noise per update")
        let badge = try view(Self.pair, "CartBadge")
        #expect(badge.countChange == .same && badge.changeText == "no change beyond noise")
        // One body a recording is one value a recording: timed over recordings like any other.
        let app = try view(Self.pair, "PantryApp")
        #expect(app.speedChange == .same && app.recordings?.runsA == 1 && app.recordings?.percent == 0)
    }

    @Test func eachRowReadsPerItsOwnInteraction() throws {
        // A view driven by taps reads per tap, one driven by frames per frame.
        let row = try #require(try view(Self.pair, "ItemRowView").interaction)
        #expect(row.label == "Button Tap" && row.a == 14 && row.b == 1)
        let scroll = try #require(try view(Self.pair, "ScrollPosition").interaction)
        #expect(scroll.label == "Frame Update" && scroll.a == 1 && scroll.b == 1)
        let app = try #require(try view(Self.pair, "PantryApp").interaction)
        #expect(app.label == "App Launch")
        // On the favorites samples too: the rows per tap.
        let favorites = TraceComparison(before: SampleTraces.trace(named: "landmarks-favorites-slow"), after: SampleTraces.trace(named: "landmarks-favorites-fixed"))
        let item = try #require(try view(favorites, "LandmarkListItemView").interaction)
        #expect(item.label == "Tap Gesture" && item.a == 12 && item.b == 1)
    }

    @Test func findingsAreResolvedNewOrStillPresent() throws {
        let findings = Self.pair.findings
        func finding(_ kind: FindingKind) -> FindingComparison? { findings.first { $0.kind == kind } }
        let fanOut = try #require(finding(.collectionFanOut))
        #expect(fanOut.change == .resolved && fanOut.a != nil && fanOut.b == nil)
        #expect(fanOut.subject.contains("ItemRowView") && fanOut.subject.contains("@Observable Pantry.items"))
        #expect(finding(.longBody)?.change == .resolved && finding(.longBody)?.subject.hasPrefix("PriceTagView (") == true)
        #expect(finding(.environmentChurn)?.change == .resolved)
        // Hitches compare as a count per kind: ten in A, none in B.
        let hitches = try #require(finding(.hitchExplained))
        #expect(hitches.key.isEmpty && hitches.change == .resolved && hitches.a?.occurrences == PantryTraces.taps)
        // Resolved first; the reverse comparison calls them new.
        #expect(findings.allSatisfy { $0.change == .resolved })
        let reverse = TraceComparison(Self.pantry(slow: false, runs: 1...1), Self.pantry(slow: true, runs: 1...1))
        #expect(reverse.findings.allSatisfy { $0.change == .new } && reverse.findings.count == findings.count)
        let same = TraceComparison(Self.pantry(slow: true, runs: 1...1), Self.pantry(slow: true, runs: 2...2))
        #expect(same.findings.allSatisfy { $0.change == .stillPresent })
    }

    @Test func notificationsOfBodiesThatDidNotRunAreAChangeLikeAnyEdge() throws {
        let skipped = try #require(Self.pair.causes.first { $0.outcome == "skipped" })
        #expect(skipped.source == "EnvironmentWriter: CartCount" && skipped.target == "AisleHeader.body" && skipped.property == "cartCount")
        #expect(skipped.change == .disappeared && skipped.a?.fanOut == "×\(PantryTraces.skippedHeaders)")
        #expect(skipped.a?.events == PantryTraces.taps && skipped.a?.updates == PantryTraces.taps * PantryTraces.skippedHeaders)
        // The environment sample notifies View2, which does not run.
        let environment = SampleTraces.trace(named: "environment-color-scheme")
        let side = environment.comparisonSide()
        #expect(side.skipped.count == 1 && side.skipped[0].events == 2 && side.skipped[0].updates == 2)
        #expect(environment.string(side.skippedKeys[0].targetName) == "View2")
    }

    @Test func perInteractionComparesSignpostIntervalsMeasureByMeasure() throws {
        let interval = try #require(Self.pair.intervals.first { $0.name == "Add to Cart" })
        #expect(interval.subsystem == "com.example.pantry" && interval.category == "UserActions")
        #expect(interval.intervalsA == PantryTraces.taps && interval.intervalsB == PantryTraces.taps)
        let bodies = try #require(interval.measure(.bodies))
        // 14 rows, the badge and the price tag against one row and the badge.
        #expect(bodies.a == 16 && bodies.b == 2 && bodies.significant && bodies.changeText == "fewer bodies")
        #expect(bodies.test.tested && (bodies.test.pValue ?? 1) < 0.001)
        #expect(interval.measure(.hitches)?.a == 1 && interval.measure(.hitches)?.b == 0)
        #expect(interval.measure(.duration)?.changeText == "shorter")
        #expect(interval.measure(.mainActor) == nil, "no Swift task data: no main-actor measure")
        let row = try #require(interval.views.first)
        #expect(row.view == "ItemRowView" && row.a == 14 && row.b == 1)
        // The Landmarks samples: "Favorite Tap: 12 → 1 LandmarkListItemView bodies per interval".
        let favorites = TraceComparison(before: SampleTraces.trace(named: "landmarks-favorites-slow"), after: SampleTraces.trace(named: "landmarks-favorites-fixed"))
        let tap = try #require(favorites.intervals.first { $0.name == "Favorite Tap" })
        #expect(tap.views.first?.view == "LandmarkListItemView" && tap.views.first?.a == 12 && tap.views.first?.b == 1)
        #expect(tap.measure(.bodies)?.significant == true, "two intervals a side: the count rule decides")
    }

    @Test func theVerdictTellsTheStoryFirstEachLineNamingItsEvidence() throws {
        let lines = Self.pair.verdict
        let texts = lines.map(\.text)
        // The costliest finding first: the hitches, then the fan-out.
        #expect(Array(texts.prefix(2)) == ["Hitch resolved: hitches ×10", "Collection fan-out resolved: ItemRowView (@Observable Pantry.items)"], "\(texts)")
        #expect(lines.contains { $0.kind == "cause" && $0.text.hasPrefix("fan-out gone: @Observable Pantry.items (items) → ItemRowView.body ×14") })
        #expect(lines.contains { $0.kind == "count" && $0.text == "ItemRowView: fewer bodies, 164 → 34 (per Button Tap 14 → 1)" }, "\(texts)")
        // Not told from one recording a side: said so, with what would tell it.
        #expect(!lines.contains { $0.kind == "speed" })
        #expect(lines.contains {
            $0.kind == "noise" && $0.tone == "neutral" && $0.text.hasPrefix("Within run-to-run noise: ItemRowView per body +21 %, 99 % interval")
                && $0.text.contains("with one recording a side, changes under ~") && $0.key == "Pantry:ItemRowView:View Body"
        }, "\(texts)")
        #expect(lines.contains { $0.kind == "interval" && $0.text.hasPrefix("Add to Cart: fewer bodies per interval, 16 → 2 bodies") })
        #expect(lines.contains { $0.kind == "total" && $0.text.hasPrefix("Hitches: 10 → 0") && $0.tone == "better" })
        // Each line names a row of its section.
        for line in lines {
            switch line.section {
            case "findings": #expect(Self.pair.findings.contains { "\($0.kind.rawValue):\($0.key)" == line.key })
            case "views": #expect(Self.pair.views.contains { "\($0.module):\($0.view):\($0.category)" == line.key })
            case "causes": #expect(Int(line.key).map { Self.pair.causes.indices.contains($0) } == true)
            case "intervals": #expect(Self.pair.intervals.contains { $0.name == line.key })
            case "totals": #expect(Self.pair.totals.contains { $0.name == line.key })
            case "main-actor": #expect(Self.pair.mainActor.contains { $0.name == line.key })
            default: Issue.record("line without evidence: \(line)")
            }
        }
        // Nothing changed: one line says so.
        let same = TraceComparison(before: SampleTraces.trace(named: "landmarks-favorites-slow"), after: SampleTraces.trace(named: "landmarks-favorites-slow"))
        #expect(same.verdict.map(\.text) == ["still present: Collection fan-out (LandmarkListItemView (@Observable ModelData.favoritesCollection))"])
        #expect(same.verdict.first?.tone == "neutral")
    }

    @Test func severalRecordingsASidePoolWithTheirSpreadAndTighterTests() throws {
        let pooled = TraceComparison(Self.pantry(slow: true, runs: 1...3), Self.pantry(slow: false, runs: 1...3))
        #expect(pooled.a.runs == 3 && pooled.b.runs == 3)
        #expect(pooled.a.runNames == ["pantry-slow-1", "pantry-slow-2", "pantry-slow-3"])
        let row = try view(pooled, "ItemRowView")
        // Counts per run, with the runs' spread; durations of all runs in the test.
        #expect(row.a.count == Self.pair.views.first { $0.view == "ItemRowView" }!.a.count)
        #expect(row.a.spread?.runs == 3 && row.a.spread?.countMin == row.a.spread?.countMax)
        // Three recordings a side measure the noise, and +20 % per body is still within it.
        #expect(row.countChange == .fewer && row.speedChange == .same && row.recordings?.noise.source == "runs")
        #expect(row.recordings?.noise.degreesOfFreedom == 4 && row.recordings?.runsToTell ?? 0 > 3)
        let interval = try #require(pooled.intervals.first { $0.name == "Add to Cart" })
        #expect(interval.intervalsA == PantryTraces.taps)
        // Tighter p-values than any single pair of recordings.
        let pooledRow = try #require(row.durations.pValue), pooledBodies = try #require(interval.measure(.bodies)?.test.pValue)
        for runA in UInt64(1)...3 {
            for runB in UInt64(1)...3 {
                let single = TraceComparison(Self.pantry(slow: true, runs: runA...runA), Self.pantry(slow: false, runs: runB...runB))
                let singleRow = try #require(try view(single, "ItemRowView").durations.pValue)
                let singleBodies = try #require(single.intervals.first { $0.name == "Add to Cart" }?.measure(.bodies)?.test.pValue)
                #expect(pooledRow < singleRow, "runs \(runA)/\(runB): pooled \(pooledRow), single \(singleRow)")
                #expect(pooledBodies < singleBodies, "runs \(runA)/\(runB): pooled \(pooledBodies), single \(singleBodies)")
            }
        }
        // Findings say in how many runs they were found.
        #expect(pooled.findings.first { $0.kind == .collectionFanOut }?.a?.runs == 3)
        // Pooling one side is that side.
        #expect(TraceComparison(Self.pantry(slow: true, runs: 1...1), Self.pantry(slow: false, runs: 1...1)).views == Self.pair.views)
    }

    @Test func aCountChangeNeedsEveryRunBeyondEveryRunOfTheOtherSide() {
        // Runs of 10, 20 and 30 against 25: the mean moved, but the runs overlap.
        func stats(_ counts: [Int]) -> ComparedViewStats {
            ComparedViewStats(sortedDurations: [Nanoseconds](repeating: 100, count: counts.reduce(0, +)), runCounts: counts, runTotals: counts.map { Nanoseconds($0 * 100) })
        }
        #expect(!ViewComparison.isCountChange(stats([10, 20, 30]), stats([25])))
        #expect(ViewComparison.isCountChange(stats([10, 11, 12]), stats([25, 26])))
        #expect(ViewComparison.isCountChange(stats([30]), stats([10])))
        #expect(!ViewComparison.isCountChange(stats([30]), stats([29])))
    }

    @Test func pValuesReadAsPeopleReadThem() {
        #expect([0.41, 1, 0.0034, 0.00096, 3.2e-11, 0].map(ComparisonWords.pValue) == ["p = 0.41", "p = 1", "p = 0.003", "p = 1e-3", "p = 3e-11", "p < 1e-300"])
    }
}
