import Foundation
import Testing
import TraceModel
import TraceSamples
@testable import TraceServer
import TraceStorage

/// The list's and an upload's answers, byte for byte: how a trace is described in Swift may
/// change (one `StoredTrace`), what a client reads may not.
@Suite struct TraceRecordJSONTests {
    static let trace = SampleTraces.trace(named: "landmarks-concurrency-slow")
    static let id = "0123456789abcdef0123456789abcdef"
    static let entry = CatalogEntry(
        id: id, name: "Harbor \"scroll\" " + String(repeating: "é", count: 310), app: "Harbor", device: "iPhone 16 Pro",
        durationNs: 2_500_000_123, sizeBytes: 1_234_567, sha256: String(repeating: "ab", count: 32), sourceFormat: "xctrace",
        updateCount: 4321, run: 2, uploadedAtMicros: 1_764_115_200_123_456, tags: ["scenario:scroll", "build:17", "branch:main"],
        parserVersion: 5, blobKey: "up-0001"
    )

    static let uploaded = TraceRecord(entry: entry)
    static let sample = TraceRecord.sample(id: id, trace: trace, sizeBytes: 99)

    static func text(_ value: some Encodable) throws -> String { String(decoding: try encodeJSON(value), as: UTF8.self) }

    @Test func theListAnswersTheSameBytes() throws {
        let list = TraceList(traces: [Self.uploaded.listed, Self.sample], nextCursor: "1764115200123456.\(Self.id)", total: 2, maxUploadBytes: 1 << 30)
        let text = try Self.text(list)
        #expect(text == Self.expectedList, "\(text)")
    }

    @Test func anUploadAnswersTheSameBytes() throws {
        let answer = Uploaded(
            trace: Self.uploaded, summary: TraceInfo(id: Self.id, trace: Self.trace),
            tagOutcome: TagOutcome(traceID: Self.id, stored: ["build:17"], notStored: [], moved: [], conflicts: [], reason: nil)
        )
        let text = try Self.text(answer)
        #expect(text == Self.expectedUpload, "\(text)")
    }

    /// A sample's record is kept as JSON beside the samples (read at the next start): it reads back the same.
    @Test func aSamplesRecordReadsBackAsWritten() throws {
        let read = try JSONDecoder().decode(TraceRecord.self, from: Data(encodeJSON(Self.sample)))
        #expect(read == Self.sample)
        #expect(try Self.text(read) == Self.text(Self.sample))
    }

    // Written by the code before `TraceRecord` was a `StoredTrace` (keys sorted by `encodeJSON`).
    static let expectedList = #"{"maxUploadBytes":1073741824,"nextCursor":"1764115200123456.0123456789abcdef0123456789abcdef","total":2,"traces":[{"app":"Harbor","device":"iPhone 16 Pro","durationNs":2500000123,"id":"0123456789abcdef0123456789abcdef","isSample":false,"name":"Harbor \"scroll\" éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé…","run":2,"sizeBytes":1234567,"sourceFormat":"xctrace","tags":["branch:main","build:17","scenario:scroll"],"updateCount":4321,"uploadedAt":"2025-11-26T00:00:00.123Z"},{"app":"Landmarks","device":"iPhone 16 Pro","durationNs":2400000000,"id":"0123456789abcdef0123456789abcdef","isSample":true,"name":"landmarks-concurrency-slow","run":null,"sizeBytes":99,"sourceFormat":"tracesvc-json/3","tags":[],"updateCount":61,"uploadedAt":null}]}"#
    static let expectedUpload = #"{"summary":{"app":"Landmarks","counts":{"edges":3,"hangs":0,"hitches":1,"importNotes":0,"nodes":5,"processes":1,"samples":143,"signposts":0,"stateChanges":1,"taskStates":12,"tasks":3,"threads":4,"updateGroups":58,"updates":61},"cpuWeightUnit":"ns","device":"iPhone 16 Pro","end":2400000000,"id":"0123456789abcdef0123456789abcdef","importNotes":[],"isSample":false,"lanes":[{"count":58,"groupSignposts":null,"id":"update-groups","level":null,"orange":0,"red":0,"signposts":null,"title":"Update Groups"},{"count":0,"groupSignposts":null,"id":"long-view-body","level":null,"orange":0,"red":0,"signposts":null,"title":"Long View Body Updates"},{"count":0,"groupSignposts":null,"id":"long-representable","level":null,"orange":0,"red":0,"signposts":null,"title":"Long Representable Updates"},{"count":0,"groupSignposts":null,"id":"long-other","level":null,"orange":0,"red":0,"signposts":null,"title":"Other Long Updates"},{"count":4,"groupSignposts":null,"id":"view-body","level":null,"orange":0,"red":0,"signposts":null,"title":"View Body Updates"},{"count":0,"groupSignposts":null,"id":"representable","level":null,"orange":0,"red":0,"signposts":null,"title":"Representable Updates"},{"count":57,"groupSignposts":null,"id":"other","level":null,"orange":0,"red":0,"signposts":null,"title":"Other Updates"},{"count":1,"groupSignposts":null,"id":"hitches","level":null,"orange":1,"red":0,"signposts":null,"title":"Hitches"},{"count":0,"groupSignposts":null,"id":"hangs","level":null,"orange":0,"red":0,"signposts":null,"title":"Hangs"},{"count":143,"groupSignposts":null,"id":"cpu","level":null,"orange":0,"red":0,"signposts":null,"title":"CPU"},{"count":4,"groupSignposts":null,"id":"main-actor","level":null,"orange":1,"red":1,"signposts":null,"title":"Main Actor"},{"count":4,"groupSignposts":null,"id":"main-actor-waits","level":null,"orange":0,"red":1,"signposts":null,"title":"Main Actor Waits"}],"name":"landmarks-concurrency-slow","osVersion":"iOS 26.1","processes":[{"name":"Landmarks","pid":2741}],"recordedAt":"2026-03-14T09:41:00Z","refreshRate":120,"run":null,"runs":[],"sourceFormat":"tracesvc-json/3","sourceLink":null,"start":0,"tags":[],"threads":[{"index":0,"isMain":true,"name":"Main Thread","process":0,"tid":172483},{"index":1,"isMain":false,"name":"com.apple.uikit.eventfetch-thread","process":0,"tid":172496},{"index":2,"isMain":false,"name":"com.apple.SwiftUI.DisplayLink","process":0,"tid":172516},{"index":3,"isMain":false,"name":"","process":0,"tid":172791}],"uploadedBy":null},"tagOutcome":{"conflicts":[],"moved":[],"notStored":[],"reason":null,"stored":["build:17"],"traceID":"0123456789abcdef0123456789abcdef"},"trace":{"app":"Harbor","device":"iPhone 16 Pro","durationNs":2500000123,"id":"0123456789abcdef0123456789abcdef","isSample":false,"name":"Harbor \"scroll\" éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé","run":2,"sizeBytes":1234567,"sourceFormat":"xctrace","tags":["branch:main","build:17","scenario:scroll"],"updateCount":4321,"uploadedAt":"2025-11-26T00:00:00.123Z"}}"#
}
