import Testing
import TraceModel
import TraceSamples

/// Each sample story yields the finding the WWDC talk reads from it, and its fixed version does not.
@Suite struct SampleFindingsTests {
    private func findings(_ sample: String, _ kind: FindingKind) -> [Finding] {
        SampleTraces.trace(named: sample).findings().filter { $0.kind == kind }
    }

    @Test func favoritesSlowFansOutFromTheFavoritesCollectionToEveryRow() throws {
        let trace = SampleTraces.trace(named: "landmarks-favorites-slow")
        let fanOuts = trace.findings().filter { $0.kind == .collectionFanOut }
        let finding = try #require(fanOuts.first)
        #expect(fanOuts.count == 1)
        #expect(finding.subjects.contains { $0.role == .property && $0.name.contains("favoritesCollection") })
        #expect(finding.subjects.contains { $0.role == .view && $0.name == "LandmarkListItemView" })
        #expect(finding.occurrences == 2 && finding.evidence.updateCount == 24)
        let representative = try #require(finding.evidence.representativeUpdate)
        #expect(trace.string(trace.updates.viewName[representative]) == "LandmarkListItemView")
    }

    @Test func favoritesFixedDoesNotFanOut() {
        #expect(findings("landmarks-favorites-fixed", .collectionFanOut).isEmpty)
    }

    @Test func scrollSlowHasLongRowBodiesInFormatters() throws {
        let finding = try #require(findings("landmarks-scroll-slow", .longBody).first)
        #expect(finding.subjects.first?.name == "LandmarkListItemView")
        let frames = finding.evidence.frames.map(\.name)
        #expect(frames.contains("NumberFormatter.init()") && frames.contains("MeasurementFormatter.string(from:)"))
        #expect(finding.evidence.frames.first?.caller == "LandmarkListItemView.distance.getter")
        #expect(finding.title.contains("NumberFormatter.init()"))
        #expect(finding.severity == .high)
    }

    @Test func scrollFixedHasNoLongBodies() {
        #expect(findings("landmarks-scroll-fixed", .longBody).isEmpty)
    }

    @Test func colorSchemeChangeIsEnvironmentChurn() throws {
        let finding = try #require(findings("environment-color-scheme", .environmentChurn).first)
        #expect(finding.subjects.contains { $0.role == .property && $0.name == "colorScheme" })
        #expect(finding.subjects.contains { $0.role == .view && $0.name == "View2" })
        #expect(finding.subjects.first?.name.hasPrefix("External Environment") == true)
        #expect(finding.occurrences == 2 && finding.costNs > 0)
    }

    @Test(arguments: SampleTraces.names)
    func noSampleHasRepeatedBodiesOrOtherStoriesFindings(_ name: String) {
        let kinds = Set(SampleTraces.trace(named: name).findings().map(\.kind))
        #expect(!kinds.contains(.repeatedBody))
        #expect(!kinds.contains(.hangExplained))
        let expected: [String: FindingKind] = [
            "landmarks-scroll-slow": .longBody, "landmarks-favorites-slow": .collectionFanOut, "environment-color-scheme": .environmentChurn,
        ]
        for story in [FindingKind.longBody, .collectionFanOut, .environmentChurn] {
            #expect(kinds.contains(story) == (expected[name] == story), "\(name): \(story.rawValue)")
        }
    }
}
