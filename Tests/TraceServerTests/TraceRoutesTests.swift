import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TraceFormats
@testable import TraceServer

@Suite struct TraceRoutesTests {
    @Test func samplesAreListedAtStartAsReadOnly() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let response = try await client.get("/api/traces")
            #expect(response.status == .ok)
            let traces = try #require(try response.json()["traces"] as? [[String: Any]])
            #expect(traces.count == 1)
            let sample = traces[0]
            #expect(sample["isSample"] as? Bool == true)
            #expect(sample["uploadedAt"] is NSNull)
            #expect(sample["app"] as? String == "SampleApp")
            #expect(sample["updateCount"] as? Int == 30)
            #expect(sample["sourceFormat"] as? String == "tracesvc-json/1")
            #expect((sample["id"] as? String)?.count == 32)
        }
    }

    @Test func uploadGivesAContentIDAndTheSameFileTwiceIsNotNew() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let first = try await client.upload(nativeTrace(), name: "my%20trace.json")
            #expect(first.status == .created, "\(first.text)")
            let json = try first.json()
            let trace = try #require(json["trace"] as? [String: Any])
            let id = try #require(trace["id"] as? String)
            #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(trace["name"] as? String == "my trace" && trace["isSample"] as? Bool == false)
            #expect(trace["uploadedAt"] is String)
            #expect(trace["sizeBytes"] as? Int == nativeTrace().utf8.count)
            let summary = try #require(json["summary"] as? [String: Any])
            #expect(summary["id"] as? String == id)
            #expect((summary["counts"] as? [String: Any])?["updates"] as? Int == 20)
            #expect(first.headers[.location] == "/api/traces/\(id)")

            let again = try await client.execute(
                uri: "/api/traces", method: .post, headers: [.contentType: "application/octet-stream", .traceName: "copy.json"],
                body: ByteBuffer(string: nativeTrace())
            )
            #expect(again.status == .ok)
            #expect((try again.json()["trace"] as? [String: Any])?["id"] as? String == id)

            // Newest upload first, samples last.
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.map { $0["isSample"] as? Bool } == [false, true])
            #expect(list[0]["id"] as? String == id)
        }
    }

    @Test func multipartFormUploadStoresTheFileField() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let boundary = "----tracesvcBoundary7MA4YWxk"
            let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"from-form.json\"\r\nContent-Type: application/json\r\n\r\n"
                + nativeTrace(updates: 11) + "\r\n--\(boundary)--\r\n"
            let response = try await client.execute(
                uri: "/api/traces", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: ByteBuffer(string: body)
            )
            #expect(response.status == .created, "\(response.text)")
            let trace = try #require(try response.json()["trace"] as? [String: Any])
            #expect(trace["updateCount"] as? Int == 11)
            #expect(trace["sizeBytes"] as? Int == nativeTrace(updates: 11).utf8.count)
            // The id is the hash of the file itself, not of the form around it.
            let raw = try await client.uploadedID(nativeTrace(updates: 11))
            #expect(trace["id"] as? String == raw)

            let noFile = "--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--\(boundary)--\r\n"
            try expectError(try await client.execute(
                uri: "/api/traces", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: ByteBuffer(string: noFile)
            ), .badRequest)
            try expectError(try await client.execute(
                uri: "/api/traces", method: .post, headers: [.contentType: "multipart/form-data"], body: ByteBuffer(string: noFile)
            ), .badRequest)
        }
    }

    @Test func badFileIs422WithLocationAndNothingIsStored() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let broken = nativeTrace().replacingOccurrences(of: "\"view-body\",\"Landmarks\"", with: "\"view-bodyy\",\"Landmarks\"")
            let response = try await client.upload(broken, name: "broken.json")
            try expectError(response, .unprocessableContent)
            let location = try #require(try response.json()["location"] as? String)
            #expect(location == "broken.json:6:27")
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.count == 1)
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)
        let incoming = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("incoming").path)
        #expect(stored.isEmpty && incoming.isEmpty)
    }

    @Test func instrumentsExportsAreRecognisedByContentAsXMLTarOrGzip() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let trace = try TraceImporter.importTrace(at: scratch.samples.appendingPathComponent("sample-app.json"), displayName: "sample-app")
        var xml: [UInt8] = []
        try XCTraceExporter.export(trace, layout: .concatenatedXML) { xml += $0 }
        var tar: [UInt8] = []
        try XCTraceExporter.export(trace, layout: .tarBundle) { tar += $0 }
        var gzipped: [UInt8] = []
        try GzipStream().compress(tar, finish: true) { gzipped += $0 }
        let exports = [("xml", xml), ("tar", tar), ("tar.gz", gzipped)]
        let text = String(decoding: xml, as: UTF8.self)
        try await scratch.withServer { client in
            for (what, bytes) in exports {
                // The same uninformative name each time: the content decides the format.
                let response = try await client.execute(
                    uri: "/api/traces?name=recording.bin", method: .post, headers: [.contentType: "application/octet-stream"],
                    body: ByteBuffer(bytes: bytes)
                )
                #expect(response.status == .created, "\(what): \(response.text)")
                let summary = try #require(try response.json()["summary"] as? [String: Any])
                #expect((summary["counts"] as? [String: Any])?["updates"] as? Int == 30, "\(what)")
                #expect(summary["sourceFormat"] as? String == "xctrace-export", "\(what)")
            }

            // A bad value in an export: 422, naming the table, line and column.
            let row = try #require(text.range(of: "<row><start-time"))
            let raw = try #require(text.range(of: ">1000000</start-time>", range: row.lowerBound..<text.endIndex))
            let broken = text.replacingCharacters(in: raw, with: ">soon</start-time>")
            let response = try await client.upload(broken, name: "broken.xml")
            try expectError(response, .unprocessableContent)
            let json = try response.json()
            let location = try #require(json["location"] as? String)
            #expect(location.hasPrefix("broken.xml:") && location.split(separator: ":").count == 3, "\(location)")
            #expect((json["detail"] as? String)?.contains("(table swiftui-updates) start should be a whole number") == true, "\(json)")
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.count == 4, "three imports and the sample; nothing of the broken one")
        }
    }

    @Test func aGzipBombIsRefusedAndLeavesNoFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // 64 KB accepted: 8 x 64 KB = 512 KB may be read; this gzip is ~4 KB and inflates to ~2 MB.
        let rows = (0..<20_000).map { "[\(1_000_000 + $0 * 100),50,\"layout\",\"SwiftUI\",\"HStack\",\"\",\"\",0,0,0,\"none\"]" }
        let text = nativeTrace(updates: 1).replacingOccurrences(of: "\"updates\":[", with: "\"updates\":[" + rows.joined(separator: ",") + ",")
        var compressed: [UInt8] = []
        try GzipStream().compress(Array(text.utf8), finish: true) { compressed += $0 }
        let bomb = compressed
        #expect(bomb.count < 64 << 10 && text.utf8.count > 1 << 20)
        try await scratch.withServer(scratch.options(maxUploadBytes: 64 << 10)) { client in
            let response = try await client.execute(
                uri: "/api/traces?name=bomb.json.gz", method: .post, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(bytes: bomb)
            )
            try expectError(response, .unprocessableContent)
            #expect((try response.json()["detail"] as? String)?.contains("bomb.json.gz:1:1: decompresses to more than 512 KB") == true, "\(response.text)")
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.count == 1, "only the sample")
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)
        let incoming = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("incoming").path)
        #expect(stored.isEmpty && incoming.isEmpty)
    }

    @Test func tooLargeUploadIs413AndLeavesNoFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer(scratch.options(maxUploadBytes: 1000)) { client in
            try expectError(try await client.upload(nativeTrace(updates: 50)), .contentTooLarge)
        }
        // Without Content-Length the limit is enforced while streaming.
        let request = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/api/traces"),
            body: RequestBody(buffer: ByteBuffer(string: nativeTrace(updates: 50)))
        )
        let incoming = scratch.dataDirectory.appendingPathComponent("incoming")
        await #expect(throws: UploadReceiver.tooLarge(1000)) {
            let quota = StorageQuota(limits: .init(maxStoredBytes: .max, minFreeDiskBytes: 0, maxTraces: .max), freeDiskBytes: { nil })
            _ = try await UploadReceiver.receive(request, into: incoming, quota: quota, maxUploadBytes: 1000, logger: Logger(label: "test"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: incoming.path).isEmpty)
    }

    @Test func unsupportedMediaTypeIs415() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            try expectError(try await client.execute(
                uri: "/api/traces", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "a=b")
            ), .unsupportedMediaType)
        }
    }

    @Test func traceInfoHasEveryLaneAndCounts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace())
            let info = try await client.get("/api/traces/\(id)").json()
            #expect(info["app"] as? String == "Landmarks" && info["refreshRate"] as? Double == 120)
            #expect(info["recordedAt"] is NSNull)
            let lanes = try #require(info["lanes"] as? [[String: Any]])
            #expect(lanes.map { $0["id"] as? String } == ["update-groups", "long-view-body", "long-representable", "long-other", "view-body", "representable", "other", "hitches", "hangs", "cpu", "main-actor", "main-actor-waits"])
            let longBodies = try #require(lanes.first { $0["id"] as? String == "long-view-body" })
            #expect(longBodies["count"] as? Int == 2 && longBodies["red"] as? Int == 2 && longBodies["title"] as? String == "Long View Body Updates")
            let counts = try #require(info["counts"] as? [String: Int])
            #expect(counts == ["updates": 20, "updateGroups": 1, "nodes": 2, "edges": 1, "stateChanges": 0, "samples": 2, "hitches": 0, "hangs": 0, "tasks": 0, "taskStates": 0, "signposts": 0,
                              "processes": 1, "threads": 1, "importNotes": 0])
            let threads = try #require(info["threads"] as? [[String: Any]])
            #expect(threads.first?["isMain"] as? Bool == true && threads.first?["name"] as? String == "Main Thread")
            #expect((info["processes"] as? [[String: Any]])?.first?["pid"] as? Int == 42)

            try expectError(try await client.get("/api/traces/00000000000000000000000000000000"), .notFound)
        }
    }

    @Test func deleteRemovesUploadsButNotSamples() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            let id = try await client.uploadedID(nativeTrace())
            #expect(try await client.execute(uri: "/api/traces/\(id)", method: .delete).status == .noContent)
            try expectError(try await client.get("/api/traces/\(id)"), .notFound)
            try expectError(try await client.execute(uri: "/api/traces/\(id)", method: .delete), .notFound)
            try expectError(try await client.execute(uri: "/api/traces/\(try await client.sampleID())", method: .delete), .forbidden)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path).isEmpty)
    }

    @Test func uploadsSurviveARestart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let id = try await scratch.withServer { client in try await client.uploadedID(nativeTrace(), name: "kept.json") }
        try await scratch.withServer { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            #expect(list.first?["id"] as? String == id)
            #expect(list.first?["uploadedAt"] is String)
            #expect(try await client.get("/api/traces/\(id)").status == .ok)
            #expect(try await client.get("/api/traces/\(id)/updates/9").json()["severity"] as? String == "red")
            #expect(Scratch.unversioned(try await client.get("/traces/\(id)/updates/9").text) == Scratch.indexHTML)
        }
    }

    @Test func unknownAPIRouteIsJSON404() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            try expectError(try await client.get("/api/nothing-here"), .notFound)
            try expectError(try await client.get("/api/traces/x/y/z/w"), .notFound)
        }
    }
}
