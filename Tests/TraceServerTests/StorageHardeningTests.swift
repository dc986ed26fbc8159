import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TraceStorage
@testable import TraceServer

/// Issue 24, items 5 to 8: the data directory under pressure (descriptors, quota, disk, memory)
/// and the recovery of damaged records.
@Suite struct StorageHardeningTests {
    // MARK: 5. File descriptors and error bodies

    @Test func randomNamesDoNotRepeat() {
        let names = (0..<10_000).map { _ in RandomName.make() }
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func anUploadTheServerCannotStoreNamesNoPathAndNoSystemDump() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try await scratch.withServer { client in
            // The incoming folder replaced by a file: creating the upload's file fails (ENOTDIR).
            let incoming = scratch.dataDirectory.appendingPathComponent("incoming")
            try FileManager.default.removeItem(at: incoming)
            try Data("not a folder".utf8).write(to: incoming)
            for (contentType, body) in [("application/json", nativeTrace()), ("multipart/form-data; boundary=XX", "--XX\r\n")] {
                let response = try await client.execute(
                    uri: "/api/traces?name=a.json", method: .post, headers: [.contentType: contentType], body: ByteBuffer(string: body)
                )
                try expectError(response, .internalServerError)
                #expect(!response.text.contains(scratch.root.path) && !response.text.contains("/incoming"), "\(response.text)")
                #expect(!response.text.contains("Error Domain") && !response.text.contains("errno"), "\(response.text)")
            }
        }
    }

    // MARK: 8. Recovery of a damaged record

