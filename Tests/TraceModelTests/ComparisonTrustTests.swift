import Testing
@testable import TraceModel
import TraceSamples

/// What a reviewer reads in a comparison's verdict is true (issue 41): one body per change is the
/// cure, not a new fan-out; spans that differ are said first and decide nothing.
@Suite struct ComparisonTrustTests {
    private func compare(_ a: String, _ b: String, rangeA: TimeRange? = nil, rangeB: TimeRange? = nil) -> TraceComparison {
        TraceComparison(before: SampleTraces.trace(named: a), after: SampleTraces.trace(named: b), beforeRange: rangeA, afterRange: rangeB)
    }

    @Test func theFavoritesFixReadsAsTheFixNotANewFanOut() {
        let c = compare("landmarks-favorites-slow", "landmarks-favorites-fixed")
        #expect(c.spanMismatch == nil)
        #expect(!c.verdict.contains { $0.tone == "worse" }, "\(c.verdict.map(\.text))")
        #expect(!c.verdict.contains { $0.text.contains("fan-out new") })
        let cause = c.verdict.filter { $0.kind == "cause" }
        #expect(cause.count == 1 && cause[0].tone == "better")
        #expect(cause.first?.text == "fan-out gone: @Observable ModelData.favoritesCollection (landmarks) → LandmarkListItemView.body ×12 per event, "
            + "replaced by @Observable LandmarkViewModel (isFavorite) ×1 per event")
        // The causes table still holds the new one-body cause (its evidence), the verdict just does not call it a fan-out.
        #expect(c.causes.contains { $0.change == .appeared && $0.b?.maxPerEvent == 1 })
    }

    @Test func anotherAppsFixReadsAsReplacedToo() {
        let c = TraceComparison(before: PantryTraces.trace(slow: true, run: 1), after: PantryTraces.trace(slow: false, run: 1))
        #expect(c.verdict.contains { $0.kind == "cause" && $0.tone == "better" && $0.text.hasPrefix("fan-out gone: @Observable Pantry.items (items) → ItemRowView.body ×14 per event, replaced by @Observable ItemModel (inCart) ×1") })
        #expect(!c.verdict.contains { $0.kind == "cause" && $0.tone == "worse" })
    }

    @Test func aNewFanOutAtTheFindingsThresholdIsStillWorse() {
        // The fix reversed: the 12-wide fan-out appears, and is called worse.
        let c = compare("landmarks-favorites-fixed", "landmarks-favorites-slow")
        #expect(c.verdict.contains { $0.kind == "cause" && $0.tone == "worse" && $0.text.hasPrefix("fan-out new: @Observable ModelData.favoritesCollection (landmarks) → LandmarkListItemView.body ×12") })
    }

    @Test func aRangeOnOneSideOnlyIsSaidFirstAndDecidesNothing() throws {
        let tap = TimeRange(start: 1_399_600_000, end: 1_404_497_548)
        let c = compare("landmarks-favorites-slow", "landmarks-favorites-fixed", rangeA: tap)
        let mismatch = try #require(c.spanMismatch)
        #expect(mismatch.side == "b" && mismatch.start == tap.start && mismatch.end == tap.end)
        #expect(mismatch.text.hasPrefix("The compared spans differ: A is the range 1.400 s–1.404 s (4.90 ms), B the whole recording (4.20 s)."))
        #expect(c.verdict.first?.kind == "span" && c.verdict.first?.text == mismatch.text)
        #expect(c.verdict.allSatisfy { $0.tone == "neutral" }, "\(c.verdict.map { "\($0.tone) \($0.text)" })")
        // The offered range, set on B: comparable, the verdict decides again.
        let same = compare("landmarks-favorites-slow", "landmarks-favorites-fixed", rangeA: tap, rangeB: TimeRange(start: mismatch.start, end: mismatch.end))
        #expect(same.spanMismatch == nil && same.verdict.contains { $0.tone == "better" } && !same.verdict.contains { $0.tone == "worse" })
        // The other side round: A is offered B's range.
        #expect(compare("landmarks-favorites-slow", "landmarks-favorites-fixed", rangeB: tap).spanMismatch?.side == "a")
    }

    @Test func rangesOverTwiceApartDifferToo() {
        let c = compare("landmarks-scroll-slow", "landmarks-scroll-fixed", rangeA: TimeRange(start: 1_000_000_000, end: 1_500_000_000), rangeB: TimeRange(start: 1_000_000_000, end: 3_000_000_000))
        #expect(c.spanMismatch?.side == "b" && c.spanMismatch?.end == 1_500_000_000)
        let close = compare("landmarks-scroll-slow", "landmarks-scroll-fixed", rangeA: TimeRange(start: 1_000_000_000, end: 2_000_000_000), rangeB: TimeRange(start: 1_000_000_000, end: 2_900_000_000))
        #expect(close.spanMismatch == nil)
    }

    @Test func noSamplePairCallsItsFixWorse() {
        for pair in ["scroll", "favorites", "concurrency"] {
            for range in [nil, TimeRange(start: 1_000_000_000, end: 4_000_000_000)] {
                let c = compare("landmarks-\(pair)-slow", "landmarks-\(pair)-fixed", rangeA: range, rangeB: range)
                #expect(!c.verdict.contains { $0.tone == "worse" }, "\(pair): \(c.verdict.filter { $0.tone == "worse" }.map(\.text))")
            }
        }
    }
}
