import Testing
@testable import TraceModel

@Suite struct UpdateDetailTests {
    @Test func showsFieldsGroupThreadAndNeighboursOfTheSameView() throws {
        let detail = try #require(try landmarksTrace().updateDetail(2))
        #expect(detail.view == "LandmarkListItemView" && detail.module == "Landmarks")
        #expect(detail.duration == 1_500_000 && detail.severity == "red" && detail.sourceSeverity == "none")
        #expect(detail.description == "body" && detail.category == "View" && detail.allocations == 12)
        #expect(detail.thread == UpdateDetail.Thread(index: 0, name: "Main Thread", tid: 7))
        #expect(detail.process == TraceProcess(pid: 42, name: "Landmarks"))
        #expect(detail.group == UpdateDetail.Group(id: 1, start: 10_000_000, duration: 5_000_000, label: "Transaction"))
        // Row 3 is the same view name in another module: not a neighbour.
        #expect(detail.previous == 0 && detail.next == 4)
    }

    @Test func listsDirectCausesWithEdgeLabelAndProperty() throws {
        let detail = try #require(try landmarksTrace().updateDetail(2))
        let causes = detail.causes.sorted { $0.node < $1.node }
        #expect(causes.count == 2)
        #expect(causes.contains(UpdateDetail.Cause(node: "n0", kind: "observable", title: "@Observable ModelData", isAppCode: true, label: "update", property: "favoritesCollection")))
        #expect(causes.contains { $0.title == "External Environment" && !$0.isAppCode })
    }

    @Test func firstAndLastHaveNoNeighbourAndUnknownRowsAreNil() throws {
        let trace = try landmarksTrace()
        #expect(trace.updateDetail(0)?.previous == nil)
        #expect(trace.updateDetail(4)?.next == nil)
        #expect(trace.updateDetail(1)?.causes == [])
        #expect(trace.updateDetail(5) == nil)
        #expect(trace.updateDetail(-1) == nil)
    }
}
