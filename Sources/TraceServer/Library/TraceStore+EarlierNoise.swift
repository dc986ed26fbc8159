import TraceCatalog
import TraceModel
import TraceStorage

// The run-to-run noise of earlier recordings with the same tags (docs/statistics.md, "The noise
// model"): a comparison of one recording a side reads its spread from the recordings uploaded
// before it with its scenario, device and branch tags, from the catalog's measurements only.

extension TraceStore {
    /// Earlier recordings read for one noise estimate, at most (the latest of them).
    static let earlierNoiseRecordings = 30

    /// The noise of the latest `earlierNoiseRecordings` traces with all of `tags`, uploaded
    /// before `before` (µs; nil: any time), other than `excluding`; nil when they measure nothing
    /// (fewer than `EarlierNoise.minimumRecordings`, or no tags).
    public func earlierNoise(tags: [TraceTag], before: Int64? = nil, excluding: Set<String> = []) async throws(StoreError) -> EarlierNoise? {
        guard !tags.isEmpty else { return nil }
        let catalog = storage.catalog
        let claim: MemoryBudget.Claim
        // Every view row of each trace (at most `TraceMeasurements.maxViewRows`, about 100 bytes each).
        do { claim = try await memory.claim((1 << 20) + Self.earlierNoiseRecordings * TraceMeasurements.maxViewRows * 128) } catch { throw Self.storeError(error) }
        defer { withExtendedLifetime(claim) {} }
        let limit = Self.earlierNoiseRecordings
        // Of each trace's tags only those that place it in a build: the others are never read.
        var query = CatalogQuery(tags: tags, uploadedBefore: before)
        query.tagKeys = HistoryTrace.buildKeyTags
        let page = try await service { [query] in try await catalog.page(query, limit: limit + excluding.count, after: nil) }
        let entries = Array(page.entries.filter { !excluding.contains($0.id) }.prefix(limit))
        let measured = try await service { try await catalog.measurements(of: entries.map(\.id), views: .all) }
        // Oldest first: the builds in the order they came.
        let recordings = entries.reversed().compactMap { entry -> EarlierRecording? in
            guard let measurements = measured[entry.id] else { return nil }
            return EarlierRecording(build: HistoryTrace.buildKey(tags: entry.tags, id: entry.id), measurements: measurements)
        }
        return EarlierNoise(recordings, tags: tags.map(\.text))
    }

    /// The earlier noise of a comparison of `ids`: the `EarlierNoise.keys` tags (scenario,
    /// device, branch) every one of them has with the same value, before the latest of them was
    /// uploaded (so later uploads do not change the answer). Nil for samples and untagged traces.
    public func earlierNoise(comparing ids: [String]) async throws(StoreError) -> EarlierNoise? {
        var shared: Set<String>?
        var latest: Int64 = .min
        for id in Set(ids) {
            guard samples[id] == nil, let entry = try await service({ try await self.storage.catalog.entry(id: id) }) else { return nil }
            let keyed = Set(entry.tags.filter { tag in EarlierNoise.keys.contains { tag.hasPrefix($0 + ":") } })
            shared = shared.map { $0.intersection(keyed) } ?? keyed
            latest = max(latest, entry.uploadedAtMicros)
        }
        let tags = (shared ?? []).sorted().compactMap { try? TraceTag(parsing: $0) }
        return try await earlierNoise(tags: tags, before: latest, excluding: Set(ids))
    }
}
