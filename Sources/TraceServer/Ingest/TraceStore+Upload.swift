import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    public struct Added: Sendable {
        public var record: TraceRecord
        public var loaded: LoadedTrace
        /// False when the same content was uploaded before (or is a sample).
        public var isNew: Bool
        /// What became of the upload's tags.
        public var tags: TagOutcome
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
    /// - Parameter retag: whether those may change the values of keys that trace has (`TagOutcome`'s rule).
    public func add(_ received: ReceivedUpload, run requestedRun: Int? = nil, tags: [TraceTag] = [], retag: Bool = false) async throws(StoreError) -> Added {
        // Whatever happens below, an import still reading the file stops (its trace and memory go).
        defer {
            received.importing?.task.cancel()
            try? FileManager.default.removeItem(at: received.file)
        }
        // Another run of the same file is another trace: its id covers the run too.
        let run = requestedRun == 1 ? nil : requestedRun
        let id = Self.uploadID(content: received.id, run: run)
        if let known = try await knownUpload(id: id, received, tags: tags, retag: retag) { return known }
        // The quota's room: reserved when receiving started (or now, for an upload that came another way).
        let reservation = try await refusing(undo: { await received.streamedBlob?.abort() }) { () async throws(StoreError) -> StorageQuota.Reservation in
            try await checkTagQuotas(tags, bytes: received.size)
            if let reserved = received.reservation { return reserved }
            return try quota.reserve(bytes: received.size)
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
        let parsed = try await refusing(undo: { await abandon(write) }) { () async throws(StoreError) -> LoadedTrace in
            try await parse(received, id: id, run: run, phases: &phases)
        }
        let trace = parsed.trace
        let entry = CatalogEntry(
            id: id, trace: trace, sizeBytes: received.size, sha256: received.sha256, run: run, uploadedAtMicros: CatalogEntry.nowMicros(),
            tags: tags.map(\.text), parserVersion: TraceImporter.parserVersion
        )
        // Checked once more, against the catalog as it is now, before anything becomes visible.
        try await refusing(undo: { await abandon(write) }) { () async throws(StoreError) in
            try await refreshQuota()
            try reservation.commit(bytes: received.size)
        }
        phases.end("quota")
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
            let retagged = try await retagging(tags, to: stored.entry, retag: retag)
            TraceMetrics.uploads(.duplicate)
            return Added(record: retagged.record, loaded: try await loaded(id: id), isNew: false, tags: retagged.tags)
        }
        await models.prepareExtras(of: parsed, id: id, measure: true)
        await models.adopt(parsed, id: id)
        TraceMetrics.uploads(.stored, bytes: received.size)
        logger.info("stored trace \(id) '\(entry.name)' (\(received.size) bytes, \(trace.updates.count) updates)")
        logger.debug("upload \(id) after its last byte: \(phases)")
        return Added(record: TraceRecord(entry: stored.entry), loaded: parsed, isNew: true, tags: .allStored(tags, traceID: id))
    }

    /// An upload of content known already: a sample's (that sample is the trace: samples are never
    /// stored as uploads; it takes no tags) or a stored trace's, which takes the upload's tags by
    /// `TagOutcome`'s rule. Nil for new content. Its streamed blob is dropped unless it is new.
    private func knownUpload(id: String, _ received: ReceivedUpload, tags: [TraceTag], retag: Bool) async throws(StoreError) -> Added? {
        if let sample = samples[id] { return try await addedAsSample(sample.record, tags: tags, received) }
        let existing: CatalogEntry?
        do throws(StoreError) {
            existing = try await service({ try await self.storage.catalog.entry(id: id) })
        } catch {
            await received.streamedBlob?.abort()
            throw error
        }
        guard let existing else { return nil }
        await received.streamedBlob?.abort()
        let retagged = try await retagging(tags, to: existing, retag: retag)
        TraceMetrics.uploads(.duplicate)
        return Added(record: retagged.record, loaded: try await loadedDuplicate(id: id, received.importing), isNew: false, tags: retagged.tags)
    }

    /// `step` of an upload; when it throws, the upload is refused: `undo` drops what it wrote so
    /// far, and the refusal is counted.
    private func refusing<T>(undo: () async -> Void, _ step: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        do throws(StoreError) {
            return try await step()
        } catch {
            await undo()
            TraceMetrics.uploads(.refused)
            throw error
        }
    }

    /// The upload's model: from the import that followed it while it arrived (only its tail is
    /// left to wait for), or read now. Inflation is bounded by the upload's own size, so a small
    /// bomb fails in seconds.
    private func parse(_ received: ReceivedUpload, id: String, run: Int?, phases: inout UploadPhases) async throws(StoreError) -> LoadedTrace {
        let maxBytes = maxInflatedBytes(ofUpload: received.size)
        let parsed: LoadedTrace
        var started = ContinuousClock.now
        do {
            if let importing = received.importing {
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
            throw Self.storeError(error)
        }
        TraceMetrics.importDuration.record(duration: ContinuousClock.now - started)
        return parsed
    }

    /// The stored trace an upload of the same content names: the model read while it arrived
    /// when none is in memory (no second read from storage), else the one in memory.
    func loadedDuplicate(id: String, _ importing: UploadImport?) async throws(StoreError) -> LoadedTrace {
        if await !models.isInMemory(id: id), let importing, let imported = try? await importing.task.value, await !models.isInMemory(id: id) {
            let loaded = try await service { [loadGate] in
                try await loadGate.run { LoadedTrace(id: id, trace: imported.trace, memory: imported.memory) }
            }
            await models.adopt(loaded, id: id)
        }
        return try await models.loaded(id: id)
    }
}
