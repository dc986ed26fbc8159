import Foundation
import Logging
import TraceCatalog
import TraceFormats
import TraceModel
import TraceStorage

/// The trace models in memory, in an actor of their own: the cache (least recently used out
/// first, within the memory budget), the loads in flight (one per trace, shared by every request
/// waiting for it), each upload's last footprint, and the extras built after a first picture.
/// A cache hit asks this actor alone, never the store's upload, tag or sweep bookkeeping.
///
/// Its state is private to this file: the store's other rooms (ingest, library, maintenance)
/// reach it only through the methods here, and find a trace's bytes for it (`Locate`, `Fetch`).
actor ModelCache {
    /// Where a trace that is not in memory is read from.
    enum Source: Sendable {
        case sample(TraceStore.Sample)
        case upload(CatalogEntry)
    }

    /// The source of a trace by its id (a sample, else a catalog row); nil when there is none.
    typealias Locate = @Sendable (String) async throws(StoreError) -> Source?
    /// A local file with a stored upload's bytes (a copy from an object store is temporary).
    typealias Fetch = @Sendable (CatalogEntry) async throws -> BlobFile
    /// Stores a new upload's history figures once its extras are built; false when the trace is gone.
    typealias StoreMeasurements = @Sendable (TraceMeasurements, String) async throws -> Bool

    private struct Slot {
        var loaded: LoadedTrace
        var lastUse: UInt64
    }

    /// Extras being built for one trace (`prepareExtras`).
    private struct ExtrasBuild: Sendable {
        /// Tells this build from a later one of the same trace.
        let serial: Int
        /// Whether it ends with the history's figures of a new upload stored.
        let measures: Bool
        let task: Task<Void, Never>
    }

    private var slots: [String: Slot] = [:]
    private var loading: [String: Task<LoadedTrace, any Error>] = [:]
    /// The claims the requests waiting for each load hold meanwhile (the load does not wait for them).
    private var loadSharers: [String: MemoryBudget.Sharers] = [:]
    private var useCounter: UInt64 = 0
    /// What the first picture did not need, being built after it (`prepareExtras`); for a new
    /// upload this ends with its history figures stored, which a history request waits for.
    private var extrasInFlight: [String: ExtrasBuild] = [:]
    private var extrasBuilt = 0
    /// What each upload took in memory when last loaded here: the estimate of its next load.
    private var footprints: [String: Int] = [:]
    /// Loads started since the cache opened (concurrent requests share one).
    private(set) var loadsStarted = 0

    /// Every trace model alive and every load in flight (uploads claim from it too).
    nonisolated let memory: MemoryBudget
    /// Parses and cold loads at once (uploads and the background measuring pass it too).
    nonisolated let loadGate: WorkGate
    /// Most bytes an upload may decompress to (`maxInflatedBytes`).
    nonisolated let maxUploadReadBytes: Int64
    private let locate: Locate
    private let fetch: Fetch
    /// An object store whose blobs are parsed while they arrive (`loadArriving`), into `scratch`.
    private let arriving: (any FetchingBlobStore)?
    private let scratch: URL
    private let storeMeasurements: StoreMeasurements
    private let logger: Logger

    init(memory: MemoryBudget, loadGate: WorkGate, maxUploadReadBytes: Int64, logger: Logger,
         locate: @escaping Locate, fetch: @escaping Fetch, arriving: (any FetchingBlobStore)?, scratch: URL,
         storeMeasurements: @escaping StoreMeasurements) {
        self.arriving = arriving
        self.scratch = scratch
        self.memory = memory
        self.loadGate = loadGate
        self.maxUploadReadBytes = maxUploadReadBytes
        self.logger = logger
        self.locate = locate
        self.fetch = fetch
        self.storeMeasurements = storeMeasurements
    }

    // MARK: What is in memory

    func isInMemory(id: String) -> Bool { slots[id] != nil }

    /// The ids of the models in memory (a resync asks the catalog about each).
    var idsInMemory: [String] { Array(slots.keys) }

    /// Keeps `loaded` as the model of `id` unless one is in memory already (a load, an upload's
    /// parse, a sample read at start); its footprint is the estimate of its next load.
    func adopt(_ loaded: LoadedTrace, id: String) {
        guard slots[id] == nil else { return }
        prepareExtras(of: loaded, id: id, measure: false)
        useCounter += 1
        slots[id] = Slot(loaded: loaded, lastUse: useCounter)
        footprints[id] = loaded.memory.bytes
        evictOverBudget(keeping: id)
        evictForWaitingLoads()
    }

    /// Drops the model of `id`; true when it was in memory. `deleted`: the trace is gone, and so is its footprint.
    @discardableResult
    func evict(_ id: String, deleted: Bool = false) -> Bool {
        if deleted { footprints[id] = nil }
        guard let slot = slots.removeValue(forKey: id) else { return false }
        TraceMetrics.cacheEvictions.increment()
        logger.debug("evicted trace \(id) (\(slot.loaded.memory.bytes) bytes) from memory")
        return true
    }

    /// Loads are waiting for memory: evict what the cache alone holds for them.
    func evictForWaitingLoads() {
        while memory.isHoldingBackLoads, let victim = leastRecentlyUsed(except: nil) {
            evict(victim)
        }
    }

    /// Least recently used first, until every trace alive fits the budget; `keeping` (the trace
    /// just loaded) stays even if alone over budget. An evicted trace a request still uses is
    /// counted until the request ends.
    private func evictOverBudget(keeping: String?) {
        while memory.used > memory.limit, let victim = leastRecentlyUsed(except: keeping) {
            evict(victim)
        }
    }

    private func leastRecentlyUsed(except kept: String?) -> String? {
        slots.filter { $0.key != kept }.min { $0.value.lastUse < $1.value.lastUse }?.key
    }

    private func touch(_ id: String) {
        useCounter += 1
        slots[id]?.lastUse = useCounter
    }

    // MARK: Loading

    /// The model of `id`, from memory or loaded; a model in memory answers without asking the
    /// catalog (reads keep working while it is down). A load waits until memory allows it;
    /// `alongside` are models the caller keeps using meanwhile (a compare's sides loaded before
    /// this one): their memory is not waited for, nor that of the other requests sharing the load.
    /// `reservation`: memory claimed before for this load among others (`reserveMemory`).
    func loaded(id: String, alongside held: [LoadedTrace] = [], reservation: MemoryBudget.Claim? = nil) async throws(StoreError) -> LoadedTrace {
        if let slot = slots[id] {
            touch(id)
            TraceMetrics.cacheHits.increment()
            return slot.loaded
        }
        let task: Task<LoadedTrace, any Error>
        if let running = loading[id] {
            task = running
            joinLoad(id, holding: held)
        } else {
            guard let source = try await locate(id) else { throw .unknownTrace(id: id) }
            // The actor was free while the source was looked up: another request may have started or finished the load.
            if let running = loading[id] {
                task = running
                joinLoad(id, holding: held)
            } else if let slot = slots[id] {
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
        // A request cancelled meanwhile (its client left, the server stops) leaves the load to
        // finish on its own; the next request for the trace takes its result.
        guard let result = await task.resultUnlessCancelled() else { throw .cancelled }
        loading[id] = nil
        loadSharers[id] = nil
        do {
            let loaded = try result.get()
            adopt(loaded, id: id)
            touch(id)
            return loaded
        } catch {
            logger.error("cannot load trace \(id): \(error)")
            throw TraceStore.storeError(error)
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
    private func loadEstimate(of id: String) async throws(StoreError) -> Int? {
        guard slots[id] == nil, loading[id] == nil else { return nil }
        if let footprint = footprints[id] { return footprint }
        switch try await locate(id) {
        case let .sample(sample)?: return memoryEstimate(ofFile: sample.file)
        case let .upload(entry)?: return Int(clamping: entry.sizeBytes.multipliedReportingOverflow(by: 2).partialValue)
        case nil: throw .unknownTrace(id: id)
        }
    }

    /// Claims at once the memory of every trace among `ids` that must be loaded (a compare's
    /// sides), before the caller holds any of them: a compare gets the memory of all its sides or
    /// waits holding none, so compares over traces that do not all fit never wait for each other
    /// in a ring. Nil when every one is in memory or being loaded. The loads take their share
    /// (`loaded(id:alongside:reservation:)`); what is left is given back with the claim.
    func reserveMemory(forLoading ids: [String]) async throws(StoreError) -> MemoryBudget.Claim? {
        var total = 0
        var seen: Set<String> = []
        for id in ids where seen.insert(id).inserted {
            total = total.addingReportingOverflow(try await loadEstimate(of: id) ?? 0).partialValue
        }
        guard total > 0 else { return nil }
        do { return try await memory.claim(total) } catch { throw TraceStore.storeError(error) }
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
            if let arriving { return try await loadArriving(id: id, entry: entry, from: arriving, sharers: sharers, reservation: reservation) }
            file = try await fetch(entry)
            (name, run) = (entry.name, entry.run)
        }
        defer { if file.isTemporary { try? FileManager.default.removeItem(at: file.url) } }
        // A stored file is named by the hash of its bytes: they are checked as the parse reads
        // them, from the file opened here (before any wait), so a file renamed over it later or
        // changed in place is never loaded as the trace (a copy was checked as it arrived).
        let verify: String? = if case let .upload(entry) = source, !file.isTemporary { entry.sha256 } else { nil }
        let opened = try OpenedTraceFile(opening: file.url, sha256: verify, isTemporary: false)
        // The claim goes with the trace (resized to its footprint), or with the load if it fails.
        let estimate = footprints[id] ?? memoryEstimate(ofFile: opened.descriptorURL, size: opened.size)
        let reserved = reservation.flatMap { memory.take(estimate, from: $0) }
        let claim = if let reserved { reserved } else { try await memory.claim(estimate, sharers: sharers) }
        return try await loadGate.run(for: WorkClient(key: WorkClient.currentKey, connection: nil)) {
            do {
                return LoadedTrace(id: id, trace: try opened.importTrace(displayName: name, run: run), memory: claim)
            } catch is OpenedTraceFile.Changed {
                throw StoreError.fileChanged(id: id)
            }
        }
    }

    /// A blob from the object store is parsed while it arrives, as an upload is (`beginImport`):
    /// a cold open takes about the longer of the transfer and the parse, not their sum. The trace
    /// is kept only when the whole copy hashed to its key (`FetchingBlobStore.fetch`); the parse
    /// of a copy that did not is thrown away.
    private func loadArriving(id: String, entry: CatalogEntry, from store: any FetchingBlobStore, sharers: MemoryBudget.Sharers,
                              reservation: MemoryBudget.Claim?) async throws -> LoadedTrace {
        let target = scratch.appendingPathComponent("\(entry.storedBlobKey).\(RandomName.make()).blob")
        guard FileManager.default.createFile(atPath: target.path, contents: nil) else {
            throw SystemFailure.lastError("create a scratch copy of blob \(entry.storedBlobKey)")
        }
        defer { try? FileManager.default.removeItem(at: target) }
        let growth = GrowingFile()
        let (firstBytes, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let fetch = Task {
            do {
                try await store.fetch(key: entry.storedBlobKey, sha256: entry.sha256, into: target) { written in
                    growth.grew(to: written)
                    signal.yield()
                }
                growth.end()
                signal.finish()
            } catch {
                growth.abandon()
                signal.finish()
                throw error
            }
        }
        // However this ends, the transfer ends with it.
        defer { fetch.cancel() }
        // The estimate reads the first bytes (a gzip's inflated size is larger).
        for await _ in firstBytes { break }
        let estimate = footprints[id] ?? memoryEstimate(ofFile: target, size: entry.sizeBytes)
        let reserved = reservation.flatMap { memory.take(estimate, from: $0) }
        let claim = if let reserved { reserved } else { try await memory.claim(estimate, sharers: sharers) }
        let (name, run) = (entry.name, entry.run)
        // On a thread of its own: the parse waits for the network between reads.
        let parsed: Result<Trace, any Error>
        do {
            parsed = .success(try await loadGate.runOnOwnThread { try TraceImporter.importTrace(at: target, displayName: name, run: run, growth: growth) })
        } catch {
            parsed = .failure(error)
            fetch.cancel()
        }
        // The transfer's failure (missing, damaged, the store down) explains a parse that stopped with it.
        if case let .failure(error) = await fetch.result, !(error is CancellationError) { throw error }
        return LoadedTrace(id: id, trace: try parsed.get(), memory: claim)
    }

    // MARK: Extras

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
        let gate = loadGate, storeMeasurements = storeMeasurements, logger = logger
        let task = Task.detached(priority: .utility) { [weak self] in
            await earlier?.task.value
            do {
                let measurements = try await gate.run { () -> TraceMeasurements? in
                    loaded.prepareExtras()
                    return measure ? loaded.measurements() : nil
                }
                if let measurements, try await !storeMeasurements(measurements, id) {
                    logger.info("trace \(id) was deleted before its history figures were stored")
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

    /// The server is stopping: the extras being built stop at their next check (and keep nothing
    /// half built); a new upload's figures are measured again at the next start.
    func cancelBackgroundBuilds() {
        for build in extrasInFlight.values { build.task.cancel() }
    }

    private func extrasDone(_ id: String, serial: Int) {
        if extrasInFlight[id]?.serial == serial { extrasInFlight[id] = nil }
    }

    /// Whether any extras are being built now (tests and diagnostics).
    var isBuildingExtras: Bool { !extrasInFlight.isEmpty }

    /// Whether a new upload's history figures are being stored now (the background leaves it be).
    func isMeasuring(_ id: String) -> Bool { extrasInFlight[id]?.measures == true }

    /// Waits until the extras being built for these traces (and the figures of new uploads) are
    /// done; throws `.cancelled` as soon as the caller is (a stopping server waits for no build).
    func waitForExtras(of ids: [String]) async throws(StoreError) {
        for id in ids {
            // A later build may have replaced the one waited for: wait until none is left.
            while let building = extrasInFlight[id] {
                guard await building.task.valueUnlessCancelled() != nil else { throw .cancelled }
            }
        }
    }
}

extension ModelCache: TraceModels {
    nonisolated func loaded(id: TraceID, alongside held: [LoadedTrace]) async throws(StoreError) -> LoadedTrace {
        try await loaded(id: id.text, alongside: held, reservation: nil)
    }

    nonisolated func loaded(together ids: [TraceID]) async throws(StoreError) -> [LoadedTrace] {
        // The memory of all at once, before any is held: no ring of compares each holding one
        // side and waiting for another's.
        let reservation = try await reserveMemory(forLoading: ids.map(\.text))
        var loaded: [LoadedTrace] = []
        for id in ids { loaded.append(try await self.loaded(id: id.text, alongside: loaded, reservation: reservation)) }
        withExtendedLifetime(reservation) {}
        return loaded
    }
}
