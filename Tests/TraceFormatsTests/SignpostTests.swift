import Foundation
import Testing
@testable import TraceFormats
@testable import TraceModel
import TraceSamples

/// os_signpost intervals and Points of Interest (Fixtures/xctrace-signposts, written in the shape
/// `xctrace export` gives them: a "Mail" app and its widget for `os-signpost`, a "Weather" app for
/// `os-signpost-interval`), their lanes, the native format and the samples.
@Suite struct SignpostTests {
    static let tables = ["os-signpost", "os-signpost-interval"]

    static func fixture(_ table: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/xctrace-signposts/\(table)", withExtension: "xml"))
        return [UInt8](try Data(contentsOf: url))
    }

    static func mail() throws -> Trace {
        try XCTraceImporter.importTrace(from: .memory(try fixture("os-signpost"), chunkSize: 997), displayName: "mail.xml")
    }

    static func rows(_ trace: Trace, named name: String) -> [Int] {
        (0..<trace.signposts.count).filter { trace.string(trace.signposts.name[$0]) == name }
    }

    @Test func beginsPairWithTheirEndsPerProcessEvenWithTheSameSignpostID() throws {
        let trace = try Self.mail()
        let sync = Self.rows(trace, named: "Sync Inbox").map(trace.signpostDetail)
        // The app and its widget both use signpost id 1: each end closes its own process's begin.
        #expect(sync.map(\.duration) == [400_000_000, 150_000_000])
        #expect(sync.map { $0.process?.name } == ["Mail", "MailWidget"])
        #expect(sync.map { $0.process?.pid } == [5120, 5188])
        #expect(sync.map(\.beginMessage) == ["account=work", "account=widget"])
        #expect(sync.map(\.endMessage) == ["12 new", "3 new"])
        #expect(sync.allSatisfy { $0.kind == "interval" && $0.category == "Sync" && $0.subsystem == "com.acme.mail" })
        #expect(sync.first?.thread?.name == "Main Thread")

        let tap = try #require(Self.rows(trace, named: "Compose Tapped").first.map(trace.signpostDetail))
        #expect(tap.kind == "event" && tap.duration == 0 && tap.start == 1_200_000_000)
        #expect(tap.beginMessage == "new message")
        #expect(tap.laneTitle == "Points of Interest · com.acme.mail")
    }

    @Test func aBeginWithoutEndRunsToTheTraceEndWithANote() throws {
        let trace = try Self.mail()
        let fetch = try #require(Self.rows(trace, named: "Fetch Attachments").first.map(trace.signpostDetail))
        #expect(fetch.kind == "unended")
        #expect(fetch.start + fetch.duration == trace.metadata.end)
        #expect(fetch.duration == 100_000_000, "to the last event of the export, at 1.6 s")
        #expect(fetch.signpostID == "0xeeeeb0b5b2b00000")
        let notes = trace.metadata.importNotes
        #expect(notes.contains { $0.contains("1 interval began but never ended (Fetch Attachments)") })
        #expect(notes.contains { $0.contains("1 interval end without a begin") }, "Render Thread's end has no begin: left out")
        #expect(Self.rows(trace, named: "Render Thread").isEmpty)
        #expect(trace.signposts.count == 4)
    }

