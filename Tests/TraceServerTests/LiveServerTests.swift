import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Runs the real `tracesvc serve` binary (built by `swift build`) over HTTP.
@Suite(.serialized) struct LiveServerTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A running `tracesvc serve --port 0`; `base` is the URL it printed.
    final class Server {
        let process = Process()
        let base: URL

        init(dataDirectory: URL, scratch: Scratch) throws {
            let binary = LiveServerTests.packageRoot.appendingPathComponent(".build/debug/tracesvc")
            process.executableURL = binary
            process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory.path,
                                 "--web-root", scratch.webRoot.path, "--samples-dir", scratch.samples.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // The server prints "open http://host:port/" once it listens.
            var text = ""
            let deadline = Date().addingTimeInterval(60)
            while !text.contains("\n"), Date() < deadline, process.isRunning {
                text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            }
            guard let start = text.range(of: "http://"), let url = URL(string: String(text[start.lowerBound...].prefix { !$0.isWhitespace })) else {
                process.terminate()
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "server printed no URL: \(text)"])
            }
            base = url
        }

        /// SIGTERM, as a service manager would send; returns the exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    private func request(_ server: Server, _ path: String, method: String = "GET", body: Data? = nil) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: URL(string: path, relativeTo: server.base)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }

    @Test func uploadOverHTTPThenRestartAndOpenTheSameTrace() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Server(dataDirectory: scratch.dataDirectory, scratch: scratch)
        let id: String
        do {
            #expect(server.base.host == "127.0.0.1")
            let (data, response) = try await request(server, "/api/traces?name=live.json", method: "POST", body: Data(nativeTrace(updates: 25).utf8))
            #expect(response.statusCode == 201)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            id = try #require((json["trace"] as? [String: Any])?["id"] as? String)
            let (page, pageResponse) = try await request(server, "/traces/\(id)")
            #expect(pageResponse.statusCode == 200 && String(decoding: page, as: UTF8.self) == Scratch.indexHTML)
        } catch {
            _ = server.stop()
            throw error
        }
        #expect(server.stop() == 0, "SIGTERM shuts the server down cleanly")

        let restarted = try Server(dataDirectory: scratch.dataDirectory, scratch: scratch)
        defer { _ = restarted.stop() }
        let (list, _) = try await request(restarted, "/api/traces")
        let traces = try #require((try JSONSerialization.jsonObject(with: list) as? [String: Any])?["traces"] as? [[String: Any]])
        #expect(traces.map { $0["id"] as? String }.contains(id))
        let (info, infoResponse) = try await request(restarted, "/api/traces/\(id)/updates/9")
        #expect(infoResponse.statusCode == 200)
        #expect((try JSONSerialization.jsonObject(with: info) as? [String: Any])?["severity"] as? String == "red")
    }
}
