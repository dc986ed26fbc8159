import Crypto
import Foundation
import Logging
import NIOPosix
import TraceFormats
import TraceModel

/// What can go wrong with stored traces, in the store's terms; `APIError.init(_:)` is the one
/// place that turns it into HTTP.
public enum StoreError: Error, Sendable, Equatable {
    case unknownTrace(id: String)
    case readOnlySample(name: String)
    /// The file is not a trace (or not one we can read): where and why.
    case unreadable(TraceFormatError)
    /// The stored file no longer has the content its id was derived from (replaced or damaged).
    case fileChanged(id: String)
    /// Storing this upload would pass the quota or leave the disk too full.
    case storageFull(String)
    /// The data directory could not be read or written (the log has the system's error).
    case storageFailure(String)
    /// Too many loads running and waiting.
    case busy(String)
    case shuttingDown
}

/// Every trace the server knows (uploads persisted in the data directory, plus the read-only
/// samples), and the ones in memory: loaded on demand, shared by concurrent requests while
/// loading, and evicted least-recently-used when over the memory budget.
///
/// Data directory layout: `traces/<id>.trace` (the uploaded bytes) committed by its sidecar
/// `traces/<id>.json` (a `TraceRecord`); `incoming/` holds uploads being received;
/// `samples/<id>.json` caches the list entries of samples so a restart does not re-read them;
/// `quarantine/` receives stored files the server cannot explain (never deleted).
public actor TraceStore {
    public struct Configuration: Sendable {
        public var dataDirectory: URL
        public var samplesDirectory: URL?
        /// Traces in memory, plus parses and loads in flight (estimated from their file sizes).
        public var memoryBudgetBytes: Int
        /// Most bytes an upload may decompress to (a gzip bomb is refused, not read to the end).
        public var maxUploadReadBytes: Int64
        /// Most bytes of uploads kept on disk, all together.
        public var maxStoredBytes: Int64
        /// Uploads are refused when they would leave less free disk space than this.
        public var minFreeDiskBytes: Int64
        /// Parses and cold loads at once; more wait their turn.
        public var maxConcurrentLoads: Int

        public init(
            dataDirectory: URL, samplesDirectory: URL?, memoryBudgetBytes: Int, maxUploadReadBytes: Int64 = .max,
            maxStoredBytes: Int64 = .max, minFreeDiskBytes: Int64 = 0, maxConcurrentLoads: Int = 2
        ) {
            self.dataDirectory = dataDirectory
            self.samplesDirectory = samplesDirectory
            self.memoryBudgetBytes = memoryBudgetBytes
            self.maxUploadReadBytes = maxUploadReadBytes
            self.maxStoredBytes = maxStoredBytes
            self.minFreeDiskBytes = minFreeDiskBytes
            self.maxConcurrentLoads = maxConcurrentLoads
        }
    }

    /// A compressed upload may inflate to at most this many times its size (real exports gzip
    /// 10:1 to 30:1; a bomb of whitespace gzips 1000:1 and would cost minutes of CPU).
    public static let maxInflationRatio: Int64 = 100
    /// ...but small files may always inflate this far.
    static let inflationFloor: Int64 = 64 << 20

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
    /// Estimated bytes of parses and loads in flight (counted against the budget too).
    public private(set) var inFlightBytes = 0
    private let loadGate: WorkGate
    /// Loads from disk started since the store opened (concurrent requests share one).
    public private(set) var loadsStarted = 0

    nonisolated var tracesDirectory: URL { configuration.dataDirectory.appendingPathComponent("traces", isDirectory: true) }
    /// Where uploads are streamed to before they are known to be good: same file system as
    /// `traces/`, so committing one is a rename.
    public nonisolated var incomingDirectory: URL { configuration.dataDirectory.appendingPathComponent("incoming", isDirectory: true) }
    nonisolated var samplesCacheDirectory: URL { configuration.dataDirectory.appendingPathComponent("samples", isDirectory: true) }
    nonisolated var quarantineDirectory: URL { configuration.dataDirectory.appendingPathComponent("quarantine", isDirectory: true) }

    private init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        loadGate = WorkGate(name: "trace loads", limit: configuration.maxConcurrentLoads, maxWaiting: 64)
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

    public func record(id: String) throws(StoreError) -> TraceRecord {
        guard let entry = entries[id] else { throw .unknownTrace(id: id) }
        return entry.record
    }

    /// Bytes of uploads on disk.
    public var storedBytes: Int64 { entries.values.reduce(0) { $0 + ($1.record.isSample ? 0 : $1.record.sizeBytes) } }

    // MARK: Loading

    /// The trace with this id, loading it if needed.
    public func trace(id: String) async throws(StoreError) -> Trace {
        try await loaded(id: id).trace
    }

    public func loaded(id: String) async throws(StoreError) -> LoadedTrace {
        guard let entry = entries[id] else { throw .unknownTrace(id: id) }
        if let slot = cache[id] {
            touch(id)
            return slot.loaded
        }
        let task: Task<LoadedTrace, any Error>
        if let running = loading[id] {
            task = running
        } else {
            // A task of its own (not the request's) so that concurrent requests share one load.
            let estimate = Self.memoryEstimate(ofFile: entry.file)
            reserve(estimate)
            loadsStarted += 1
            let gate = loadGate
            task = Task {
                // The task runs on this actor: the reservation ends with the load, once, whoever awaits it.
                defer { release(estimate) }
                return try await gate.run {
                    // An upload's id is the hash of its bytes: a replaced or damaged file is not served as that trace.
                    if !entry.record.isSample, Self.uploadID(content: try Self.contentID(of: entry.file).0, run: entry.record.run) != id {
                        throw StoreError.fileChanged(id: id)
                    }
                    let trace = try TraceImporter.importTrace(at: entry.file, displayName: entry.record.name, run: entry.record.run)
                    return LoadedTrace(id: id, trace: trace)
                }
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
            throw Self.storeError(error)
        }
    }

    /// Most parses and loads that ran at once since the store opened.
    public var peakConcurrentLoads: Int { get async { await loadGate.peakRunning } }

    /// Whether a trace is in memory now (for tests and diagnostics).
    public func isInMemory(id: String) -> Bool { cache[id] != nil }

    private func touch(_ id: String) {
        useCounter += 1
        cache[id]?.lastUse = useCounter
    }

    private func insert(_ loaded: LoadedTrace, id: String) {
        let bytes = loaded.trace.memoryFootprint + TimelineIndex.expectedFootprint(of: loaded.trace)
            + ComparisonSideCache.expectedFootprint(of: loaded.trace)
        useCounter += 1
        cache[id] = CacheSlot(loaded: loaded, bytes: bytes, lastUse: useCounter)
        cachedBytes += bytes
        evictOverBudget(keeping: id)
    }

    /// Least recently used first; `keeping` (the trace just loaded) stays even if alone over budget.
    private func evictOverBudget(keeping: String? = nil) {
        while cachedBytes + inFlightBytes > configuration.memoryBudgetBytes,
              let victim = cache.filter({ $0.key != keeping }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
            evict(victim.key)
        }
    }

    private func reserve(_ bytes: Int) {
        inFlightBytes += bytes
        evictOverBudget()
    }

    private func release(_ bytes: Int) { inFlightBytes -= bytes }

    private func evict(_ id: String) {
        guard let slot = cache.removeValue(forKey: id) else { return }
        cachedBytes -= slot.bytes
        logger.debug("evicted trace \(id) (\(slot.bytes) bytes) from memory")
    }

    /// Memory a parse of this file may take: about its size for plain files (the model is
    /// smaller than JSON or XML text); a gzip file inflates about tenfold.
    nonisolated static func memoryEstimate(ofFile file: URL) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return size }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 2)) ?? Data()
        return magic == Data([0x1f, 0x8b]) ? size.multipliedReportingOverflow(by: 10).partialValue : size
    }

    // MARK: Uploads

    public struct Added: Sendable {
        public var record: TraceRecord
        public var loaded: LoadedTrace
        /// False when the same content was uploaded before (or is a sample).
        public var isNew: Bool
    }

    /// Bytes an upload may still take on disk: within the quota, and leaving the reserve free.
    public func uploadAllowance() -> Int64 {
        let quotaLeft = configuration.maxStoredBytes - storedBytes
        let free = (try? FileManager.default.attributesOfFileSystem(forPath: configuration.dataDirectory.path)[.systemFreeSize] as? Int64) ?? .max
        return max(0, min(quotaLeft, free - configuration.minFreeDiskBytes))
    }

    /// Reads an upload received into `incomingDirectory` and commits it, or deletes it and
    /// throws when it is not a trace. Either way, the incoming file is gone afterwards.
    /// - Parameter run: the run of a several-run xctrace export to read (`?run=N`); nil or 1 reads run 1.
    public func add(_ received: ReceivedUpload, run requestedRun: Int? = nil) async throws(StoreError) -> Added {
        defer { try? FileManager.default.removeItem(at: received.file) }
        // Another run of the same file is another trace: its id covers the run too.
        let run = requestedRun == 1 ? nil : requestedRun
        let upload = ReceivedUpload(file: received.file, id: Self.uploadID(content: received.id, run: run), size: received.size, name: received.name)
        if entries[upload.id] != nil {
            return Added(record: try record(id: upload.id), loaded: try await loaded(id: upload.id), isNew: false)
        }
        guard upload.size <= uploadAllowance() else {
            throw .storageFull("Storing \(upload.size >> 20) MB more would pass this server's storage quota (--max-stored-mb) or fill its disk; delete traces you no longer need.")
        }
        // Inflation is bounded by the upload's own size, so a small bomb fails in seconds.
        let (scaled, overflow) = upload.size.multipliedReportingOverflow(by: Self.maxInflationRatio)
        let maxBytes = min(configuration.maxUploadReadBytes, max(Self.inflationFloor, overflow ? .max : scaled))
        let estimate = Self.memoryEstimate(ofFile: upload.file)
        reserve(estimate)
        defer { release(estimate) }
        let parsed: LoadedTrace
        do {
            parsed = try await loadGate.run {
                LoadedTrace(id: upload.id, trace: try TraceImporter.importTrace(at: upload.file, displayName: upload.name, maxBytes: maxBytes, run: run))
            }
        } catch {
            throw Self.storeError(error)
        }
        // The same content may have been committed by another request while this one parsed.
        if entries[upload.id] != nil {
            return Added(record: try record(id: upload.id), loaded: try await loaded(id: upload.id), isNew: false)
        }
        let uploadedAt = Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let trace = parsed.trace
        let record = TraceRecord(id: upload.id, trace: trace, sizeBytes: upload.size, uploadedAt: uploadedAt, isSample: false, run: run)
        let file = tracesDirectory.appendingPathComponent("\(upload.id).trace")
        do {
            // Durable before visible: the bytes reach the disk before the rename, the rename
            // before the sidecar that commits it.
            try DurableFiles.sync(upload.file)
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: upload.file, to: file)
            try DurableFiles.sync(tracesDirectory)
            try DurableFiles.write(JSONEncoder().encode(record), to: sidecar(upload.id))
        } catch {
            try? FileManager.default.removeItem(at: file)
            logger.error("cannot store trace \(upload.id): \(error)")
            throw .storageFailure("The server could not write the trace to its data directory.")
        }
        entries[upload.id] = Entry(record: record, file: file)
        insert(parsed, id: upload.id)
        logger.info("stored trace \(upload.id) '\(record.name)' (\(upload.size) bytes, \(trace.updates.count) updates)")
        return Added(record: record, loaded: parsed, isNew: true)
    }

    private static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as TraceFormatError: .unreadable(error)
        case let error as WorkGate.Busy: .busy(error.detail)
        case is NIOThreadPoolError.ThreadPoolInactive: .shuttingDown
        default: .storageFailure("The server could not read the trace from its data directory.")
        }
    }

    public func delete(id: String) throws(StoreError) {
        guard let entry = entries[id] else { throw .unknownTrace(id: id) }
        guard !entry.record.isSample else { throw .readOnlySample(name: entry.record.name) }
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
        // Uploads cut off by a shutdown or crash are discarded whole: they were never committed.
        for leftover in (try? files.contentsOfDirectory(atPath: incomingDirectory.path)) ?? [] {
            try? files.removeItem(at: incomingDirectory.appendingPathComponent(leftover))
        }
        let stored = try files.contentsOfDirectory(atPath: tracesDirectory.path)
        for name in stored where name.hasSuffix(".trace") {
            let id = String(name.dropLast(".trace".count))
            let file = tracesDirectory.appendingPathComponent(name)
            if let data = files.contents(atPath: sidecar(id).path),
               let record = try? JSONDecoder().decode(TraceRecord.self, from: data), record.id == id,
               let size = try? files.attributesOfItem(atPath: file.path)[.size] as? Int64, size == record.sizeBytes {
                entries[id] = Entry(record: record, file: file)
            } else {
                // A missing or damaged sidecar (or a size that does not match it): rebuild it
                // from the file when the file is what its name says; otherwise set it aside.
                await recover(id: id, file: file)
            }
        }
        // Sidecars without their trace file commit nothing.
        for name in stored where name.hasSuffix(".json") && entries[String(name.dropLast(".json".count))] == nil {
            quarantine(tracesDirectory.appendingPathComponent(name), reason: "its trace file is missing")
        }
        try await scanSamples()
    }

    private func recover(id: String, file: URL) async {
        let logger = logger
        let rebuilt: TraceRecord? = try? await loadGate.run { () throws -> TraceRecord in
            let (contentID, size) = try Self.contentID(of: file)
            guard contentID == id else { throw StoreError.fileChanged(id: id) }
            let trace = try TraceImporter.importTrace(at: file, displayName: id)
            let uploadedAt = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)?
                .formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return TraceRecord(id: id, trace: trace, sizeBytes: size, uploadedAt: uploadedAt, isSample: false)
        }
        guard let rebuilt, (try? DurableFiles.write(JSONEncoder().encode(rebuilt), to: sidecar(id))) != nil else {
            quarantine(file, reason: "it is not a readable trace with the content its name says")
            quarantine(sidecar(id), reason: "its trace was set aside")
            return
        }
        logger.warning("rebuilt the damaged or missing record of stored trace \(id) from its file")
        entries[id] = Entry(record: rebuilt, file: file)
    }

    /// Moves a stored file the server cannot explain out of the way; it is never deleted.
    private func quarantine(_ file: URL, reason: String) {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try? FileManager.default.createDirectory(at: quarantineDirectory, withIntermediateDirectories: true)
        let target = quarantineDirectory.appendingPathComponent("\(Int(Date.now.timeIntervalSince1970))-\(file.lastPathComponent)")
        do {
            try FileManager.default.moveItem(at: file, to: target)
            logger.warning("moved \(file.lastPathComponent) to \(target.path): \(reason)")
        } catch {
            logger.error("cannot move \(file.path) aside (\(reason)): \(error)")
        }
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

    /// An upload's id: its content's, or for another run than the first a hash of that and the run.
    nonisolated static func uploadID(content: String, run: Int?) -> String {
        guard let run else { return content }
        return traceID(SHA256.hash(data: Data("\(content) run \(run)".utf8)))
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

/// Writes that survive a power cut: data and directory entries flushed before they count.
enum DurableFiles {
    /// fsync of a file or a directory.
    static func sync(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
    }

    /// Writes to a temporary file, syncs it, renames it over `url`, syncs the directory.
    static func write(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
            try sync(temporary)
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
            try sync(url.deletingLastPathComponent())
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
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