    @Test func lanesGroupBySubsystemAndCategoryPointsOfInterestFirst() throws {
        let trace = try Self.mail()
        // The app's and the widget's syncs overlap: the Sync group stacks them in two rows.
        #expect(trace.indexes.signpostLanes.map(\.title) == [
            "Points of Interest · com.acme.mail", "Sync · com.acme.mail", "Sync · com.acme.mail", "Network · com.acme.mail",
        ])
        #expect(trace.indexes.signpostLanes.map(\.level) == [0, 0, 1, 0])
        #expect(trace.indexes.signpostLanes.map(\.groupSignposts) == [1, 2, 2, 1])
        #expect(trace.indexes.signpostLanes.map(\.id) == ["signposts-0", "signposts-1", "signposts-2", "signposts-3"])
        let window = TimeRange(start: trace.metadata.start, end: trace.metadata.end)
        let lanes = trace.allTimelineLanes.filter { if case .signposts = $0 { true } else { false } }
        let timeline = trace.timeline(window: window, width: 2000, laneIDs: lanes, index: TimelineIndex())
        #expect(timeline.lanes["signposts-1"]?.events.map(\.count) == [1])
        #expect(timeline.lanes["signposts-2"]?.events.map(\.count) == [1])
        #expect(Set([timeline.lanes["signposts-1"]?.events.first?.label, timeline.lanes["signposts-2"]?.events.first?.label]).count == 2)
        #expect(timeline.lanes["signposts-3"]?.events.map(\.label) == ["Fetch Attachments"])
        #expect(timeline.lanes["signposts-0"]?.events.map(\.label) == ["Compose Tapped: new message"])
        #expect(timeline.lanes["signposts-0"]?.events.map(\.duration) == [0])
        let zoomed = trace.timeline(window: TimeRange(start: 1_000_000_000, end: 1_050_000_000), width: 500, laneIDs: [.signposts(1)], index: TimelineIndex())
        #expect(zoomed.lanes["signposts-1"]?.events.map(\.label) == ["Sync Inbox: account=work"])
        let rowOfTap = try #require(Self.rows(trace, named: "Compose Tapped").first)
        #expect(timeline.lanes["signposts-0"]?.events.first?.signpost == rowOfTap)
        #expect(trace.timelineByFullScan(window: window, width: 2000, laneIDs: lanes) == timeline)
        // The binary answer carries the signpost row where update lanes carry update rows.
        #expect(timeline.binary().count > 0)
    }

    @Test func theIntervalTableOfAnotherAppReadsAsIntervals() throws {
        let trace = try XCTraceImporter.importTrace(from: .memory(try Self.fixture("os-signpost-interval"), chunkSize: 64), displayName: "weather.xml")
        #expect(trace.signposts.count == 2)
        let forecast = trace.signpostDetail(0)
        #expect((forecast.name, forecast.duration, forecast.kind) == ("Refresh Forecast", 250_000_000, "interval"))
        #expect((forecast.beginMessage, forecast.endMessage) == ("city=Lyon", "7 days"))
        #expect(forecast.process?.name == "Weather" && forecast.thread?.name == "Main Thread")
        #expect(trace.indexes.signpostLanes.map(\.title) == ["Points of Interest · org.example.weather", "Radar · org.example.weather"])
        #expect(trace.metadata.app == "", "no updates or samples: the export does not say which process is the app")
    }

    @Test func aBadEventTypeNamesFileLineAndColumn() throws {
        let xml = String(decoding: try Self.fixture("os-signpost"), as: UTF8.self)
            .replacingOccurrences(of: "fmt=\"Event\">Event<", with: "fmt=\"Sometimes\">Sometimes<")
        let error = try #require(throws: TraceFormatError.self) {
            try XCTraceImporter.importTrace(from: .memory(Array(xml.utf8), chunkSize: 1 << 16), displayName: "mail.xml")
        }
        #expect(error.file == "mail.xml" && error.table == "os-signpost" && error.field == "event-type")
        #expect(error.line == 6, "the third row")
        #expect(error.message.contains("\"sometimes\""))
    }

    @Test func theNativeFormatKeepsSignpostsAndExportReadsBack() throws {
        let trace = try Self.mail()
        let bytes = NativeTraceWriter.encode(trace)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"signposts\": ["))
        let read = try NativeTraceReader.read(at: try temporaryFile(bytes), displayName: "mail.json", chunkSize: 7)
        #expect(NativeTraceWriter.encode(read) == bytes)
        #expect((0..<read.signposts.count).map(read.signpostDetail) == (0..<trace.signposts.count).map(trace.signpostDetail))

        // A bad id is an error that names the row and column.
        let bad = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\"0xeeeeb0b5b2b00000\"", with: "\"eeee\"")
        let error = try #require(throws: TraceFormatError.self) { try NativeTraceReader.read(at: try temporaryFile(bad), displayName: "bad.json") }
        #expect(error.message.contains("signposts[") && error.message.contains("signpostID"))

        // xctrace export (os-signpost begin / end / event rows) pairs back into the same intervals and events.
        var xml: [UInt8] = []
        try XCTraceExporter.export(trace, layout: .concatenatedXML) { xml.append(contentsOf: $0) }
        let again = try XCTraceImporter.importTrace(from: .memory(xml, chunkSize: 4096), displayName: "again.xml")
        let paired = { (t: Trace) in (0..<t.signposts.count).map(t.signpostDetail).filter { $0.kind != "unended" }.map { [$0.name, $0.kind, "\($0.start)", "\($0.duration)", $0.beginMessage, $0.endMessage, $0.process?.name ?? ""] } }
        #expect(paired(again) == paired(trace))
    }

    @Test func aTraceWithoutSignpostsWritesNoSignpostsKey() {
        let trace = SampleTraces.trace(named: "environment-color-scheme")
        #expect(!String(decoding: NativeTraceWriter.encode(trace), as: UTF8.self).contains("\"signposts\""))
    }
}
