import TraceStorage

extension TraceStore {
    /// Refuses a new upload of `bytes` with `tags` when a tag it has is at its quota now, before
    /// its blob is written (not before its body arrived: content stored before is no new trace,
    /// and is not refused). Only a first look (another replica may store one meanwhile): the
    /// catalog's insert decides (`Catalog.insert(within:)`).
    func checkTagQuotas(_ tags: [TraceTag], bytes: Int64) async throws(StoreError) {
        let applying = TagQuota.applying(configuration.tagQuotas, to: tags.map(\.text))
        guard !applying.isEmpty else { return }
        let usage = try await service { [storage] in try await storage.catalog.usage(of: applying.map(\.tag)) }
        for (quota, tag) in applying {
            if let refusal = quota.refusal(tag: tag, usage: usage[tag] ?? TagUsage(), adding: bytes) { throw .tagQuotaExceeded(refusal) }
        }
    }
}
