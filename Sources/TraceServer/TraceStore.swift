import Crypto
import Foundation
import Logging
import NIOPosix
import TraceFormats
import TraceModel

/// Every trace the server knows (uploads persisted in the data directory, plus the read-only
/// samples), and the ones in memory: loaded on demand, shared by concurrent requests while
/// loading, and evicted least-recently-used when over the memory budget.
///
/// Data directory layout: `traces/<id>.trace` (the uploaded bytes) committed by its sidecar
/// `traces/<id>.json` (a `TraceRecord`); `incoming/` holds uploads being received;
/// `samples/<id>.json` caches the list entries of samples so a restart does not re-read them.
public actor TraceStore {
    public struct Configuration: Sendable {
        public var dataDirectory: URL
        public var samplesDirectory: URL?
        public var memoryBudgetBytes: Int
        /// Most bytes an upload may decompress to (a gzip bomb is refused, not read to the end).
        public var maxUploadReadBytes: Int64

        public init(dataDirectory: URL, samplesDirectory: URL?, memoryBudgetBytes: Int, maxUploadReadBytes: Int64 = .max) {
            self.dataDirectory = dataDirectory
            self.samplesDirectory = samplesDirectory
            self.memoryBudgetBytes = memoryBudgetBytes
            self.maxUploadReadBytes = maxUploadReadBytes
        }
    }

    struct Entry: Sendable {
        var record: TraceRecord
        var file: URL
    }

    private struct CacheSlot {
        var loaded: LoadedTrace
        var bytes: Int
        var lastUse: UInt64
    }

    public let configuration: Configuration
    private let logger: Logger
    private var entries: [String: Entry] = [:]
    private var cache: [String: CacheSlot] = [:]
    private var loading: [String: Task<LoadedTrace, any Error>] = [:]
    private var useCounter: UInt64 = 0
    /// Estimated bytes of the traces in memory.
    public private(set) var cachedBytes = 0

    nonisolated var tracesDirectory: URL { configuration.dataDirectory.appendingPathComponent("traces", isDirectory: true) }
    /// Where uploads are streamed to before they are known to be good: same file system as
    /// `traces/`, so committing one is a rename.
    public nonisolated var incomingDirectory: URL { configuration.dataDirectory.appendingPathComponent("incoming", isDirectory: true) }
    nonisolated var samplesCacheDirectory: URL { configuration.dataDirectory.appendingPathComponent("samples", isDirectory: true) }

    private init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Opens (creating if needed) the data directory, lists stored uploads and the samples.
    public static func open(_ configuration: Configuration, logger: Logger) async throws -> TraceStore {
        let store = TraceStore(configuration: configuration, logger: logger)
        try await store.scan()
        return store
    }

    // MARK: Listing

    /// Newest upload first, samples last (by name).
    public func list() -> [TraceRecord] {
        entries.values.map(\.record).sorted { a, b in
            if a.isSample != b.isSample { return !a.isSample }
            if a.uploadedAt != b.uploadedAt { return (a.uploadedAt ?? "") > (b.uploadedAt ?? "") }
            return (a.name, a.id) < (b.name, b.id)
        }
    }

    public func record(id: String) throws(APIError) -> TraceRecord {
        guard let entry = entries[id] else { throw .unknownTrace(id) }
        return entry.record
    }

    // MARK: Loading

    /// The trace with this id, loading it if needed. For routes in other files (the graph).
    public func trace(id: String) async throws(APIError) -> Trace {
        try await loaded(id: id).trace
    }

    public func loaded(id: String) async throws(APIError) -> LoadedTrace {
        guard let entry = entries[id] else { throw .unknownTrace(id) }
        if let slot = cache[id] {
            touch(id)
            return slot.loaded
        }
        let task: Task<LoadedTrace, any Error>
        if let running = loading[id] {
            task = running
        } else {
            // A task of its own (not the request's) so that concurrent requests share one load.
            task = Task {
                try await Self.loadOffPool(entry.file, name: entry.record.name, id: id)
            }
            loading[id] = task
        }
        do {
            let loaded = try await task.value
            loading[id] = nil
            if cache[id] == nil, entries[id] != nil { insert(loaded, id: id) }
            touch(id)
            return loaded
        } catch {
            loading[id] = nil
            logger.error("cannot load trace \(id) from \(entry.file.path): \(error)")
            if let formatError = error as? TraceFormatError { throw .unreadable(formatError) }
            throw APIError(.internalServerError, "cannot load trace", detail: "\(error)")
        }
    }

    /// Whether a trace is in memory now (for tests and diagnostics).
    public func isInMemory(id: String) -> Bool { cache[id] != nil }

    private func touch(_ id: String) {
        useCounter += 1
        cache[id]?.lastUse = useCounter
    }

    private func insert(_ loaded: LoadedTrace, id: String) {
        let bytes = loaded.trace.memoryFootprint + TimelineIndex.expectedFootprint(of: loaded.trace)
        useCounter += 1
        cache[id] = CacheSlot(loaded: loaded, bytes: bytes, lastUse: useCounter)
        cachedBytes += bytes
        // Least recently used first; the trace just loaded stays even if it alone is over budget.
        while cachedBytes > configuration.memoryBudgetBytes,
              let victim = cache.filter({ $0.key != id }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
            evict(victim.key)
        }
    }

    private func evict(_ id: String) {
        guard let slot = cache.removeValue(forKey: id) else { return }
        cachedBytes -= slot.bytes
        logger.debug("evicted trace \(id) (\(slot.bytes) bytes) from memory")
    }

    // MARK: Uploads

    public struct Added: Sendable {
        public var record: TraceRecord
        public var loaded: LoadedTrace
        /// False when the same content was uploaded before (or is a sample).
        public var isNew: Bool
    }

    /// Reads an upload received into `incomingDirectory` and commits it, or deletes it and
    /// throws 422 when it is not a trace. Either way, the incoming file is gone afterwards.
    public func add(_ upload: ReceivedUpload) async throws(APIError) -> Added {
        defer { try? FileManager.default.removeItem(at: upload.file) }
        if entries[upload.id] != nil {
            let loaded = try await loaded(id: upload.id)
            return Added(record: try record(id: upload.id), loaded: loaded, isNew: false)
        }
        let parsed: LoadedTrace
        do {
            parsed = try await Self.loadOffPool(upload.file, name: upload.name, id: upload.id, maxBytes: configuration.maxUploadReadBytes)
        } catch let error as TraceFormatError {
            throw .unreadable(error)
        } catch {
            throw APIError(.serviceUnavailable, "server is shutting down", detail: "\(error)")
        }
        // The same content may have been committed by another request while this one parsed.
        if entries[upload.id] != nil {
            let loaded = try await loaded(id: upload.id)
            return Added(record: try record(id: upload.id), loaded: loaded, isNew: false)
        }
        let uploadedAt = Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let trace = parsed.trace
        let record = TraceRecord(id: upload.id, trace: trace, sizeBytes: upload.size, uploadedAt: uploadedAt, isSample: false)
        let file = tracesDirectory.appendingPathComponent("\(upload.id).trace")
        do {
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: upload.file, to: file)
            // The sidecar commits the upload: without it, a restart deletes the data file.
            try JSONEncoder().encode(record).write(to: sidecar(upload.id), options: .atomic)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw APIError(.internalServerError, "cannot store trace", detail: "\(error)")
        }
        entries[upload.id] = Entry(record: record, file: file)
        insert(parsed, id: upload.id)
        logger.info("stored trace \(upload.id) '\(record.name)' (\(upload.size) bytes, \(trace.updates.count) updates)")
        return Added(record: record, loaded: parsed, isNew: true)
    }

    /// Parsing a big file takes seconds of blocking work: it runs on NIO's blocking thread pool,
    /// not on this actor nor on the cooperative pool (two threads here), so other requests go on.
    private nonisolated static func loadOffPool(_ file: URL, name: String, id: String, maxBytes: Int64 = .max) async throws -> LoadedTrace {
        try await runOffPool { LoadedTrace(id: id, trace: try TraceImporter.importTrace(at: file, displayName: name, maxBytes: maxBytes)) }
    }

    /// Runs seconds of blocking work on NIO's blocking thread pool, not the cooperative one.
    nonisolated static func runOffPool<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    public func delete(id: String) throws(APIError) {
        guard let entry = entries[id] else { throw .unknownTrace(id) }
        guard !entry.record.isSample else {
            throw APIError(.forbidden, "read-only trace", detail: "\(entry.record.name) is a sample; samples cannot be deleted.")
        }
        try? FileManager.default.removeItem(at: sidecar(id))
        try? FileManager.default.removeItem(at: entry.file)
        entries[id] = nil
        evict(id)
    }

    private nonisolated func sidecar(_ id: String) -> URL {
        tracesDirectory.appendingPathComponent("\(id).json")
    }

    // MARK: Startup

    private func scan() async throws {
        let files = FileManager.default
        for directory in [tracesDirectory, incomingDirectory, samplesCacheDirectory] {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        // Uploads cut off by a shutdown or crash are discarded whole.
        for leftover in (try? files.contentsOfDirectory(atPath: incomingDirectory.path)) ?? [] {
            try? files.removeItem(at: incomingDirectory.appendingPathComponent(leftover))
        }
        let stored = try files.contentsOfDirectory(atPath: tracesDirectory.path)
        for name in stored where name.hasSuffix(".json") {
            let id = String(name.dropLast(".json".count))
            let file = tracesDirectory.appendingPathComponent("\(id).trace")
            guard files.fileExists(atPath: file.path),
                  let data = files.contents(atPath: sidecar(id).path),
                  let record = try? JSONDecoder().decode(TraceRecord.self, from: data), record.id == id
            else {
                logger.warning("discarding unreadable stored trace \(id)")
                try? files.removeItem(at: sidecar(id))
                try? files.removeItem(at: file)
                continue
            }
            entries[id] = Entry(record: record, file: file)
        }
        for name in stored where name.hasSuffix(".trace") && entries[String(name.dropLast(".trace".count))] == nil {
            try? files.removeItem(at: tracesDirectory.appendingPathComponent(name))
        }
        try await scanSamples()
    }

    private func scanSamples() async throws {
        guard let directory = configuration.samplesDirectory else { return }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.gz") }
            .sorted()
        let cacheDirectory = samplesCacheDirectory
        let logger = logger
        // Hash and (first time only) read the samples in parallel, off the actor.
        let found = await withTaskGroup(of: (Entry, LoadedTrace?)?.self) { group in
            for name in names {
                let file = directory.appendingPathComponent(name)
                group.addTask { Self.indexSample(file, name: name, cacheDirectory: cacheDirectory, logger: logger) }
            }
            var found: [(Entry, LoadedTrace?)] = []
            for await result in group { if let result { found.append(result) } }
            return found
        }
        for (entry, loaded) in found where entries[entry.record.id] == nil {
            entries[entry.record.id] = Entry(record: entry.record, file: entry.file)
            if let loaded { insert(loaded, id: entry.record.id) }
        }
    }

    private nonisolated static func indexSample(_ file: URL, name: String, cacheDirectory: URL, logger: Logger) -> (Entry, LoadedTrace?)? {
        do {
            let (id, size) = try contentID(of: file)
            let cached = cacheDirectory.appendingPathComponent("\(id).json")
            if let data = FileManager.default.contents(atPath: cached.path),
               let record = try? JSONDecoder().decode(TraceRecord.self, from: data) {
                return (Entry(record: record, file: file), nil)
            }
            let trace = try TraceImporter.importTrace(at: file, displayName: name)
            let record = TraceRecord(id: id, trace: trace, sizeBytes: size, uploadedAt: nil, isSample: true)
            try? JSONEncoder().encode(record).write(to: cached, options: .atomic)
            return (Entry(record: record, file: file), LoadedTrace(id: id, trace: trace))
        } catch {
            logger.error("skipping sample \(file.path): \(error)")
            return nil
        }
    }

    /// The content-derived id (first 128 bits of SHA-256, hex) and size of a file.
    nonisolated static func contentID(of file: URL) throws -> (String, Int64) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (traceID(hasher.finalize()), size)
    }
}

/// Lowercase hex of the first 16 bytes of a digest.
func traceID(_ digest: SHA256.Digest) -> String {
    let hex = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in digest.prefix(16) {
        text.append(hex[Int(byte >> 4)])
        text.append(hex[Int(byte & 0xf)])
    }
    return String(decoding: text, as: UTF8.self)
}
