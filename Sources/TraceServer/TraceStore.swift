import Crypto
import Foundation
import Logging
import NIOPosix
import TraceFormats
import TraceModel
import TraceStorage

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
    /// The request went away while it waited or worked: its client left, or the server is stopping.
    case cancelled
    /// The catalog or the blob store is down, or answered with an error (named in it).
    case service(StorageError)
}

/// Every trace the server knows, and the ones in memory. Uploads are rows of the *catalog* with
/// their bytes in the *blob store* (both behind protocols: SQLite and files in the data
/// directory by default, PostgreSQL and an S3 bucket in team mode); samples are read-only files
/// of this server. Models are loaded on demand, shared by concurrent requests while loading,
/// and evicted least-recently-used when over the memory budget: a per-process cache that
/// another replica's delete evicts too (`maintain()`).
///
/// Data directory layout: `catalog.sqlite` and `blobs/<sha256>` (embedded mode); `incoming/`
/// holds uploads being received; `scratch/` blobs fetched from an object store while they are
/// read; `samples/<id>.json` caches the list entries of samples; `quarantine/` receives stored
/// files the server cannot explain (never deleted). A directory of the earlier layout
/// (`traces/<id>.trace` with `<id>.json` sidecars) is moved into the catalog at first start.
public actor TraceStore {
    public struct Configuration: Sendable {
        public var dataDirectory: URL
        public var samplesDirectory: URL?
        /// Every trace model alive (cached, or evicted but still used by a request), plus parses
        /// and loads in flight (by estimate): `MemoryBudget`.
        public var memoryBudgetBytes: Int
        /// How long a load waits for memory before it is refused with 503 (`MemoryBudget.maxWait`).
        public var memoryWait: Duration = .seconds(30)
        /// Most bytes an upload may decompress to (a gzip bomb is refused, not read to the end).
        public var maxUploadReadBytes: Int64
        /// Most bytes of uploads stored, all together (with `StorageQuota.recordAllowance` a trace).
        public var maxStoredBytes: Int64
        /// Most uploads kept.
        public var maxStoredTraces: Int
        /// Uploads are refused when they would leave less free disk space than this.
        public var minFreeDiskBytes: Int64
        /// Parses and cold loads at once; more wait their turn.
        public var maxConcurrentLoads: Int
        /// The catalog and blob store; nil is the embedded default in `dataDirectory`.
        public var storage: Storage?
        /// A blob no row names is swept once it is older than this (an upload in flight is never swept).
        public var sweepGrace: Duration
        /// Free bytes of the data directory's disk (where uploads arrive in every mode); nil reads
        /// them from the file system (tests give their own to play a nearly full disk).
        public var freeDiskBytes: (@Sendable () -> Int64?)?

        public init(
            dataDirectory: URL, samplesDirectory: URL?, memoryBudgetBytes: Int, maxUploadReadBytes: Int64 = .max,
            maxStoredBytes: Int64 = .max, maxStoredTraces: Int = .max, minFreeDiskBytes: Int64 = 0, maxConcurrentLoads: Int = 2,
            freeDiskBytes: (@Sendable () -> Int64?)? = nil, storage: Storage? = nil, sweepGrace: Duration = .seconds(3600)
        ) {
            self.dataDirectory = dataDirectory
            self.samplesDirectory = samplesDirectory
            self.memoryBudgetBytes = memoryBudgetBytes
            self.maxUploadReadBytes = maxUploadReadBytes
            self.maxStoredBytes = maxStoredBytes
            self.maxStoredTraces = maxStoredTraces
            self.freeDiskBytes = freeDiskBytes
            self.minFreeDiskBytes = minFreeDiskBytes
            self.maxConcurrentLoads = maxConcurrentLoads
            self.storage = storage
            self.sweepGrace = sweepGrace
        }
    }

    /// Where uploads are kept: what exists (catalog) and their bytes (blobs).
    public struct Storage: Sendable {
        public var catalog: any Catalog
        public var blobs: any BlobStore
        /// Other processes use the same catalog and blobs (team mode): blobs of deleted traces
        /// wait for the sweep's grace period instead of going at once.
        public var isShared: Bool

        public init(catalog: any Catalog, blobs: any BlobStore, isShared: Bool) {
            self.catalog = catalog
            self.blobs = blobs
            self.isShared = isShared
        }

        /// SQLite and files in the data directory.
        public static func embedded(in dataDirectory: URL) throws -> Storage {
            Storage(catalog: try SQLiteCatalog(file: dataDirectory.appendingPathComponent("catalog.sqlite")),
                    blobs: try FileBlobStore(directory: dataDirectory.appendingPathComponent("blobs", isDirectory: true)), isShared: false)
        }
    }

    /// A compressed upload may inflate to at most this many times its size (real exports gzip
    /// 10:1 to 30:1; a bomb of whitespace gzips 1000:1 and would cost minutes of CPU).
    public static let maxInflationRatio: Int64 = 100
    /// ...but small files may always inflate this far.
    static let inflationFloor: Int64 = 64 << 20

    struct Sample: Sendable {
        var record: TraceRecord
        var file: URL
    }

    private struct CacheSlot {
        var loaded: LoadedTrace
        var lastUse: UInt64
    }

    public let configuration: Configuration
    public nonisolated let storage: Storage
    let logger: Logger
    private(set) var samples: [String: Sample] = [:]
    /// Uploads whose history figures could not be made (unreadable now, bytes missing): not retried until restart.
    var unmeasurable: Set<String> = []
    private var cache: [String: CacheSlot] = [:]
    private var loading: [String: Task<LoadedTrace, any Error>] = [:]
    /// The claims the requests waiting for each load hold meanwhile (the load does not wait for them).
    private var loadSharers: [String: MemoryBudget.Sharers] = [:]
    private var useCounter: UInt64 = 0
    /// Blobs this process is writing (claimed, not yet named by a row) and sweeping: the two never overlap.
    private var blobsBeingWritten: [String: Int] = [:]
    private var blobsBeingSwept: Set<String> = []
    /// What the first picture did not need, being built after it (`prepareExtras`); for a new
    /// upload this ends with its history figures stored, which a history request waits for.
    var extrasInFlight: [String: ExtrasBuild] = [:]
    private var extrasBuilt = 0
    /// What each upload took in memory when last loaded here: the estimate of its next load.
    var footprints: [String: Int] = [:]
    /// Every trace model alive and every load in flight.
    let memory: MemoryBudget
    /// The part buffers of uploads streamed to the blob store (`PartBuffers`): their most, held
    /// from the budget for as long as the store is open, so models and parts together stay within it.
    private let partBuffersMemory: MemoryBudget.Claim?
    /// Uploads stored and being received, against the quota and the disk.
    nonisolated let quota: StorageQuota
    let loadGate: WorkGate
    /// Loads started since the store opened (concurrent requests share one).
    public private(set) var loadsStarted = 0

    /// Where uploads are streamed to before they are known to be good.
    public nonisolated var incomingDirectory: URL { configuration.dataDirectory.appendingPathComponent("incoming", isDirectory: true) }
    nonisolated var scratchDirectory: URL { configuration.dataDirectory.appendingPathComponent("scratch", isDirectory: true) }
    nonisolated var samplesCacheDirectory: URL { configuration.dataDirectory.appendingPathComponent("samples", isDirectory: true) }
    nonisolated var quarantineDirectory: URL { configuration.dataDirectory.appendingPathComponent("quarantine", isDirectory: true) }

    private init(configuration: Configuration, storage: Storage, logger: Logger) {
        self.configuration = configuration
        self.storage = storage
        self.logger = logger
        loadGate = WorkGate(name: "trace loads", limit: configuration.maxConcurrentLoads, maxWaiting: 64)
        let memory = MemoryBudget(limit: configuration.memoryBudgetBytes, maxWait: configuration.memoryWait)
        self.memory = memory
        partBuffersMemory = (storage.blobs as? any StreamingBlobStore).map { memory.claimNow($0.partBuffers.totalBytes) }
        quota = StorageQuota(
            limits: .init(maxStoredBytes: configuration.maxStoredBytes, minFreeDiskBytes: configuration.minFreeDiskBytes, maxTraces: configuration.maxStoredTraces),
            freeDiskBytes: configuration.freeDiskBytes ?? StorageQuota.freeDiskBytes(of: configuration.dataDirectory)
        )
    }

    /// Opens (creating if needed) the data directory and its storage, moves a directory of the
    /// earlier layout into the catalog, and lists the samples.
    public static func open(_ configuration: Configuration, logger: Logger) async throws -> TraceStore {
        let files = FileManager.default
        for directory in ["incoming", "scratch", "samples"] {
            try files.createDirectory(at: configuration.dataDirectory.appendingPathComponent(directory, isDirectory: true), withIntermediateDirectories: true)
        }
        let store = TraceStore(configuration: configuration, storage: try configuration.storage ?? .embedded(in: configuration.dataDirectory), logger: logger)
        // A load waiting for memory the cache holds: evict for it (the budget cannot reach the actor itself).
        store.memory.onPressure { [weak store] in
            guard let store else { return }
            Task { await store.evictForWaitingLoads() }
        }
        try await store.start()
        return store
    }

    // MARK: Listing

    /// Every upload `query` matches (newest first by default), then the samples that match (by name).
    public func list(_ query: CatalogQuery = CatalogQuery()) async throws(StoreError) -> [TraceRecord] {
        var records: [TraceRecord] = []
        var cursor: CatalogCursor?
        repeat {
            let page = try await page(query, limit: 1000, cursor: cursor)
            records += page.records
            cursor = page.next
        } while cursor != nil
        return records
    }

    /// The bytes of a trace as they were uploaded (a sample's file): a temporary copy when the
    /// blob store is remote (the caller deletes it).
    public func file(id: String) async throws(StoreError) -> BlobFile {
        if let sample = samples[id] { return BlobFile(url: sample.file, isTemporary: false) }
        guard let entry = try await service({ try await self.storage.catalog.entry(id: id) }) else { throw .unknownTrace(id: id) }
        let storage = storage, scratch = scratchDirectory
        return try await service { try await storage.blobs.localFile(key: entry.storedBlobKey, sha256: entry.sha256, scratch: scratch) }
    }

    /// At most `limit` uploads `query` matches after `cursor`, and how many match; the samples
    /// that match follow the last page (a sample has no tags and no upload time).
    public func page(_ query: CatalogQuery = CatalogQuery(), limit: Int, cursor: CatalogCursor?) async throws(StoreError) -> (records: [TraceRecord], next: CatalogCursor?, total: Int) {
        let page = try await service { try await self.storage.catalog.page(query, limit: limit, after: cursor) }
        let records = page.entries.map(TraceRecord.init(entry:))
        let samples = query.tags.isEmpty && query.uploadedFrom == nil && query.uploadedBefore == nil
            ? sampleRecords().filter { sample in
                let text = [sample.name, sample.app, sample.device].joined(separator: "\n").lowercased()
                return (query.name.map { sample.name.lowercased().contains($0.lowercased()) } ?? true)
                    && query.words.allSatisfy { text.contains($0.lowercased()) }
            }
            : []
        return (page.next == nil ? records + samples : records, page.next, page.total + samples.count)
    }

    private func sampleRecords() -> [TraceRecord] {
        samples.values.map(\.record).sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    public func record(id: String) async throws(StoreError) -> TraceRecord {
        if let sample = samples[id] { return sample.record }
        guard let entry = try await service({ try await self.storage.catalog.entry(id: id) }) else { throw .unknownTrace(id: id) }
        return TraceRecord(entry: entry)
    }

    /// Bytes of uploads stored.
    public func storedBytes() async throws(StoreError) -> Int64 {
        try await service { try await self.storage.catalog.totals().bytes }
    }

    /// The quota's stored traces and bytes as the catalog has them now (another replica may
    /// have added or deleted some); each upload is checked against them when it starts and
    /// again at commit.
    public func refreshQuota() async throws(StoreError) {
        let mark = quota.changeMark
        let totals = try await service { try await self.storage.catalog.totals() }
        quota.setStored(bytes: totals.bytes, traces: totals.count, readAfter: mark)
    }

    // MARK: Loading

    /// The trace with this id, loading it if needed.
    public func trace(id: String) async throws(StoreError) -> Trace {
        try await loaded(id: id).trace
    }

    /// A model in memory answers without asking the catalog: reads keep working while it is down.
    /// A load waits until memory allows it (for traces other requests are done with);
    /// `alongside` are traces the caller keeps using meanwhile (compare's sides loaded before this
    /// one): their memory is not waited for, nor that of the other requests sharing the load.
    /// `reservation`: memory claimed before for this load among others (`reserveMemory`).
    public func loaded(id: String, alongside held: [LoadedTrace] = []) async throws(StoreError) -> LoadedTrace {
        try await loaded(id: id, alongside: held, reservation: nil)
    }

    func loaded(id: String, alongside held: [LoadedTrace], reservation: MemoryBudget.Claim?) async throws(StoreError) -> LoadedTrace {
        if let slot = cache[id] {
            touch(id)
            TraceMetrics.cacheHits.increment()
            return slot.loaded
        }
        let task: Task<LoadedTrace, any Error>
        if let running = loading[id] {
            task = running
            joinLoad(id, holding: held)
        } else {
            let source: Source
            if let sample = samples[id] {
                source = .sample(sample)
            } else if let entry = try await service({ try await self.storage.catalog.entry(id: id) }) {
                source = .upload(entry)
            } else {
                throw .unknownTrace(id: id)
            }
            if let running = loading[id] {
                task = running
                joinLoad(id, holding: held)
            } else if let slot = cache[id] {
                touch(id)
                return slot.loaded
            } else {
                loadsStarted += 1
                TraceMetrics.cacheLoads.increment()
                // A task of its own (not the request's) so that concurrent requests share one load.
                let sharers = MemoryBudget.Sharers(held.map(\.memory))
                task = Task { try await self.load(id: id, from: source, sharers: sharers, reservation: reservation) }
                loading[id] = task
                loadSharers[id] = sharers
            }
        }
        do {
            let loaded = try await task.value
            loading[id] = nil
            loadSharers[id] = nil
            if cache[id] == nil { insert(loaded, id: id) }
            touch(id)
            return loaded
        } catch {
            loading[id] = nil
            loadSharers[id] = nil
            logger.error("cannot load trace \(id): \(error)")
            throw Self.storeError(error)
        }
    }

    /// A request waits for a load another started: the load no longer waits for what it holds.
    private func joinLoad(_ id: String, holding held: [LoadedTrace]) {
        guard !held.isEmpty, let sharers = loadSharers[id] else { return }
        sharers.add(held.map(\.memory))
        memory.sharersChanged()
    }

    /// Whether `id` needs a load (it is neither in memory nor being loaded), and what it is
    /// expected to take when it does (its last footprint here, else twice its file's size).
    func loadEstimate(of id: String) async throws(StoreError) -> Int? {
        guard cache[id] == nil, loading[id] == nil else { return nil }
        if let footprint = footprints[id] { return footprint }
        if let sample = samples[id] { return memoryEstimate(ofFile: sample.file) }
        guard let entry = try await service({ try await self.storage.catalog.entry(id: id) }) else { throw .unknownTrace(id: id) }
        return Int(clamping: entry.sizeBytes.multipliedReportingOverflow(by: 2).partialValue)
    }

    enum Source: Sendable {
        case sample(Sample)
        case upload(CatalogEntry)
    }

    /// Fetches the bytes (a local file, or a copy from the object store), checks them against
    /// their hash, and parses them within the load gate and the memory budget.
    private func load(id: String, from source: Source, sharers: MemoryBudget.Sharers, reservation: MemoryBudget.Claim?) async throws -> LoadedTrace {
        let file: BlobFile
        let name: String
        let run: Int?
        switch source {
        case let .sample(sample):
            (file, name, run) = (BlobFile(url: sample.file, isTemporary: false), sample.record.name, nil)
        case let .upload(entry):
            file = try await storage.blobs.localFile(key: entry.storedBlobKey, sha256: entry.sha256, scratch: scratchDirectory)
            (name, run) = (entry.name, entry.run)
        }
        defer { if file.isTemporary { try? FileManager.default.removeItem(at: file.url) } }
        // The claim goes with the trace (resized to its footprint), or with the load if it fails.
        let estimate = footprints[id] ?? memoryEstimate(ofFile: file.url)
        let reserved = reservation.flatMap { memory.take(estimate, from: $0) }
        let claim = if let reserved { reserved } else { try await memory.claim(estimate, sharers: sharers) }
        let verify: String? = if case let .upload(entry) = source, !file.isTemporary { entry.sha256 } else { nil }
        return try await loadGate.run {
            // A stored file is named by the hash of its bytes: a replaced or damaged one is not served as that trace
            // (a copy from the object store was checked while it arrived).
            if let verify, try sha256OfFile(file.url).hex != verify { throw StoreError.fileChanged(id: id) }
            let trace = try TraceImporter.importTrace(at: file.url, displayName: name, run: run)
            return LoadedTrace(id: id, trace: trace, memory: claim)
        }
    }

    /// Extras being built for one trace (`prepareExtras`).
    struct ExtrasBuild: Sendable {
        /// Tells this build from a later one of the same trace.
        let serial: Int
        /// Whether it ends with the history's figures of a new upload stored.
        let measures: Bool
        let task: Task<Void, Never>
    }

    /// Builds what a trace's first picture did not need (findings, summary and update lists, the
    /// comparison side and its cause fan-outs) after it, off the request path and within the
    /// load gate; `measure`: then stores the history's figures of a new upload. A request that
    /// needs one of these meanwhile builds or waits for that one only (`LoadedTrace`).
    func prepareExtras(of loaded: LoadedTrace, id: String, measure: Bool) {
        let earlier = extrasInFlight[id]
        // Being built already; a new upload's figures are still stored after a load's extras
        // (a load of the same id may start first: the background measuring asks for it).
        if let earlier, earlier.measures || !measure { return }
        extrasBuilt += 1
        let serial = extrasBuilt
        let gate = loadGate, catalog = storage.catalog, logger = logger
        let task = Task.detached(priority: .utility) { [weak self] in
            await earlier?.task.value
            do {
                let measurements = try await gate.run { () -> TraceMeasurements? in
                    loaded.prepareExtras()
                    return measure ? loaded.measurements() : nil
                }
                if let measurements {
                    let stored = try await catalog.storeMeasurements(
                        measurements, id: id, measuredVersion: Self.measuredVersion, parserVersion: TraceImporter.parserVersion
                    )
                    if !stored { logger.info("trace \(id) was deleted before its history figures were stored") }
                }
            } catch {
                // Requests build what they need meanwhile, and the background measuring stores
                // the history's figures later (`measureInBackground`); until then the history
                // counts this trace as pending.
                logger.warning("extras of trace \(id) left for later: \(error)")
            }
            await self?.extrasDone(id, serial: serial)
        }
        extrasInFlight[id] = ExtrasBuild(serial: serial, measures: measure, task: task)
    }

    private func extrasDone(_ id: String, serial: Int) {
        if extrasInFlight[id]?.serial == serial { extrasInFlight[id] = nil }
    }

    /// Waits until the extras being built for these traces (and the figures of new uploads) are done.
    func waitForExtras(of ids: [String]) async {
        for id in ids {
            // A later build may have replaced the one waited for: wait until none is left.
            while let building = extrasInFlight[id] { await building.task.value }
        }
    }

    /// Most parses and loads that ran at once since the store opened.
    public var peakConcurrentLoads: Int { get async { await loadGate.peakRunning } }

    /// Whether a trace is in memory now (for tests and diagnostics).
    public func isInMemory(id: String) -> Bool { cache[id] != nil }

    /// Whether every trace of `ids` is stored (without loading any): a model in memory answers
    /// without asking the catalog.
    func containsAll(_ ids: [String]) async throws(StoreError) -> Bool {
        for id in ids where cache[id] == nil && samples[id] == nil {
            guard try await service({ try await self.storage.catalog.entry(id: id) }) != nil else { return false }
        }
        return true
    }

    private func touch(_ id: String) {
        useCounter += 1
        cache[id]?.lastUse = useCounter
    }

    /// Bytes of trace models alive and loads in flight, now and at most since the store opened.
    public nonisolated var memoryInUse: Int { memory.used }
    public nonisolated var peakMemoryInUse: Int { memory.peakUsed }
    /// Loads waiting until the models that requests still hold are let go.
    public nonisolated var loadsWaitingForMemory: Int { memory.waiting }

    private func insert(_ loaded: LoadedTrace, id: String) {
        prepareExtras(of: loaded, id: id, measure: false)
        useCounter += 1
        cache[id] = CacheSlot(loaded: loaded, lastUse: useCounter)
        if samples[id] == nil { footprints[id] = loaded.memory.bytes }
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

    func evict(_ id: String) {
        guard let slot = cache.removeValue(forKey: id) else { return }
        TraceMetrics.cacheEvictions.increment()
        logger.debug("evicted trace \(id) (\(slot.loaded.memory.bytes) bytes) from memory")
    }

    /// Memory a load of this file (of `size` bytes when it is still arriving) may take before its footprint is known: twice the text it
    /// reads (the model with its indexes took 1.4 times the JSON of a 20,000-update trace, and
    /// less than XML); for a gzip file that text is the most it is allowed to inflate to, since
    /// that is what the reader accepts.
    nonisolated func memoryEstimate(ofFile file: URL, size knownSize: Int64? = nil) -> Int {
        let size = knownSize ?? Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        var text = size
        if let handle = FileHandle(forReadingAtPath: file.path) {
            defer { try? handle.close() }
            if (try? handle.read(upToCount: 2)) == Data([0x1f, 0x8b]) { text = maxInflatedBytes(ofUpload: size) }
        }
        return Int(clamping: text.multipliedReportingOverflow(by: 2).partialValue)
    }

    /// Most bytes a trace file of `size` bytes is read to: a compressed one inflates at most
    /// `maxInflationRatio` times (at least `inflationFloor`), never past `maxUploadReadBytes`.
    nonisolated func maxInflatedBytes(ofUpload size: Int64) -> Int64 {
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

    /// Starts reading an upload whose first bytes are on disk, following its file as it arrives
    /// (one pass: the request body is hashed, written and read at once). Within the memory
    /// budget (estimated from the declared length) and the load gate, on a thread of its own
    /// since it also waits for the network. `add` takes the trace; a failed upload `stop`s it.
    /// - Parameter requestedRun: as `add`'s.
    nonisolated func beginImport(of file: IncomingFile, name: String, declaredLength: Int64, run requestedRun: Int?) -> UploadImport {
        let run = requestedRun == 1 ? nil : requestedRun
        let url = file.url, growth = file.growth
        let estimate = memoryEstimate(ofFile: url, size: declaredLength)
        let maxBytes = maxInflatedBytes(ofUpload: declaredLength)
        let memory = memory, gate = loadGate
        return UploadImport(task: Task {
            let claim = try await memory.claim(estimate)
            let started = ContinuousClock.now
            let trace = try await gate.runOnOwnThread {
                try TraceImporter.importTrace(at: url, displayName: name, maxBytes: maxBytes, run: run, growth: growth)
            }
            return ImportedUpload(trace: trace, memory: claim, started: started)
        })
    }

    /// Reads an upload received into `incomingDirectory` and commits it: its blob first, then its
    /// catalog row, so no row ever names missing bytes. Deletes it and throws when it is not a
    /// trace. Either way, the incoming file is gone afterwards.
    /// - Parameter run: the run of a several-run xctrace export to read (`?run=N`); nil or 1 reads run 1.
    /// - Parameter tags: given with the upload (`?tag=`); an upload of content stored before sets them on that trace.
    public func add(_ received: ReceivedUpload, run requestedRun: Int? = nil, tags: [TraceTag] = []) async throws(StoreError) -> Added {
        // Whatever happens below, an import still reading the file stops (its trace and memory go).
        defer {
            received.importing?.task.cancel()
            try? FileManager.default.removeItem(at: received.file)
        }
        // Another run of the same file is another trace: its id covers the run too.
        let run = requestedRun == 1 ? nil : requestedRun
        let id = Self.uploadID(content: received.id, run: run)
        // The same bytes as a sample: that sample is the trace (samples are never stored as uploads).
        if let sample = samples[id] {
            await received.streamedBlob?.abort()
            TraceMetrics.uploads(.duplicate)
            return Added(record: sample.record, loaded: try await loadedDuplicate(id: id, received.importing), isNew: false)
        }
        let existing: CatalogEntry?
        do throws(StoreError) {
            existing = try await service({ try await self.storage.catalog.entry(id: id) })
        } catch {
            await received.streamedBlob?.abort()
            throw error
        }
        if let existing {
            await received.streamedBlob?.abort()
            TraceMetrics.uploads(.duplicate)
            return Added(record: try await adding(tags, to: existing), loaded: try await loadedDuplicate(id: id, received.importing), isNew: false)
        }
        // Reserved when receiving started (or now, for an upload that came another way).
        let reservation: StorageQuota.Reservation
        do throws(StoreError) {
            if let reserved = received.reservation { reservation = reserved } else { reservation = try quota.reserve(bytes: received.size) }
        } catch {
            await received.streamedBlob?.abort()
            TraceMetrics.uploads(.refused)
            throw error
        }
        // The blob is written while the trace is read, or was sent while it arrived (streamed):
        // the object store's upload and the import no longer add up. Every path below ends the
        // write: `finish` names it, `abandon` stops it and removes what it wrote.
        let write = if let streamed = received.streamedBlob {
            beginStreamedBlobWrite(streamed, sha256: received.sha256)
        } else {
            await beginBlobWrite(key: received.sha256, file: received.file, size: received.size)
        }
        // Where the time after the last byte goes (a debug log line): the import's tail, the
        // first picture's index, the blob and its row.
        var phases = UploadPhases()
        // Inflation is bounded by the upload's own size, so a small bomb fails in seconds.
        let maxBytes = maxInflatedBytes(ofUpload: received.size)
        let parsed: LoadedTrace
        var started = ContinuousClock.now
        do {
            if let importing = received.importing {
                // Read while it arrived: only its tail is left to wait for.
                let imported = try await importing.task.value
                started = imported.started
                phases.end("import tail")
                parsed = try await loadGate.run { LoadedTrace(id: id, trace: imported.trace, memory: imported.memory) }
                phases.end("first picture index")
            } else {
                let claim = try await memory.claim(memoryEstimate(ofFile: received.file))
                parsed = try await loadGate.run {
                    LoadedTrace(id: id, trace: try TraceImporter.importTrace(at: received.file, displayName: received.name, maxBytes: maxBytes, run: run), memory: claim)
                }
                phases.end("import")
            }
        } catch {
            await abandon(write)
            TraceMetrics.uploads(.refused)
            throw Self.storeError(error)
        }
        TraceMetrics.importDuration.record(duration: ContinuousClock.now - started)
        let trace = parsed.trace
        let entry = CatalogEntry(
            id: id, name: trace.metadata.name, app: trace.metadata.app, device: trace.metadata.device, durationNs: trace.metadata.duration,
            sizeBytes: received.size, sha256: received.sha256, sourceFormat: trace.metadata.sourceFormat, updateCount: trace.updates.count,
            run: run, uploadedAtMicros: CatalogEntry.nowMicros(), tags: tags.map(\.text), parserVersion: TraceImporter.parserVersion
        )
        // Checked once more, against the catalog as it is now, before anything becomes visible.
        do throws(StoreError) {
            try await refreshQuota()
            try reservation.commit(bytes: received.size)
            phases.end("quota")
        } catch {
            await abandon(write)
            TraceMetrics.uploads(.refused)
            throw error
        }
        let stored: (entry: CatalogEntry, isNew: Bool)
        do throws(StoreError) {
            // The history's figures are stored right after the answer (`prepareExtras`).
            stored = try await finish(write, entry: entry, measurements: nil)
            phases.end("blob and row")
        } catch {
            quota.settle(bytes: received.size, stored: false)
            throw error
        }
        quota.settle(bytes: received.size, stored: stored.isNew)
        if !stored.isNew {
            TraceMetrics.uploads(.duplicate)
            return Added(record: try await adding(tags, to: stored.entry), loaded: try await loaded(id: id), isNew: false)
        }
        prepareExtras(of: parsed, id: id, measure: true)
        if cache[id] == nil { insert(parsed, id: id) }
        TraceMetrics.uploads(.stored, bytes: received.size)
        logger.info("stored trace \(id) '\(entry.name)' (\(received.size) bytes, \(trace.updates.count) updates)")
        logger.debug("upload \(id) after its last byte: \(phases)")
        return Added(record: TraceRecord(entry: stored.entry), loaded: parsed, isNew: true)
    }

    /// The stored trace an upload of the same content names: the model read while it arrived
    /// when none is in memory (no second read from storage), else the one in memory.
    private func loadedDuplicate(id: String, _ importing: UploadImport?) async throws(StoreError) -> LoadedTrace {
        if cache[id] == nil, let importing, let imported = try? await importing.task.value, cache[id] == nil {
            let loaded = try await service { [loadGate] in
                try await loadGate.run { LoadedTrace(id: id, trace: imported.trace, memory: imported.memory) }
            }
            if cache[id] == nil { insert(loaded, id: id) }
        }
        return try await loaded(id: id)
    }

    /// Blob, then row. The blob is claimed first, so a sweep running meanwhile (here or on
    /// another replica) keeps it; a crash between the two leaves an unnamed blob for the sweep.
    func commit(_ entry: CatalogEntry, measurements: TraceMeasurements? = nil, file: URL) async throws(StoreError) -> (entry: CatalogEntry, isNew: Bool) {
        let write = await beginBlobWrite(key: entry.sha256, file: file, size: entry.sizeBytes)
        return try await finish(write, entry: entry, measurements: measurements)
    }

    /// A blob being written (claimed, then put) in a task of its own, so an upload's import runs
    /// meanwhile. Counted in `blobsBeingWritten` until `finish` or `abandon`, so no sweep here
    /// removes it in between.
    struct BlobWrite: Sendable {
        /// The key claimed in `blobsBeingWritten`.
        let key: String
        /// The key the row will name, and whether this write stored the bytes (false: they were there already).
        let task: Task<(key: String, stored: Bool), any Error>
    }

    func beginBlobWrite(key: String, file: URL, size: Int64) async -> BlobWrite {
        while blobsBeingSwept.contains(key) { try? await Task.sleep(for: .milliseconds(10)) }
        blobsBeingWritten[key, default: 0] += 1
        let storage = storage
        // Detached: the put must not run on this actor (a local store's fsync would hold it).
        let logger = logger
        return BlobWrite(key: key, task: Task.detached { () async throws -> (key: String, stored: Bool) in
            try await storage.catalog.claimBlob(key)
            let started = ContinuousClock.now
            let stored = try await storage.blobs.put(key: key, file: file, size: size)
            logger.debug("blob \(key.prefix(12)) stored in \((ContinuousClock.now - started).wholeMilliseconds) ms")
            return (key, stored)
        })
    }

    /// Starts sending an upload's blob while it arrives, when the blob store can (team mode) and
    /// the body is bigger than one part; nil otherwise (the blob is written once it is whole).
    nonisolated func beginStreamedBlob(file: URL, declaredLength: Int64) -> StreamedBlob? {
        guard let blobs = storage.blobs as? any StreamingBlobStore, declaredLength > Int64(blobs.partBytes) else { return nil }
        return StreamedBlob(store: blobs, file: file, logger: logger)
    }

    /// The end of a streamed blob, once its content hash is known: when a row already names a
    /// blob of that content, the stream is dropped and that blob is named (claimed first, so a
    /// sweep keeps it); otherwise the stream is completed under its own key (claimed first too).
    /// Any failure drops the stream: nothing stored.
    func beginStreamedBlobWrite(_ streamed: StreamedBlob, sha256: String) -> BlobWrite {
        blobsBeingWritten[streamed.key, default: 0] += 1
        let catalog = storage.catalog
        return BlobWrite(key: streamed.key, task: Task.detached { () async throws -> (key: String, stored: Bool) in
            do {
                try await streamed.partsSent()
                if let existing = try await catalog.blobKey(ofContent: sha256) {
                    try await catalog.claimBlob(existing)
                    // Still named after the claim: no sweep removes it before this upload's row names it too.
                    if try await catalog.blobKey(ofContent: sha256) == existing {
                        await streamed.abort()
                        return (existing, false)
                    }
                }
                try await catalog.claimBlob(streamed.key)
                try await streamed.complete()
                return (streamed.key, true)
            } catch {
                await streamed.abort()
                throw error
            }
        })
    }

    /// Row after blob: waits for the write, then names it. A streamed blob that ends up unnamed
    /// (the same trace was stored meanwhile, or the row could not be written) is removed now:
    /// no other upload knows its key.
    func finish(_ write: BlobWrite, entry: CatalogEntry, measurements: TraceMeasurements?) async throws(StoreError) -> (entry: CatalogEntry, isNew: Bool) {
        defer { endBlobWrite(write.key) }
        let storage = storage
        return try await service {
            let (key, stored) = try await write.task.value
            var entry = entry
            entry.blobKey = key == entry.sha256 ? nil : key
            let inserted: (entry: CatalogEntry, isNew: Bool)
            do {
                inserted = try await storage.catalog.insert(entry, measurements: measurements, measuredVersion: measurements == nil ? 0 : Self.measuredVersion)
            } catch {
                if stored, isStreamedBlobKey(key) { try? await storage.blobs.delete(key: key) }
                throw error
            }
            if !inserted.isNew, stored, isStreamedBlobKey(key) { try? await storage.blobs.delete(key: key) }
            return inserted
        }
    }

    /// An upload that will not be stored: its blob write stops, and bytes it stored are removed
    /// now when this process owns the storage, or when they are under a streamed upload's own key.
    /// Otherwise (shared storage, content key) the sweep removes them after the claim's grace
    /// period, since another replica may be storing the same bytes meanwhile.
    func abandon(_ write: BlobWrite) async {
        write.task.cancel()
        let result = try? await write.task.value
        endBlobWrite(write.key)
        guard let result, result.stored else { return }
        if isStreamedBlobKey(result.key) {
            try? await storage.blobs.delete(key: result.key)
        } else if !storage.isShared {
            _ = await sweepBlob(result.key, writtenAt: 0, cutoff: .max)
        }
    }

    private func endBlobWrite(_ key: String) {
        blobsBeingWritten[key, default: 1] -= 1
        if blobsBeingWritten[key] == 0 { blobsBeingWritten[key] = nil }
    }

    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        // The file could not be opened or read: a server condition (no descriptor left, a disk
        // error), not a fault of the file.
        case let error as TraceFormatError where error.systemError != nil:
            SystemFailure(code: error.systemError ?? 0, action: "read a trace file").storeError
        case let error as TraceFormatError: .unreadable(error)
        case let error as SystemFailure: error.storeError
        case is CancellationError: .cancelled
        case let error as StorageError: .service(error)
        case let error as WorkGate.Busy: .busy(error.detail)
        case is NIOThreadPoolError.ThreadPoolInactive: .shuttingDown
        default: .storageFailure("The server could not read the trace from its storage.")
        }
    }

    /// Runs a storage call; its failure in the store's terms.
    func service<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch {
            throw Self.storeError(error)
        }
    }

    public func delete(id: String) async throws(StoreError) {
        if let sample = samples[id] { throw .readOnlySample(name: sample.record.name) }
        guard let removed = try await service({ try await self.storage.catalog.delete(id: id) }) else { throw .unknownTrace(id: id) }
        await forgetDeleted(removed)
    }

    // MARK: Replicas and the sweep

    /// Follows the other replicas' deletes (evicting their models here), sweeps blobs that no
    /// row names and measures traces whose history figures are missing or old, until cancelled.
    /// Runs in the server's service group.
    public func maintain() async {
        let changes = storage.catalog.changes()
        let interval = Self.sweepInterval(grace: configuration.sweepGrace)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes { await self.apply(change) }
            }
            group.addTask {
                while !Task.isCancelled {
                    _ = await self.sweepUnnamedBlobs()
                    try? await Task.sleep(for: interval)
                }
            }
            group.addTask { await self.measureInBackground() }
            await group.waitForAll()
        }
    }

    func apply(_ change: CatalogChange) async {
        switch change {
        case let .deleted(id):
            if cache[id] != nil { logger.info("trace \(id) was deleted on another replica: dropped from memory") }
            evict(id)
        case .resync:
            // Deletes said while the listener was disconnected were lost: ask about every model in memory.
            for id in cache.keys where samples[id] == nil {
                do {
                    if try await storage.catalog.entry(id: id) == nil { evict(id) }
                } catch {
                    // A catalog that does not answer now keeps the model: the next re-check decides.
                }
            }
        }
    }

    /// How often the sweep runs: once per grace period, but at least every 10 minutes and at most
    /// every minute (a grace of 0 would otherwise list the bucket and its uploads without pause).
    static func sweepInterval(grace: Duration) -> Duration {
        min(.seconds(600), max(.seconds(60), grace))
    }

    /// Deletes blobs older than the grace period that no row names; returns how many.
    public func sweepUnnamedBlobs() async -> Int {
        let cutoff = CatalogEntry.nowMicros() - Int64(configuration.sweepGrace.components.seconds) * 1_000_000
        let blobs: [StoredBlob]
        do {
            blobs = try await storage.blobs.list()
        } catch {
            logger.warning("sweep: cannot list blobs: \(error)")
            return 0
        }
        var removed = 0
        for blob in blobs {
            let writtenAt = Int64(blob.modified.timeIntervalSince1970 * 1_000_000)
            guard writtenAt < cutoff else { continue }
            if await sweepBlob(blob.key, writtenAt: writtenAt, cutoff: cutoff) { removed += 1 }
        }
        if removed > 0 { logger.info("sweep: removed \(removed) blob(s) that no trace names") }
        return removed + (await abortAbandonedUploads(before: cutoff))
    }

    /// Aborts streamed uploads started before `cutoff` (microseconds) and never completed nor
    /// aborted (their replica died mid-upload); returns how many.
    func abortAbandonedUploads(before cutoff: Int64) async -> Int {
        guard let blobs = storage.blobs as? any StreamingBlobStore else { return 0 }
        let pending: [PendingUpload]
        do {
            pending = try await blobs.pendingUploads()
        } catch {
            logger.warning("sweep: cannot list unfinished uploads: \(error)")
            return 0
        }
        var aborted = 0
        for upload in pending where Int64(upload.initiated.timeIntervalSince1970 * 1_000_000) < cutoff && blobsBeingWritten[upload.key] == nil {
            do {
                try await blobs.abortMultipartUpload(key: upload.key, uploadID: upload.uploadID)
                aborted += 1
            } catch {
                logger.warning("sweep: cannot abort the unfinished upload of \(upload.key): \(error)")
            }
        }
        if aborted > 0 { logger.info("sweep: aborted \(aborted) unfinished upload(s)") }
        return aborted
    }

    func sweepBlob(_ key: String, writtenAt: Int64, cutoff: Int64) async -> Bool {
        guard blobsBeingWritten[key] == nil, !blobsBeingSwept.contains(key) else { return false }
        blobsBeingSwept.insert(key)
        defer { blobsBeingSwept.remove(key) }
        let blobs = storage.blobs
        do {
            return try await storage.catalog.releaseBlob(key, writtenAt: writtenAt, cutoff: cutoff) { try await blobs.delete(key: key) }
        } catch {
            logger.warning("sweep: cannot remove blob \(key): \(error)")
            return false
        }
    }

    // MARK: Startup

    private func start() async throws {
        let files = FileManager.default
        // Uploads and fetches cut off by a shutdown or crash are discarded whole: they were never committed.
        for directory in [incomingDirectory, scratchDirectory] {
            for leftover in (try? files.contentsOfDirectory(atPath: directory.path)) ?? [] {
                try? files.removeItem(at: directory.appendingPathComponent(leftover))
            }
        }
        try await LegacyDataDirectory(store: self, dataDirectory: configuration.dataDirectory, logger: logger).migrate()
        // A shared catalog answers only once the server runs its client; every upload reads the
        // totals before it is received anyway.
        if !storage.isShared { try await refreshQuota() }
        try await scanSamples()
    }

    /// Moves a stored file the server cannot explain out of the way; it is never deleted.
    nonisolated func quarantine(_ file: URL, reason: String) {
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

    /// Parses a file within the load gate (for the migration of the earlier layout).
    func parse(_ file: URL, displayName: String, run: Int? = nil) async throws -> Trace {
        try await loadGate.run { try TraceImporter.importTrace(at: file, displayName: displayName, run: run) }
    }

    private func scanSamples() async throws {
        guard let directory = configuration.samplesDirectory else { return }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.gz") }
            .sorted()
        let cacheDirectory = samplesCacheDirectory
        let logger = logger
        // Hash and (first time only) read the samples in parallel, off the actor.
        let found = await withTaskGroup(of: (Sample, (Trace, String)?)?.self) { group in
            for name in names {
                let file = directory.appendingPathComponent(name)
                group.addTask { Self.indexSample(file, name: name, cacheDirectory: cacheDirectory, logger: logger) }
            }
            var found: [(Sample, (Trace, String)?)] = []
            for await result in group { if let result { found.append(result) } }
            return found
        }
        for (sample, loaded) in found where samples[sample.record.id] == nil {
            samples[sample.record.id] = sample
            if let (trace, id) = loaded { insert(LoadedTrace(id: id, trace: trace, memory: memory.claimNow(0)), id: id) }
        }
    }

    /// A sample's list entry, and the trace when it had to be read (the first time).
    private nonisolated static func indexSample(_ file: URL, name: String, cacheDirectory: URL, logger: Logger) -> (Sample, (Trace, String)?)? {
        do {
            let (id, size) = try contentID(of: file)
            let cached = cacheDirectory.appendingPathComponent("\(id).json")
            if let data = FileManager.default.contents(atPath: cached.path),
               let record = try? JSONDecoder().decode(TraceRecord.self, from: data) {
                return (Sample(record: record, file: file), nil)
            }
            let trace = try TraceImporter.importTrace(at: file, displayName: name)
            let record = TraceRecord(id: id, trace: trace, sizeBytes: size, uploadedAt: nil, isSample: true)
            try? Data(encodeJSON(record)).write(to: cached, options: .atomic)
            return (Sample(record: record, file: file), (trace, id))
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

    /// The id an upload of this file gets (read at run 1): what `tracesvc check` asks the server not to use as its own baseline.
    public nonisolated static func uploadID(ofFile file: URL) throws -> String {
        try contentID(of: file).0
    }

    /// The content-derived id (first 128 bits of SHA-256, hex) and size of a file.
    nonisolated static func contentID(of file: URL) throws -> (String, Int64) {
        let (hex, size) = try sha256OfFile(file)
        return (String(hex.prefix(32)), size)
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

/// An upload's import started while it arrives (`TraceStore.beginImport`).
struct UploadImport: Sendable {
    let task: Task<ImportedUpload, any Error>

    /// Stops it (its file was abandoned) and waits until it has let go of its memory.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

struct ImportedUpload: Sendable {
    let trace: Trace
    let memory: MemoryBudget.Claim
    let started: ContinuousClock.Instant
}

/// Named intervals, each ended by the next, said in milliseconds (for a debug log line).
struct UploadPhases: CustomStringConvertible {
    private var last = ContinuousClock.now
    private var ended: [(name: String, duration: Duration)] = []

    mutating func end(_ name: String) {
        let now = ContinuousClock.now
        ended.append((name, now - last))
        last = now
    }

    var description: String {
        ended.map { "\($0.name) \($0.duration.wholeMilliseconds) ms" }.joined(separator: ", ")
    }
}
