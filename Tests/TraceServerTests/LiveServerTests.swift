import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Runs the real `tracesvc serve` binary (built by `swift build`) over HTTP.
@Suite(.serialized) struct LiveServerTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The `tracesvc` under test: this package's debug build, or TRACESVC_BIN (another build, to
    /// see a test fail on it).
    static let binary = ProcessInfo.processInfo.environment["TRACESVC_BIN"].map { URL(fileURLWithPath: $0) }
        ?? packageRoot.appendingPathComponent(".build/debug/tracesvc")

    /// A running `tracesvc serve --port 0`; `base` is the URL it printed.
    final class Server {
        let process = Process()
        let base: URL
        /// What the server printed when it started.
        let printed: String

        /// - Parameter fileLimit: the open-file limit (ulimit -n) the server runs with.
        init(dataDirectory: URL, scratch: Scratch, arguments: [String] = [], fileLimit: Int? = nil) throws {
            let serve = ["serve", "--port", "0", "--data-dir", dataDirectory.path,
                         "--web-root", scratch.webRoot.path, "--samples-dir", scratch.samples.path] + arguments
            if let fileLimit {
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", LiveServerTests.binary.path] + serve
            } else {
                process.executableURL = LiveServerTests.binary
                process.arguments = serve
            }
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
            // A second line (the write token) may follow the first; read it only if it is there
            // (availableData would block on a server that says nothing more).
            var poller = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if text.contains("write token") == false, poll(&poller, 1, 300) > 0 {
                text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            }
            // Always talk to it on loopback, whatever address it listens on.
            base = URL(string: "http://127.0.0.1:\(url.port ?? 80)/")!
            printed = text
            // Its log goes on to stdout: read it away, or a full pipe stops the server mid-test.
            let reader = output.fileHandleForReading
            Thread.detachNewThread { while !reader.availableData.isEmpty {} }
        }

        /// SIGTERM, as a service manager would send; returns the exit status, or nil (and kills
        /// the server) when it has not exited within `seconds`, so a regression fails, not hangs.
        func stop(within seconds: Double = 30) -> Int32? {
            process.terminate()
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            guard !process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
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
            #expect(pageResponse.statusCode == 200 && Scratch.unversioned(String(decoding: page, as: UTF8.self)) == Scratch.indexHTML)
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

    @Test func shutdownDuringAStalledUploadDiscardsItWhole() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: ["--shutdown-grace", "1"])
        let port = try #require(server.base.port)
        // A client that sends the head of a 10 MB upload and 100 KB of it, then goes quiet.
        let client = try StalledClient(port: port, head: "POST /api/traces?name=stalled.json HTTP/1.1\r\nHost: localhost\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\n" + String(repeating: " ", count: 100_000))
        defer { client.close() }
        let incoming = scratch.dataDirectory.appendingPathComponent("incoming")
        let deadline = Date().addingTimeInterval(10)
        while (try FileManager.default.contentsOfDirectory(atPath: incoming.path)).isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: incoming.path).isEmpty, "the upload is being received")

        #expect(server.stop(within: 8) == 0, "SIGTERM shuts down cleanly after the grace period, not when the client gives up")
        #expect(try FileManager.default.contentsOfDirectory(atPath: incoming.path).isEmpty, "no partial file is left")
        let stored = try FileManager.default.contentsOfDirectory(atPath: scratch.dataDirectory.appendingPathComponent("blobs").path)
        #expect(stored.isEmpty, "nothing half-stored")
    }
}

/// A TCP client that sends `head` and then nothing more, holding the connection open.
final class StalledClient {
    private let socketFD: Int32

    /// - Parameter source: the local address to connect from (any of 127.0.0.0/8 on Linux), to
    ///   play another client.
    init(port: Int, head: String, from source: String? = nil) throws {
        #if canImport(Glibc)
        socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socketFD = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard socketFD >= 0, connected == 0 else { throw CocoaError(.fileReadUnknown) }
        let bytes = Array(head.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw CocoaError(.fileWriteUnknown) }
            sent += n
        }
    }

    /// Sends more bytes; false when the connection is gone.
    func sendMore(_ text: String) -> Bool {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)  // a closed peer is an answer here, not a reason to die of SIGPIPE
        #else
        let flags: Int32 = 0
        #endif
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, flags) }
        return n == bytes.count
    }

    /// What the server sends until it closes the connection or `seconds` pass; `closed` tells which.
    func readUntilClosed(within seconds: Double) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
            if ready <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(socketFD, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received.append(contentsOf: buffer[..<n])
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(socketFD)
        #else
        _ = Darwin.close(socketFD)
        #endif
    }
}