    @Test func aGarbledSidecarOfAnotherRunIsRebuiltWithItsRun() async throws {
        // A data directory of the sidecar layout holding a ?run=2 upload whose sidecar is damaged:
        // its id is the hash of the content and the run, not of the content.
        let scratch = try Scratch()
        defer { scratch.remove() }
        let traces = scratch.dataDirectory.appendingPathComponent("traces")
        try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
        let bytes = Data(twoRunExport().utf8)
        let content = String(SigV4.hex(SHA256.hash(data: bytes)).prefix(32))
        let id = TraceStore.uploadID(content: content, run: 2)
        try bytes.write(to: traces.appendingPathComponent("\(id).trace"))
        try Data("{\"id\": garbled".utf8).write(to: traces.appendingPathComponent("\(id).json"))
        try await scratch.withServer { client in
            let list = try #require(try await client.get("/api/traces").json()["traces"] as? [[String: Any]])
            let record = try #require(list.first { $0["id"] as? String == id }, "the intact trace is kept, not quarantined")
            #expect(record["run"] as? Int == 2)
            let info = try await client.get("/api/traces/\(id)").json()
            #expect(((info["counts"] as? [String: Any])?["hangs"] as? Int) == 2, "run 2 is read again, not run 1")
        }
        let quarantine = scratch.dataDirectory.appendingPathComponent("quarantine")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: quarantine.path)) ?? []).isEmpty)
    }

    // MARK: 6. Quota and disk

    /// A trace of about `kilobytes` KB (distinct per `seed`).
    private func trace(seed: Int, kilobytes: Int = 40) -> String { nativeTrace(updates: kilobytes * 10 + seed, app: "Orchard\(seed)") }

    /// The blobs stored: how many, and their bytes.
    private func storedOnDisk(_ scratch: Scratch) throws -> (files: Int, bytes: Int64) {
        let traces = scratch.dataDirectory.appendingPathComponent("blobs")
        let names = try FileManager.default.contentsOfDirectory(atPath: traces.path)
        let bytes = try names.reduce(Int64(0)) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: traces.appendingPathComponent(name).path)[.size] as? Int64) ?? 0)
        }
        return (names.count, bytes)
    }

    @Test func concurrentUploadsCannotPassTheQuotaTogether() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let size = (0..<10).map { trace(seed: $0).utf8.count }.max()!
        var options = scratch.options()
        // Room for three uploads and their sidecars, not four.
        options.maxStoredBytes = Int64(3 * (size + Int(StorageQuota.recordAllowance)) + 100)
        let statuses = try await scratch.withServer(options) { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for seed in 0..<10 {
                    group.addTask { try await client.upload(trace(seed: seed), name: "t\(seed).json").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.filter { $0 == .created }.count == 3, "\(statuses)")
        #expect(statuses.filter { $0.code == 507 }.count == 7, "\(statuses)")
        let stored = try storedOnDisk(scratch)
        #expect(stored.files == 3 && stored.bytes + 3 * StorageQuota.recordAllowance <= options.maxStoredBytes, "\(stored)")
    }

    @Test func everyTraceCostsItsRecordAndTheNumberOfTracesIsBounded() async throws {
        let tiny = (0..<4).map { trace(seed: $0, kilobytes: 1) }
        // Room for three tiny traces with their records; their bytes alone would fit many more.
        let scratch = try Scratch()
        defer { scratch.remove() }
        var options = scratch.options()
        options.maxStoredBytes = Int64(tiny.map(\.utf8.count).max()! * 3) + 3 * StorageQuota.recordAllowance + 100
        try await scratch.withServer(options) { client in
            for seed in 0..<3 { _ = try await client.uploadedID(tiny[seed], name: "tiny\(seed).json") }
            let fourth = try await client.upload(tiny[3], name: "tiny3.json")
            try expectError(fourth, .init(code: 507))
            #expect(fourth.text.contains("--max-stored-mb"), "\(fourth.text)")
        }
        let counted = try Scratch()
        defer { counted.remove() }
        var few = counted.options()
        few.maxStoredTraces = 3
        try await counted.withServer(few) { client in
            for seed in 0..<3 { _ = try await client.uploadedID(tiny[seed], name: "tiny\(seed).json") }
            let fourth = try await client.upload(tiny[3], name: "tiny3.json")
            try expectError(fourth, .init(code: 507))
            #expect(fourth.text.contains("--max-traces"), "\(fourth.text)")
        }
    }

    /// A disk of `capacity` bytes holding the uploads (being received and stored; the catalog
    /// is left out, its growth is not what this plays): free space goes down as they are written.
    private func disk(_ scratch: Scratch, capacity: Int64) -> @Sendable () -> Int64? {
        let folders = ["incoming", "blobs"].map { scratch.dataDirectory.appendingPathComponent($0).path }
        return {
            // A stored blob is the incoming file hard-linked: one inode, counted once.
            var seen: [UInt64: Int64] = [:]
            for folder in folders {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                    var info = stat()
                    guard stat("\(folder)/\(name)", &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                    seen[UInt64(info.st_ino)] = Int64(info.st_size)
                }
            }
            return capacity - seen.values.reduce(0, +)
        }
    }

    @Test func anUploadIsCountedOnceAgainstFreeSpaceAndConcurrentOnesAllOfThem() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let size = Int64(trace(seed: 0).utf8.count)
        var options = scratch.options()
        options.minFreeDiskBytes = 1 << 20
        // One upload (and its sidecar) fits above the reserve, with little to spare.
        options.freeDiskBytes = disk(scratch, capacity: options.minFreeDiskBytes + size * 3 / 2 + StorageQuota.recordAllowance)
        try await scratch.withServer(options) { client in
            let response = try await client.upload(trace(seed: 0), name: "fits.json")
            #expect(response.status == .created, "counted once, not again once it is on disk: \(response.text)")
        }
        let crowded = try Scratch()
        defer { crowded.remove() }
        var shared = crowded.options()
        shared.minFreeDiskBytes = 1 << 20
        // Two of six fit.
        let largest = Int64((0..<6).map { trace(seed: $0).utf8.count }.max()!)
        shared.freeDiskBytes = disk(crowded, capacity: shared.minFreeDiskBytes + 2 * (largest + StorageQuota.recordAllowance) + 2000)
        let statuses = try await crowded.withServer(shared) { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for seed in 0..<6 {
                    group.addTask { try await client.upload(trace(seed: seed), name: "t\(seed).json").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.filter { $0 == .created }.count == 2, "\(statuses)")
        #expect(statuses.filter { $0.code == 507 }.count == 4, "\(statuses)")
    }

    // MARK: 7. Memory budget

    private func storeWithUploads(_ scratch: Scratch, count: Int, budget: Int) async throws -> (TraceStore, [String]) {
        let logger = Logger(label: "test")
        let writer = try await TraceStore.open(.init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30), logger: logger)
        var ids: [String] = []
        for seed in 0..<count {
            let file = try IncomingFile(in: writer.incomingDirectory)
            try file.write(ByteBuffer(string: nativeTrace(updates: 20_000 + seed, app: "Orchard\(seed)")))
            let sha256 = try file.finish()
            let upload = ReceivedUpload(file: file.url, id: String(sha256.prefix(32)), sha256: sha256, size: file.written, name: "orchard\(seed).json")
            ids.append(try await writer.add(upload).record.id)
        }
        // A fresh store: nothing in memory.
        var configuration = TraceStore.Configuration(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: budget, maxConcurrentLoads: 2)
        // These tests are about the order of loads, not the wait's deadline (MemoryWaitTests): on a
        // loaded machine five 20,000-update loads one at a time can take longer than the default 30 s.
        configuration.memoryWait = .seconds(600)
        let store = try await TraceStore.open(configuration, logger: logger)
        return (store, ids)
    }

    /// What one of `storeWithUploads`' traces takes in memory once loaded (they differ by a few updates).
    private func footprint(_ scratch: Scratch) async throws -> Int {
        let (store, ids) = try await storeWithUploads(scratch, count: 1, budget: 1 << 30)
        let loaded = try await store.loaded(id: ids[0])
        return loaded.memory.bytes
    }

    @Test func aLoadWaitsWhileARequestStillHoldsAnEvictedTrace() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let bytes = try await footprint(scratch)
        let (store, ids) = try await storeWithUploads(try Scratch(), count: 2, budget: bytes * 3 / 2)
        var held: LoadedTrace? = try await store.loaded(id: ids[0])
        let done = ProbeLog()
        let second = Task {
            _ = try await store.loaded(id: ids[1])
            await done.add("loaded")
        }
        // Until the second load waits for memory and the cache has let the first go (a loaded
        // machine may take seconds to get there).
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, await done.entries.isEmpty {
            let firstInMemory = await store.isInMemory(id: ids[0])
            if store.loadsWaitingForMemory == 1, !firstInMemory { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(store.loadsWaitingForMemory == 1, "the second load waits for memory")
        #expect(await done.entries.isEmpty, "the second trace does not fit beside the first, which a request still holds")
        #expect(await !store.isInMemory(id: ids[0]), "the cache let go of the first for the waiting load")
        #expect(held?.trace.updates.count == 20_000)
        held = nil
        try await second.value
        #expect(await done.entries == ["loaded"])
        #expect(store.peakMemoryInUse <= bytes * 3 / 2 + bytes / 10)
    }

    @Test func coldLoadsThatDoNotFitTogetherRunOneAtATime() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let bytes = try await footprint(try Scratch())
        let (store, ids) = try await storeWithUploads(scratch, count: 5, budget: bytes * 3 / 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { _ = try await store.summaryOfLoad(id) } }
            try await group.waitForAll()
        }
        #expect(await store.peakConcurrentLoads == 1, "two traces never fit the budget together")
        #expect(store.peakMemoryInUse <= bytes * 3 / 2 + bytes / 10, "\(store.peakMemoryInUse) of \(bytes * 3 / 2)")
    }

    @Test func aGzipFileIsEstimatedAtTheMostItMayInflateTo() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let plain = scratch.root.appendingPathComponent("t.json")
        try Data(nativeTrace(updates: 5000).utf8).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -k '\(plain.path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let compressed = scratch.root.appendingPathComponent("t.json.gz")
        let size = Int64(try Data(contentsOf: compressed).count)
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30, maxUploadReadBytes: 1 << 40), logger: Logger(label: "test")
        )
        let estimate = Int64(store.memoryEstimate(ofFile: compressed))
        #expect(estimate >= max(TraceStore.maxInflationRatio * size, 64 << 20), "the reader accepts this much: \(estimate)")
        #expect(store.memoryEstimate(ofFile: plain) >= (try Data(contentsOf: plain).count))
    }
}

