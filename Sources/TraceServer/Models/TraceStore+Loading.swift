import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
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
        // A request cancelled meanwhile (its client left, the server stops) leaves the load to
        // finish on its own; the next request for the trace takes its result.
        guard let result = await task.resultUnlessCancelled() else { throw .cancelled }
        do {
            let loaded = try result.get()
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
    func joinLoad(_ id: String, holding held: [LoadedTrace]) {
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
    func load(id: String, from source: Source, sharers: MemoryBudget.Sharers, reservation: MemoryBudget.Claim?) async throws -> LoadedTrace {
        let file: BlobFile
        let name: String
        let run: Int?
        switch source {
        case let .sample(sample):
            (file, name, run) = (BlobFile(url: sample.file, isTemporary: false), sample.record.name, nil)
        case let .upload(entry):
            if let store = storage.blobs as? any FetchingBlobStore {
                return try await loadArriving(id: id, entry: entry, from: store, sharers: sharers, reservation: reservation)
            }
            file = try await storage.blobs.localFile(key: entry.storedBlobKey, sha256: entry.sha256, scratch: scratchDirectory)
            (name, run) = (entry.name, entry.run)
        }
        defer { if file.isTemporary { try? FileManager.default.removeItem(at: file.url) } }
        // The claim goes with the trace (resized to its footprint), or with the load if it fails.
        let estimate = footprints[id] ?? memoryEstimate(ofFile: file.url)
        let reserved = reservation.flatMap { memory.take(estimate, from: $0) }
        let claim = if let reserved { reserved } else { try await memory.claim(estimate, sharers: sharers) }
        let verify: String? = if case let .upload(entry) = source, !file.isTemporary { entry.sha256 } else { nil }
        return try await loadGate.run(for: WorkClient(key: WorkClient.currentKey, connection: nil)) {
            // A stored file is named by the hash of its bytes: a replaced or damaged one is not served as that trace.
            if let verify, try sha256OfFile(file.url).hex != verify { throw StoreError.fileChanged(id: id) }
            let trace = try TraceImporter.importTrace(at: file.url, displayName: name, run: run)
            return LoadedTrace(id: id, trace: trace, memory: claim)
        }
    }

    /// A blob from the object store is parsed while it arrives, as an upload is (`beginImport`):
    /// a cold open takes about the longer of the transfer and the parse, not their sum. The trace
    /// is kept only when the whole copy hashed to its key (`FetchingBlobStore.fetch`); the parse
    /// of a copy that did not is thrown away.
    private func loadArriving(id: String, entry: CatalogEntry, from store: any FetchingBlobStore, sharers: MemoryBudget.Sharers,
                              reservation: MemoryBudget.Claim?) async throws -> LoadedTrace {
        let target = scratchDirectory.appendingPathComponent("\(entry.storedBlobKey).\(RandomName.make()).blob")
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
}
