import Foundation
import Logging
import TraceFormats
import TraceModel
import TraceStorage

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
        /// Limits on the traces of a tag (`serve --tag-quota`), checked as uploads are stored.
        public var tagQuotas: [TagQuota] = []
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

    public let configuration: Configuration
    public nonisolated let storage: Storage
    let logger: Logger
    /// The read-only samples of this server, listed at start.
    nonisolated let samples: SampleShelf
    /// Uploads whose history figures could not be made (unreadable now, bytes missing): not retried until restart.
    var unmeasurable: Set<String> = []
    /// Blobs this process is writing (claimed, not yet named by a row) and sweeping: the two never overlap.
    var blobsBeingWritten: [String: Int] = [:]
    var blobsBeingSwept: Set<String> = []
    /// The models in memory, their loads and the memory budget: an actor of its own (`ModelCache`).
    nonisolated let models: ModelCache
    /// The part buffers of uploads streamed to the blob store (`PartBuffers`): their most, held
    /// from the budget for as long as the store is open, so models and parts together stay within it.
    let partBuffersMemory: MemoryBudget.Claim?
    /// Uploads stored and being received, against the quota and the disk.
    nonisolated let quota: StorageQuota

    /// Where uploads are streamed to before they are known to be good.
    public nonisolated var incomingDirectory: URL { configuration.dataDirectory.appendingPathComponent("incoming", isDirectory: true) }
    nonisolated var scratchDirectory: URL { configuration.dataDirectory.appendingPathComponent("scratch", isDirectory: true) }
    nonisolated var samplesCacheDirectory: URL { configuration.dataDirectory.appendingPathComponent("samples", isDirectory: true) }
    nonisolated var quarantineDirectory: URL { configuration.dataDirectory.appendingPathComponent("quarantine", isDirectory: true) }

    init(configuration: Configuration, storage: Storage, logger: Logger) {
        self.configuration = configuration
        self.storage = storage
        self.logger = logger
        let memory = MemoryBudget(limit: configuration.memoryBudgetBytes, maxWait: configuration.memoryWait)
        let samples = SampleShelf(), scratch = configuration.dataDirectory.appendingPathComponent("scratch", isDirectory: true)
        self.samples = samples
        models = ModelCache(
            memory: memory,
            loadGate: WorkGate(name: "trace loads", limit: configuration.maxConcurrentLoads, maxWaiting: 64, maxWaitingPerClient: 16),
            maxUploadReadBytes: configuration.maxUploadReadBytes, logger: logger,
            locate: { id throws(StoreError) in
                if let sample = samples[id] { return .sample(sample) }
                do { return try await storage.catalog.entry(id: id).map { .upload($0) } } catch { throw Self.storeError(error) }
            },
            fetch: { entry in try await storage.blobs.localFile(key: entry.storedBlobKey, sha256: entry.sha256, scratch: scratch) },
            arriving: storage.blobs as? any FetchingBlobStore, scratch: scratch,
            storeMeasurements: { measurements, id in
                try await storage.catalog.storeMeasurements(measurements, id: id, measuredVersion: Self.measuredVersion, parserVersion: TraceImporter.parserVersion)
            }
        )
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
        store.memory.onPressure { [weak models = store.models] in
            guard let models else { return }
            Task { await models.evictForWaitingLoads() }
        }
        try await store.start()
        return store
    }
}

/// The facets of the store the route controllers are given (each declared beside its controller,
/// in Routes/): a controller sees what its routes need, not the whole store.
extension TraceStore: HistoryAndNotes, AuditTrail, TraceDeletion, EarlierRecordings {}
