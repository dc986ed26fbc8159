import Testing
@testable import TraceModel
import TraceSamples

/// The `per-interaction` budget rule (docs/ci.md) and `check --baseline` with several baselines.
@Suite struct PerInteractionBudgetTests {
    private func rule(_ interaction: String, views: [String] = [], max: Int64) throws -> BudgetRule {
        BudgetRule(name: "per \(interaction)", metric: .perInteraction, views: try views.map(Glob.init), limit: max, interaction: try Glob(interaction))
    }

    @Test func atMostTwoRowBodiesPerFavoriteTap() throws {
        let rule = try rule("Favorite Tap", views: ["LandmarkListItemView"], max: 2)
        let slow = SampleTraces.trace(named: "landmarks-favorites-slow").evaluate(rule)
        #expect(!slow.passed && slow.measured == 12 && slow.unit == .count)
        // Each tap over the limit, with when it happened, its message, its bodies and its span.
        #expect(slow.offenders.count == 2)
        #expect(slow.offenders[0].title.hasPrefix("Favorite Tap at 1.40") && slow.offenders[0].title.hasSuffix("(Muir Woods): 12 bodies"))
        #expect(slow.offenders[0].updates.count == 12 && slow.offenders[0].span != nil)
        let fixed = SampleTraces.trace(named: "landmarks-favorites-fixed").evaluate(rule)
        #expect(fixed.passed && fixed.measured == 1 && fixed.offenders.isEmpty && fixed.notes.isEmpty)
    }

    @Test func anotherAppsInteractionsAndEveryBodyWithoutViews() throws {
        // Add to Cart in Pantry: 14 rows, the badge and the price tag; fixed: a row and the badge.
        let slow = PantryTraces.trace(slow: true, run: 1).evaluate(try rule("Add to *", max: 4))
        #expect(!slow.passed && slow.measured == 16 && slow.offenders.count == PantryTraces.taps)
        #expect(PantryTraces.trace(slow: false, run: 1).evaluate(try rule("Add to *", max: 4)).measured == 2)
        // A window leaves out the intervals that start outside it.
        var windowed = try rule("Add to Cart", max: 4)
        windowed.window = BudgetWindow(to: 1_100_000_000)
        #expect(PantryTraces.trace(slow: true, run: 1).evaluate(windowed).offenders.count == 1)
    }

    @Test func aNameNoIntervalHasPassesWithANote() throws {
        let result = PantryTraces.trace(slow: true, run: 1).evaluate(try rule("Favorite Tap", max: 0))
        #expect(result.passed && result.measured == 0 && result.notes == [#"no signpost interval is named "Favorite Tap""#])
    }

    @Test func severalBaselinesArePooled() throws {
        let baselines = (1...3).map { PantryTraces.trace(slow: false, run: UInt64($0)) }
        let regressed = PantryTraces.trace(slow: true, run: 4)
        let results = regressed.baselineResults(against: baselines, tolerance: BaselineTolerance())
        let count = try #require(results.first { $0.metric == "baseline-body-count" })
        #expect(!count.passed && count.offenders.contains { $0.view == "ItemRowView" })
        // Against its own scenario's other recordings nothing regressed.
        let same = PantryTraces.trace(slow: false, run: 4).baselineResults(against: baselines, tolerance: BaselineTolerance())
        #expect(same.allSatisfy { $0.passed }, "\(same.flatMap(\.offenders).map(\.title))")
    }
}
