import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TraceServer

/// A trace file in the native format: `updates` view-body updates of "LandmarkListItemView"
/// every 100 us (every 10th one long), an @Observable cause on the first, a few CPU samples.
func nativeTrace(updates: Int = 20, app: String = "Landmarks") -> String {
    var rows: [String] = []
    for i in 0..<updates {
        let duration = i % 10 == 9 ? 1_200_000 : 40_000
        rows.append("[\(1_000_000 + i * 100_000),\(duration),\"view-body\",\"Landmarks\",\"LandmarkListItemView\",\"\",\"\",0,0,0,\"none\"]")
    }
    let end = 1_000_000 + updates * 100_000 + 2_000_000
    return """
    {"format":"tracesvc-trace","version":1,
    "metadata":{"app":"\(app)","device":"iPhone 16 Pro","osVersion":"18.0","refreshRate":120,"recordedAt":null,"start":0,"end":\(end),"importNotes":[]},
    "processes":[[42,"\(app)"]],
    "threads":[[7,"Main Thread",0,true]],
    "updateGroups":[[900000,\(end - 1_000_000),"Transaction",0]],
    "updates":[\(rows.joined(separator: ","))],
    "nodes":[["observable","@Observable ModelData","",true,1,900000,null],["view-body","LandmarkListItemView","",true,2,1000000,0]],
    "edges":[[0,1,"update","favoritesCollection",1000000,0]],
    "frames":[["main","\(app)",true],["body","\(app)",true]],
    "stacks":[[null,0],[0,1]],
    "samples":[[1000000,0,1000000,1],[2000000,0,1000000,0]]
    }
    """
}

/// A scratch folder with a web root (including a symlink that leads out of it), a samples
/// folder with one sample, and an empty data folder.
/// One folder for this test process's temporary files, removed when it exits: a test that forgets
/// `remove()` (or fails before it) must not leave its folder behind.
let testFilesRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-server-tests-\(getpid())")
    atexit { try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-server-tests-\(getpid())")) }
    return root
}()

struct Scratch {
    let root: URL
    var dataDirectory: URL { root.appendingPathComponent("data") }
    var webRoot: URL { root.appendingPathComponent("web") }
    var samples: URL { root.appendingPathComponent("samples") }
    static let indexHTML = "<!doctype html><title>tracesvc</title><script type=module src=/js/app.js></script>"

    /// An app page as served, with its scripts named under the web root's version (`/v/HASH/js/`,
    /// VersionedStaticFilesTests) named as in `indexHTML` again.
    static func unversioned(_ page: String) -> String {
        page.replacing(#/=/v/[0-9a-f]+/js//#, with: "=/js/")
    }

    init() throws {
        root = testFilesRoot.appendingPathComponent(UUID().uuidString)
        let files = FileManager.default
        for folder in ["web/js", "web/css", "web/icons", "samples", "data"] {
            try files.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data(Self.indexHTML.utf8).write(to: webRoot.appendingPathComponent("index.html"))
        try Data("export const answer = 42;\n".utf8).write(to: webRoot.appendingPathComponent("js/app.js"))
        try Data("body { color: black }\n".utf8).write(to: webRoot.appendingPathComponent("css/app.css"))
        try Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8).write(to: webRoot.appendingPathComponent("icons/logo.svg"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.txt"))
        try files.createSymbolicLink(at: webRoot.appendingPathComponent("js/leak.js"), withDestinationURL: root.appendingPathComponent("secret.txt"))
        try Data(nativeTrace(updates: 30, app: "SampleApp").utf8).write(to: samples.appendingPathComponent("sample-app.json"))
    }

    func options(maxUploadBytes: Int64 = 64 << 20, memoryBudgetBytes: Int = 1 << 30) -> ServerOptions {
        var options = ServerOptions(dataDirectory: dataDirectory)
        options.webRoot = webRoot
        options.samplesDirectory = samples
        options.maxUploadBytes = maxUploadBytes
        options.memoryBudgetBytes = memoryBudgetBytes
        options.port = 0
        return options
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Runs `body` against an in-process server on this scratch folder.
    func withServer<T: Sendable>(
        _ options: ServerOptions? = nil, _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let app = try await buildApplication(options: options ?? self.options(), logger: Logger(label: "test"))
        return try await app.test(.router, body)
    }
}

extension TestResponse {
    func json() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
    }
    var text: String { String(buffer: body) }
}

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    func upload(_ text: String, name: String = "landmarks.json") async throws -> TestResponse {
        try await execute(uri: "/api/traces?name=\(name)", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: text))
    }

    func uploadedID(_ text: String, name: String = "landmarks.json") async throws -> String {
        let response = try await upload(text, name: name)
        #expect(response.status == .created || response.status == .ok, "\(response.text)")
        let trace = try #require(try response.json()["trace"] as? [String: Any])
        return try #require(trace["id"] as? String)
    }

    func sampleID() async throws -> String {
        let list = try #require(try await get("/api/traces").json()["traces"] as? [[String: Any]])
        return try #require(list.first { $0["isSample"] as? Bool == true }?["id"] as? String)
    }
}

/// Checks the JSON error shape and status.
func expectError(_ response: TestResponse, _ status: HTTPResponse.Status, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
    #expect(response.headers[.contentType] == "application/json; charset=utf-8", sourceLocation: sourceLocation)
    let json = try response.json()
    #expect(json["error"] is String && json["detail"] is String, sourceLocation: sourceLocation)
    #expect(json.keys.contains("location"), sourceLocation: sourceLocation)
}
