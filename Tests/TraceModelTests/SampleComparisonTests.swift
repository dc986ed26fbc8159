import Foundation
import Testing
@testable import TraceModel
import TraceSamples

/// The Landmarks sample pairs tell their story through the comparison (issue 13's "done when").
@Suite struct SampleComparisonTests {
    private func compare(_ before: String, _ after: String, from start: Nanoseconds? = nil) -> TraceComparison {
        let a = SampleTraces.trace(named: before), b = SampleTraces.trace(named: after)
        let range = { (trace: Trace) in start.map { TimeRange(start: $0, end: trace.metadata.end) } }
        return TraceComparison(before: a, after: b, beforeRange: range(a), afterRange: range(b))
    }

    private func itemRow(_ comparison: TraceComparison) throws -> ViewComparison {
        try #require(comparison.views.first { $0.view == "LandmarkListItemView" && $0.category == "View Body" && $0.module == "Landmarks" })
    }

    @Test func favoritesFixRunsOneRowBodyPerTapInsteadOfEveryVisibleRow() throws {
        let comparison = compare("landmarks-favorites-slow", "landmarks-favorites-fixed")
        #expect(comparison.differences.isEmpty)
        #expect(comparison.interactions.contains { $0.label == "Tap Gesture" && $0.a == 2 && $0.b == 2 })
        let item = try itemRow(comparison)
        let perTap = try #require(item.perInteraction.first { $0.label == "Tap Gesture" })
        #expect(perTap.a == 12 && perTap.b == 1)
        #expect(item.change == .improved && item.significant && item.delta.count == -22)

        let shared = try #require(comparison.causes.first { $0.source == "@Observable ModelData.favoritesCollection" })
        #expect(shared.target == "LandmarkListItemView.body" && shared.change == .disappeared)
        #expect(shared.a?.fanOut == "×12" && shared.a?.events == 2 && shared.b == nil)
        let perLandmark = try #require(comparison.causes.first { $0.source == "@Observable LandmarkViewModel" })
        #expect(perLandmark.target == "LandmarkListItemView.body" && perLandmark.property == "isFavorite")
        #expect(perLandmark.change == .appeared && perLandmark.b?.fanOut == "×1")
        // The launch fan-out is the same in both recordings.
        #expect(comparison.causes.contains { $0.source == "View Creation / Reuse" && $0.change == .unchanged })
    }

    @Test func scrollFixLeavesNoRedRowUpdatesAndNoFormatterFrames() throws {
        // From 1 s: the scroll, after the launch (whose first rows decode images in both versions).
        let comparison = compare("landmarks-scroll-slow", "landmarks-scroll-fixed", from: 1_000_000_000)
        let item = try itemRow(comparison)
        #expect(item.a.red > 50 && item.b.red == 0 && item.b.orange == 0)
        #expect(item.significant && item.durations.significant && item.durations.direction == "faster")
        // The fix is far beyond run-to-run noise even with one recording a side (issue 40).
        let effect = try #require(item.recordings)
        #expect(item.speedChange == .faster && effect.significant && effect.against == "recordings" && effect.high < -50, "\(effect)")
        #expect(comparison.verdict.contains { $0.kind == "speed" && $0.tone == "better" && $0.text.hasPrefix("LandmarkListItemView: faster per body") })
        #expect(comparison.views.first?.view == "LandmarkListItemView")

        let top = comparison.functions.prefix(5)
        let formatters = top.filter { $0.binary == "Foundation" || $0.binary == "libicucore.A.dylib" }
        #expect(!formatters.isEmpty, "top self-time changes: \(top.map(\.name))")
        #expect(formatters.allSatisfy { $0.bSelfNs == 0 && $0.deltaNs < 0 })
        let hitches = try #require(comparison.totals.first { $0.name == "hitches" })
        #expect(hitches.a.count > 0 && hitches.b.count < hitches.a.count)
    }

    @Test func samplesOfDifferentAppsSayWhatDiffers() {
        let comparison = compare("landmarks-favorites-slow", "environment-color-scheme")
        #expect(comparison.differences == ["app: Landmarks vs EnvironmentDemo"])
        #expect(comparison.views.contains { $0.view == "View1" && $0.change == .appeared })
        #expect(comparison.views.contains { $0.view == "LandmarkListItemView" && $0.change == .disappeared })
    }

    /// The sample renamed into another app: no name of Landmarks left, so nothing can be keyed on them.
    private func photos(_ name: String) -> Trace {
        var trace = SampleTraces.trace(named: name)
        let rename = { (text: String) in
            text.replacingOccurrences(of: "Landmark", with: "Photo").replacingOccurrences(of: "ModelData", with: "Library")
                .replacingOccurrences(of: "favorites", with: "starred")
        }
        trace.strings = trace.strings.map(rename)
        trace.metadata.app = rename(trace.metadata.app)
        trace.metadata.name = rename(trace.metadata.name)
        return trace
    }

    @Test func theStoriesHoldForAnotherAppsNames() throws {
        let taps = TraceComparison(before: photos("landmarks-favorites-slow"), after: photos("landmarks-favorites-fixed"))
        #expect(taps.differences.isEmpty && taps.a.app == "Photos")
        let row = try #require(taps.views.first { $0.view == "PhotoListItemView" && $0.module == "Photos" && $0.category == "View Body" })
        #expect(row.isAppCode && row.perInteraction.first { $0.label == "Tap Gesture" } == InteractionRate(label: "Tap Gesture", a: 12, b: 1))
        let shared = try #require(taps.causes.first { $0.source == "@Observable Library.starredCollection" })
        #expect(shared.target == "PhotoListItemView.body" && shared.change == .disappeared && shared.a?.fanOut == "×12")
        #expect(taps.causes.contains { $0.source == "@Observable PhotoViewModel" && $0.change == .appeared && $0.b?.fanOut == "×1" })

        let scroll = { (trace: Trace) in TimeRange(start: 1_000_000_000, end: trace.metadata.end) }
        let slow = photos("landmarks-scroll-slow"), fixed = photos("landmarks-scroll-fixed")
        let scrolls = TraceComparison(before: slow, after: fixed, beforeRange: scroll(slow), afterRange: scroll(fixed))
        let item = try #require(scrolls.views.first { $0.view == "PhotoListItemView" && $0.category == "View Body" })
        #expect(item.a.red > 50 && item.b.red == 0 && item.significant)
        let top = scrolls.functions.prefix(5)
        #expect(top.contains { $0.binary == "Foundation" && $0.bSelfNs == 0 }, "top self-time changes: \(top.map(\.name))")
    }
}
