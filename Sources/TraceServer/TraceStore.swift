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
        /// Every trace model alive (cached, or evicted but still used by a request), plus parses
        /// and loads in flight (by estimate): `MemoryBudget`.
        public var memoryBudgetBytes: Int
        /// Most bytes an upload may decompress to (a gzip bomb is refused, not read to the end).
        public var maxUploadReadBytes: Int64
        /// Most bytes of uploads (trace files and sidecars) kept on disk, all together.
        public var maxStoredBytes: Int64
        /// Most uploads kept.
        public var maxStoredTraces: Int
        /// Uploads are refused when they would leave less free disk space than this.
        public var minFreeDiskBytes: Int64
        /// Parses and cold loads at once; more wait their turn.
        public var maxConcurrentLoads: Int
        /// Free bytes of the data directory's disk; nil reads them from the file system (tests
        /// give their own to play a nearly full disk).
        public var freeDiskBytes: (@Sendable () -> Int64?)?

        public init(
            dataDirectory: URL, samplesDirectory: URL?, memoryBudgetBytes: Int, maxUploadReadBytes: Int64 = .max,
            maxStoredBytes: Int64 = .max, maxStoredTraces: Int = .max, minFreeDiskBytes: Int64 = 0, maxConcurrentLoads: Int = 2,
            freeDiskBytes: (@Sendable () -> Int64?)? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.samplesDirectory = samplesDirectory
            self.memoryBudgetBytes = memoryBudgetBytes
            self.maxUploadReadBytes = maxUploadReadBytes
            self.maxStoredBytes = maxStoredBytes
            self.maxStoredTraces = maxStoredTraces
            self.minFreeDiskBytes = minFreeDiskBytes
            self.maxConcurrentLoads = maxConcurrentLoads
            self.freeDiskBytes = freeDiskBytes
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
        /// What an upload takes on disk (file and sidecar), as the quota counts it; 0 for samples.
        var diskBytes: Int64 = 0
        /// What the trace took in memory when last loaded: the estimate of its next load.
        var footprint: Int?
    }

    private struct CacheSlot {
        var loaded: LoadedTrace
        var lastUse: UInt64
    }

    public let configuration: Configuration
    private let logger: Logger
    private var entries: [String: Entry] = [:]
    private var cache: [String: CacheSlot] = [:]
    private var loading: [String: Task<LoadedTrace, any Error>] = [:]
    /// Uploads being written into `traces/`, with the requests for the same content waiting for them.
    private var commitsInFlight: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var useCounter: UInt64 = 0
    /// Every trace model alive and every load in flight.
    let memory: MemoryBudget
    /// Uploads on disk, and those being received.
    nonisolated let quota: StorageQuota
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
        memory = MemoryBudget(limit: configuration.memoryBudgetBytes)
        quota = StorageQuota(
            limits: .init(maxStoredBytes: configuration.maxStoredBytes, minFreeDiskBytes: configuration.minFreeDiskBytes, maxTraces: configuration.maxStoredTraces),
            freeDiskBytes: configuration.freeDiskBytes ?? StorageQuota.freeDiskBytes(of: configuration.dataDirectory)
        )
    }

    /// Opens (creating if needed) the data directory, lists stored uploads and the samples.
    public static func open(_ configuration: Configuration, logger: Logger) async throws -> TraceStore {
        let store = TraceStore(configuration: configuration, logger: logger)
        // A load waiting for memory the cache holds: evict for it (the budget cannot reach the actor itself).
        store.memory.onPressure { [weak store] in
            guard let store else { return }
            Task { await store.evictForWaitingLoads() }
        }
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

    /// Bytes of uploads on disk (trace files and sidecars).
    public nonisolated var storedBytes: Int64 { quota.storedBytes }

    // MARK: Loading

    /// The trace with this id, loading it if needed.
    public func trace(id: String) async throws(StoreError) -> Trace {
        try await loaded(id: id).trace
    }

    /// The trace with this id, loading it if needed (when memory allows: a load waits for
    /// traces other requests are done with). `alongside` is a trace the caller keeps using
    /// meanwhile (compare's first side): its memory is not waited for.
    public func loaded(id: String, alongside held: LoadedTrace? = nil) async throws(StoreError) -> LoadedTrace {
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
            let estimate = entry.footprint ?? memoryEstimate(ofFile: entry.file)
            loadsStarted += 1
            let (gate, memory, holding) = (loadGate, memory, held.map { [$0.memory] } ?? [])
            task = Task {
                let claim = try await memory.claim(estimate, holding: holding)
                return try await gate.run {
                    // An upload's id is the hash of its bytes: a replaced or damaged file is not served as that trace.
                    if !entry.record.isSample, Self.uploadID(content: try Self.contentID(of: entry.file).0, run: entry.record.run) != id {
                        throw StoreError.fileChanged(id: id)
                    }
                    let trace = try TraceImporter.importTrace(at: entry.file, displayName: entry.record.name, run: entry.record.run)
                    return LoadedTrace(id: id, trace: trace, memory: claim)
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

    /// Bytes of trace models alive and loads in flight, now and at most since the store opened.
    public nonisolated var memoryInUse: Int { memory.used }
    public nonisolated var peakMemoryInUse: Int { memory.peakUsed }

    /// Whether a trace is in memory now (for tests and diagnostics).
    public func isInMemory(id: String) -> Bool { cache[id] != nil }

    private func touch(_ id: String) {
        useCounter += 1
        cache[id]?.lastUse = useCounter
    }

    private func insert(_ loaded: LoadedTrace, id: String) {
        useCounter += 1
        cache[id] = CacheSlot(loaded: loaded, lastUse: useCounter)
        entries[id]?.footprint = loaded.memory.bytes
        evictOverBudget(keeping: id)
        evictForWaitingLoads()
    }

    /// Least recently used first, until every trace alive fits the budget; `keeping` (the trace
    /// just loaded) stays even if alone over budget. An evicted trace a request still uses is
    /// counted until the request ends.
    private func evictOverBudget(keeping: String? = nil) {
        while memory.used > memory.limit, let victim = leastRecentlyUsed(except: keeping) {
            evict(victim)
        }
    }

    /// Loads are waiting for memory: evict what the cache alone holds for them.
    private func evictForWaitingLoads() {
        while memory.isHoldingBackLoads, let victim = leastRecentlyUsed(except: nil) {
            evict(victim)
        }
    }

    private func leastRecentlyUsed(except kept: String?) -> String? {
        cache.filter { $0.key != kept }.min { $0.value.lastUse < $1.value.lastUse }?.key
    }

    private func evict(_ id: String) {
        guard let slot = cache.removeValue(forKey: id) else { return }
        logger.debug("evicted trace \(id) (\(slot.loaded.memory.bytes) bytes) from memory")
    }

    /// Memory a load of this file may take before its footprint is known: twice the text it
    /// reads (the model with its indexes took 1.4 times the JSON of a 20,000-update trace, and
    /// less than XML); for a gzip file that text is the most it is allowed to inflate to, since
    /// that is what the reader accepts.
    func memoryEstimate(ofFile file: URL) -> Int {
        let size = Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        var text = size
        if let handle = FileHandle(forReadingAtPath: file.path) {
            defer { try? handle.close() }
            if (try? handle.read(upToCount: 2)) == Data([0x1f, 0x8b]) { text = maxInflatedBytes(ofUpload: size) }
        }
        return Int(clamping: text.multipliedReportingOverflow(by: 2).partialValue)
    }

    /// Most bytes a trace file of `size` bytes is read to: a compressed one inflates at most
    /// `maxInflationRatio` times (at least `inflationFloor`), never past `maxUploadReadBytes`.
    func maxInflatedBytes(ofUpload size: Int64) -> Int64 {
        let (scaled, overflow) = size.multipliedReportingOverflow(by: Self.maxInflationRatio)
        return min(configuration.maxUploadReadBytes, max(Self.inflationFloor, overflow ? .max : scaled))
    }

    // MARK: Uploads

    public struct Added: Sendable {
        public var record: TraceRecord
        public var loaded: LoadedTrace
        /// False when the same content was uploaded before (or is a sample).
        public var isNew: Bool
    }

    /// Reads an upload received into `incomingDirectory` and commits it, or deletes it and
    /// throws when it is not a trace. Either way, the incoming file is gone afterwards.
    /// - Parameter run: the run of a several-run xctrace export to read (`?run=N`); nil or 1 reads run 1.
    public func add(_ received: ReceivedUpload, run requestedRun: Int? = nil) async throws(StoreError) -> Added {
        defer { try? FileManager.default.removeItem(at: received.file) }
        // Another run of the same file is another trace: its id covers the run too.
        let run = requestedRun == 1 ? nil : requestedRun
        let id = Self.uploadID(content: received.id, run: run)
        if entries[id] != nil {
            return Added(record: try record(id: id), loaded: try await loaded(id: id), isNew: false)
        }
        // Reserved when receiving started (or now, for an upload that came another way).
        let reservation: StorageQuota.Reservation
        if let reserved = received.reservation { reservation = reserved } else { reservation = try quota.reserve(bytes: received.size) }
        // Inflation is bounded by the upload's own size, so a small bomb fails in seconds.
        let maxBytes = maxInflatedBytes(ofUpload: received.size)
        let parsed: LoadedTrace
        do {
            let claim = try await memory.claim(memoryEstimate(ofFile: received.file))
            parsed = try await loadGate.run {
                LoadedTrace(id: id, trace: try TraceImporter.importTrace(at: received.file, displayName: received.name, maxBytes: maxBytes, run: run), memory: claim)
            }
        } catch {
            throw Self.storeError(error)
        }
        // The same content may have been committed, or be being committed, by another request
        // while this one parsed.
        while commitsInFlight[id] != nil {
            await withCheckedContinuation { commitsInFlight[id, default: []].append($0) }
        }
        if entries[id] != nil {
            return Added(record: try record(id: id), loaded: try await loaded(id: id), isNew: false)
        }
        commitsInFlight[id] = []
        defer { for waiter in commitsInFlight.removeValue(forKey: id) ?? [] { waiter.resume() } }
        let uploadedAt = Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let trace = parsed.trace
        let record = TraceRecord(id: id, trace: trace, sizeBytes: received.size, uploadedAt: uploadedAt, isSample: false, run: run)
        guard let sidecarData = try? JSONEncoder().encode(record) else {
            throw .storageFailure("The server could not write the trace's record.")
        }
        // Checked once more now that the sizes are known, before anything becomes visible.
        let diskBytes = received.size + Int64(sidecarData.count)
        try reservation.commit(bytes: diskBytes)
        let file = tracesDirectory.appendingPathComponent("\(id).trace")
        let (sidecarFile, tracesDirectory, logger) = (sidecar(id), tracesDirectory, logger)
        do {
            // fsync waits for the disk: on the blocking pool, never on the actor's (cooperative) thread.
            try await NIOThreadPool.singleton.runIfActive { () throws in
                do {
                    try UploadOrigin(name: received.name, run: run, uploadedAt: uploadedAt).attach(to: received.file)
                } catch {
                    logger.debug("stored trace \(id) without its origin (a rebuilt record will be named by its id): \(error)")
                }
                // Durable before visible: the bytes reach the disk before the rename, the rename
                // before the sidecar that commits it.
                try DurableFiles.sync(received.file)
                try? FileManager.default.removeItem(at: file)
                guard rename(received.file.path, file.path) == 0 else { throw SystemFailure.lastError("move an upload into traces/") }
                try DurableFiles.sync(tracesDirectory)
                try DurableFiles.write(sidecarData, to: sidecarFile)
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            quota.remove(bytes: diskBytes)
            logger.error("cannot store trace \(id): \(error)")
            throw Self.storeError(error)
        }
        entries[id] = Entry(record: record, file: file, diskBytes: diskBytes)
        insert(parsed, id: id)
        logger.info("stored trace \(id) '\(record.name)' (\(received.size) bytes, \(trace.updates.count) updates)")
        return Added(record: record, loaded: parsed, isNew: true)
    }

    private static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        // The file could not be opened or read: a server condition (no descriptor left, a disk
        // error), not a fault of the file.
        case let error as TraceFormatError where error.systemError != nil:
            SystemFailure(code: error.systemError ?? 0, action: "read a trace file").storeError
        case let error as TraceFormatError: .unreadable(error)
        case let error as SystemFailure: error.storeError
        // The request went away (its client left, or the server is stopping) while it waited.
        case is CancellationError: .shuttingDown
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
        quota.remove(bytes: entry.diskBytes)
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
                let diskBytes = size + Int64(data.count)
                quota.adopt(bytes: diskBytes)
                entries[id] = Entry(record: record, file: file, diskBytes: diskBytes)
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
        let rebuilt: TraceRecord? = try? await loadGate.run { () throws -> TraceRecord in
            let (contentID, size) = try Self.contentID(of: file)
            let origin = UploadOrigin.read(from: file)
            let name = origin?.name ?? id
            // Another run than the first has the id of its content and run: find the run (the
            // origin says which; without it, one of the runs the file holds).
            var run = origin?.run
            if Self.uploadID(content: contentID, run: run) != id { run = nil }
            var trace = try TraceImporter.importTrace(at: file, displayName: name, run: run)
            if Self.uploadID(content: contentID, run: run) != id {
                guard let found = trace.metadata.runs.first(where: { $0 != 1 && Self.uploadID(content: contentID, run: $0) == id }) else {
                    throw StoreError.fileChanged(id: id)
                }
                run = found
                trace = try TraceImporter.importTrace(at: file, displayName: name, run: found)
            }
            let uploadedAt = origin?.uploadedAt ?? (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)?
                .formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return TraceRecord(id: id, trace: trace, sizeBytes: size, uploadedAt: uploadedAt, isSample: false, run: run)
        }
        guard let rebuilt, let data = try? JSONEncoder().encode(rebuilt), (try? DurableFiles.write(data, to: sidecar(id))) != nil else {
            quarantine(file, reason: "it is not a readable trace with the content its name says")
            quarantine(sidecar(id), reason: "its trace was set aside")
            return
        }
        logger.warning("rebuilt the damaged or missing record of stored trace \(id) from its file")
        let diskBytes = rebuilt.sizeBytes + Int64(data.count)
        quota.adopt(bytes: diskBytes)
        entries[id] = Entry(record: rebuilt, file: file, diskBytes: diskBytes)
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
        let found = await withTaskGroup(of: (Entry, (Trace, String)?)?.self) { group in
            for name in names {
                let file = directory.appendingPathComponent(name)
                group.addTask { Self.indexSample(file, name: name, cacheDirectory: cacheDirectory, logger: logger) }
            }
            var found: [(Entry, (Trace, String)?)] = []
            for await result in group { if let result { found.append(result) } }
            return found
        }
        for (entry, loaded) in found where entries[entry.record.id] == nil {
            entries[entry.record.id] = Entry(record: entry.record, file: entry.file)
            if let (trace, id) = loaded { insert(LoadedTrace(id: id, trace: trace, memory: memory.claimNow(0)), id: id) }
        }
    }

    /// A sample's list entry, and the trace when it had to be read (the first time).
    private nonisolated static func indexSample(_ file: URL, name: String, cacheDirectory: URL, logger: Logger) -> (Entry, (Trace, String)?)? {
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
            return (Entry(record: record, file: file), (trace, id))
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
    static func sync(_ url: URL) throws(SystemFailure) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .lastError("open \(url.lastPathComponent) to sync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .lastError("sync \(url.lastPathComponent)") }
    }

    /// Writes to a temporary file, syncs it, renames it over `url`, syncs the directory.
    static func write(_ data: Data, to url: URL) throws(SystemFailure) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(RandomName.make()).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .lastError("create \(temporary.lastPathComponent)") }
        do throws(SystemFailure) {
            let failure: Int32 = data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += count
                }
                return fsync(descriptor) == 0 ? 0 : errno
            }
            let closed = close(descriptor) == 0 ? 0 : errno
            if failure != 0 || closed != 0 { throw SystemFailure(code: failure != 0 ? failure : closed, action: "write \(temporary.lastPathComponent)") }
            guard rename(temporary.path, url.path) == 0 else { throw SystemFailure.lastError("rename \(temporary.lastPathComponent)") }
            try sync(url.deletingLastPathComponent())
        } catch {
            unlink(temporary.path)
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