extension TraceStore {
    /// Loads a trace and reads its summary while holding it, as a request would.
    func summaryOfLoad(_ id: String) async throws -> Int {
        let loaded = try await loaded(id: id)
        return loaded.trace.summary(in: nil, filter: .all).processes.count
    }
}

/// The real binary under a small open-file limit (issue 24, item 5).
@Suite(.serialized) struct StorageLiveTests {
    @Test func slowUploadsPastTheOpenFileLimitAreStoredOrTurnedAwayNeverA500() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // No minimum body rate: under a loaded machine this test's own clients may send late, and
        // what it plays is the open-file limit, not a slow client.
        let server = try LiveServerTests.Server(dataDirectory: scratch.dataDirectory, scratch: scratch, arguments: ["--min-upload-rate", "0"], fileLimit: 128)
        defer { _ = server.stop() }
        let port = try #require(server.base.port)
        // 120 uploads from six addresses, each sending half its body, the rest a second later.
        var clients: [(StalledClient, String)] = []
        for index in 0..<120 {
            let body = nativeTrace(updates: 300 + index, app: "Orchard")
            let half = body.index(body.startIndex, offsetBy: body.count / 2)
            let head = "POST /api/traces?name=u\(index).json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body[..<half]
            if let client = try? StalledClient(port: port, head: head, from: "127.0.0.\(2 + index % 6)") { clients.append((client, String(body[half...]))) }
        }
        try await Task.sleep(for: .seconds(1))
        for (client, rest) in clients { _ = client.sendMore(rest) }
        var answers: [String] = []
        for (client, _) in clients {
            answers.append(client.readUntilClosed(within: 30).text)
            client.close()
        }
        let stored = answers.filter { $0.hasPrefix("HTTP/1.1 201") }.count
        let busy = answers.filter { $0.hasPrefix("HTTP/1.1 503") }.count
        let unanswered = answers.filter(\.isEmpty).count
        // Alone, about half are stored; with the whole suite on two cores all may be turned away
        // (then the server must still store the next upload, below).
        #expect(stored + busy + unanswered == answers.count, "stored \(stored), busy \(busy), turned away \(unanswered): \(Set(answers.map { $0.prefix(12) }))")
        for answer in answers {
            #expect(!answer.contains(scratch.root.path) && !answer.contains("incoming") && !answer.contains("Error Domain"), "\(answer.suffix(300))")
        }
        // Every stored upload is whole and its own. The server may still be closing the turned-away
        // connections (on a loaded machine, a second or two): it must answer within ten seconds.
        let (list, _) = try await retrying(for: .seconds(10)) { try await URLSession.shared.data(from: URL(string: "/api/traces", relativeTo: server.base)!) }
        let traces = try #require((try JSONSerialization.jsonObject(with: list) as? [String: Any])?["traces"] as? [[String: Any]])
        #expect(traces.filter { $0["isSample"] as? Bool == false }.count == stored)
        // The server took no harm: the next upload is stored.
        var upload = URLRequest(url: URL(string: "/api/traces?name=after.json", relativeTo: server.base)!)
        upload.httpMethod = "POST"
        let (_, response) = try await retrying(for: .seconds(10)) { try await URLSession.shared.upload(for: upload, from: Data(nativeTrace(updates: 999, app: "Orchard").utf8)) }
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
    }

    /// `body` until it does not throw, or its last error once `limit` has passed.
    private func retrying<T>(for limit: Duration, _ body: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + limit
        while true {
            do { return try await body() } catch where ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        }
    }
}
