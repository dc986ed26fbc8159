import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TraceFormats
import TraceSamples
@testable import TraceServer

/// An upload is read while it arrives (one pass: hashed, written and parsed at once), and every
/// way it can fail leaves nothing: no row, no blob, no incoming file, no quota reservation, no
/// memory claimed, no import left running.
@Suite(.timeLimit(.minutes(2))) struct OnePassUploadTests {
    private func openStore(_ scratch: Scratch, maxUploadReadBytes: Int64 = .max) async throws -> TraceStore {
        try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30, maxUploadReadBytes: maxUploadReadBytes),
            logger: Logger(label: "test")
        )
    }

    /// Nothing of an upload is left anywhere.
    private func expectNothingLeft(_ scratch: Scratch, _ store: TraceStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let files = FileManager.default
        let blobs = (try? files.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)) ?? []
        #expect(blobs.isEmpty, "no blob: \(blobs)", sourceLocation: sourceLocation)
        #expect(try files.contentsOfDirectory(atPath: store.incomingDirectory.path).isEmpty, "no incoming file", sourceLocation: sourceLocation)
        #expect(try await store.list().isEmpty, "no trace listed", sourceLocation: sourceLocation)
        #expect(store.quota.reservedBytes == 0, "no quota reservation left", sourceLocation: sourceLocation)
        #expect(store.memoryInUse == 0, "no memory claimed by a stopped import", sourceLocation: sourceLocation)
    }

    private func xctraceExport(updates: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try XCTraceSyntheticExport(updates: updates, seed: 7).write { bytes += $0 }
        return bytes
    }

    private func gzip(_ bytes: [UInt8], scratch: Scratch) throws -> [UInt8] {
        let plain = scratch.root.appendingPathComponent("plain-\(UUID().uuidString)")
        try Data(bytes).write(to: plain)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "gzip -1 -c '\(plain.path)' > '\(plain.path).gz'"]
        try shell.run()
        shell.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: plain.path + ".gz")))
    }

    /// The import starts on the first half of the file and reads the second as it is written:
    /// without following the file, the reader takes the half for the whole and fails.
    @Test(arguments: ["native", "native-gzip", "xctrace"])
    func theImportFollowsTheFileAsItArrives(_ format: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await openStore(scratch)
        let bytes: [UInt8] = switch format {
        case "native": Array(nativeTrace(updates: 3_000, app: "Pantry").utf8)
        case "native-gzip": try gzip(Array(nativeTrace(updates: 3_000, app: "Pantry").utf8), scratch: scratch)
        default: try xctraceExport(updates: 2_000)
        }
        let name = format == "xctrace" ? "pantry.xml" : "pantry.json"
        let file = try IncomingFile(in: store.incomingDirectory)
        let half = bytes.count / 2
        try file.write(ByteBuffer(bytes: bytes[..<half]))
        let importing = store.beginImport(of: file, name: name, declaredLength: Int64(bytes.count), run: nil)
        // The reader has what there is by now, and waits at the file's current end.
        try await Task.sleep(for: .milliseconds(300))
        for start in stride(from: half, to: bytes.count, by: 4096) {
            try file.write(ByteBuffer(bytes: bytes[start..<min(bytes.count, start + 4096)]))
        }
        let sha256 = try file.finish()
        let upload = ReceivedUpload(file: file.url, id: String(sha256.prefix(32)), sha256: sha256, size: file.written, name: name, importing: importing)
        let added = try await store.add(upload)
        #expect(added.isNew)
        #expect(added.loaded.trace.updates.count == (format == "xctrace" ? 2_000 : 3_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.incomingDirectory.path).isEmpty)
    }

    /// A request whose body is `chunks`, then fails (the client left) when `thenFail` is set.
    private func request(declaring length: Int, _ chunks: [[UInt8]], thenFail: Bool, name: String = "pantry.json") -> Request {
        let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        Task {
            for chunk in chunks {
                continuation.yield(ByteBuffer(bytes: chunk))
                try? await Task.sleep(for: .milliseconds(50))
            }
            // Long enough for the import to be reading when the body stops.
            try? await Task.sleep(for: .milliseconds(200))
            if thenFail { continuation.finish(throwing: CancellationError()) } else { continuation.finish() }
        }
        var head = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/api/traces?name=\(name)")
        head.headerFields[.contentType] = "application/octet-stream"
        head.headerFields[.contentLength] = "\(length)"
        return Request(head: head, body: RequestBody(asyncSequence: stream))
    }

    private func receive(_ request: Request, store: TraceStore, maxUploadBytes: Int64 = 64 << 20) async throws(APIError) -> ReceivedUpload {
        try await UploadReceiver.receive(
            request, into: store.incomingDirectory, quota: store.quota, maxUploadBytes: maxUploadBytes, logger: Logger(label: "test"),
            startImport: { file, name, length in store.beginImport(of: file, name: name, declaredLength: length, run: nil) }
        )
    }

    @Test func aClientThatLeavesMidBodyLeavesNothingAndStopsItsImport() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await openStore(scratch)
        let bytes = Array(nativeTrace(updates: 5_000, app: "Pantry").utf8)
        let half = Array(bytes[..<(bytes.count / 2)])
        await #expect(throws: APIError.self) {
            _ = try await receive(request(declaring: bytes.count, [half], thenFail: true), store: store)
        }
        try await expectNothingLeft(scratch, store)
        // The server is whole afterwards: the same trace uploaded in full is stored.
        let upload = try await receive(request(declaring: bytes.count, [half, Array(bytes[half.count...])], thenFail: false), store: store)
        #expect(upload.importing != nil, "the import started while the body arrived")
        #expect(try await store.add(upload).loaded.trace.updates.count == 5_000)
    }

    @Test func aBodyOverTheLimitMidStreamStopsItsImportAndLeavesNothing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await openStore(scratch)
        let bytes = Array(nativeTrace(updates: 5_000, app: "Pantry").utf8)
        // The head declares less than the body brings (a proxy that lied, or a chunked body).
        let limit = Int64(bytes.count / 2)
        await #expect(throws: UploadReceiver.tooLarge(limit)) {
            _ = try await receive(
                request(declaring: bytes.count / 3, stride(from: 0, to: bytes.count, by: 16_384).map { Array(bytes[$0..<min(bytes.count, $0 + 16_384)]) }, thenFail: false),
                store: store, maxUploadBytes: limit
            )
        }
        try await expectNothingLeft(scratch, store)
    }

    @Test func aTraceLargerThanTheReadLimitFailsMidStreamWithItsLocationAndLeavesNothing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await openStore(scratch, maxUploadReadBytes: 100_000)
        let bytes = Array(nativeTrace(updates: 5_000, app: "Pantry").utf8)
        do {
            // Dropped with this scope, as a request drops it: its quota reservation goes with it.
            let upload = try await receive(request(declaring: bytes.count, [bytes], thenFail: false), store: store)
            #expect(upload.importing != nil)
            await #expect(throws: StoreError.self) { _ = try await store.add(upload) }
        }
        try await expectNothingLeft(scratch, store)
    }

    @Test func aParseErrorMidStreamAnswers422WithItsLocationAndStoresNothing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var text = nativeTrace(updates: 4_000, app: "Pantry")
        // An update in the middle of the file has a kind no reader knows.
        let middle = try #require(text.range(of: "\"view-body\"", range: text.index(text.startIndex, offsetBy: text.count / 2)..<text.endIndex))
        text.replaceSubrange(middle, with: "\"view-bodX\"")
        let body = text
        var options = scratch.options()
        options.samplesDirectory = nil
        try await scratch.withServer(options) { client in
            let response = try await client.execute(
                uri: "/api/traces?name=broken.json", method: .post,
                headers: [.contentType: "application/json", .contentLength: "\(body.utf8.count)"], body: ByteBuffer(string: body)
            )
            try expectError(response, .unprocessableContent)
            let location = try #require(try response.json()["location"] as? String)
            // Line 6 holds the updates; the column is the broken one's, far into it.
            #expect(location.hasPrefix("broken.json:6:") && (Int(location.split(separator: ":").last ?? "") ?? 0) > 1000, "\(location)")
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.isEmpty)
        }
        let files = FileManager.default
        #expect(((try? files.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)) ?? []).isEmpty)
        #expect(try files.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("incoming").path).isEmpty)
    }

    @Test func theSameContentTwiceIsOneTraceWithNothingLeftOver() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await openStore(scratch)
        let bytes = Array(nativeTrace(updates: 3_000, app: "Pantry").utf8)
        let sha256: String, firstID: String
        // Each upload is dropped with its scope, as a request drops it (and its quota reservation).
        do {
            let upload = try await receive(request(declaring: bytes.count, [bytes], thenFail: false), store: store)
            let first = try await store.add(upload)
            #expect(first.isNew)
            (sha256, firstID) = (upload.sha256, first.record.id)
        }
        do {
            let again = try await receive(request(declaring: bytes.count, [bytes], thenFail: false, name: "again.json"), store: store)
            #expect(again.importing != nil)
            let second = try await store.add(again)
            #expect(!second.isNew && second.record.id == firstID)
        }
        #expect(try await store.list().count == 1)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)
        #expect(blobs == [sha256])
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.incomingDirectory.path).isEmpty)
        #expect(store.quota.reservedBytes == 0)
    }
}
