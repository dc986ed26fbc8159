import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
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

    /// The bytes of a trace as they were uploaded (a sample's file), opened once and checked
    /// against their hash through that descriptor (`OpenedTraceFile`); from a remote blob store, a
    /// temporary copy checked as it arrived.
    public func file(id: String) async throws(StoreError) -> OpenedTraceFile {
        if let sample = samples[id] { return try await service { try OpenedTraceFile(opening: sample.file, sha256: nil, isTemporary: false) } }
        guard let entry = try await service({ try await self.storage.catalog.entry(id: id) }) else { throw .unknownTrace(id: id) }
        let storage = storage, scratch = scratchDirectory, gate = loadGate
        let file = try await service { try await storage.blobs.localFile(key: entry.storedBlobKey, sha256: entry.sha256, scratch: scratch) }
        guard !file.isTemporary else { return try await service { try OpenedTraceFile(opening: file.url, sha256: nil, isTemporary: true) } }
        // A stored file is named by the hash of its bytes: a damaged or replaced one is refused,
        // never served as this trace.
        let opened = try await service { try OpenedTraceFile(opening: file.url, sha256: entry.sha256, isTemporary: false) }
        guard try await service({ try await gate.run { try opened.hashFromStart() } }) == entry.sha256 else { throw .fileChanged(id: id) }
        return opened
    }

    /// At most `limit` uploads `query` matches after `cursor`, and how many match; the samples
    /// that match follow the last page (a sample has no tags and no upload time).
    public func page(_ query: CatalogQuery = CatalogQuery(), limit: Int, cursor: CatalogCursor?) async throws(StoreError) -> (records: [TraceRecord], next: CatalogCursor?, total: Int) {
        let page = try await service { try await self.storage.catalog.page(query, limit: limit, after: cursor) }
        let records = page.entries.map { TraceRecord(entry: $0).listed }
        let samples = query.tags.isEmpty && query.uploadedFrom == nil && query.uploadedBefore == nil
            ? sampleRecords().filter { sample in
                let text = SearchFolding.fold([sample.name, sample.app, sample.device].joined(separator: "\n"))
                return (query.name.map { sample.name.lowercased().contains($0.lowercased()) } ?? true)
                    && query.words.allSatisfy { text.contains(SearchFolding.fold($0)) }
            }
            : []
        return (page.next == nil ? records + samples : records, page.next, page.total + samples.count)
    }

    func sampleRecords() -> [TraceRecord] {
        samples.all.map(\.record).sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    public func record(id: String) async throws(StoreError) -> TraceRecord {
        if let sample = samples[id] { return sample.record }
        guard let entry = try await service({ try await self.storage.catalog.entry(id: id) }) else { throw .unknownTrace(id: id) }
        return TraceRecord(entry: entry)
    }

    public func delete(id: String) async throws(StoreError) {
        try refuseSample(id)
        guard let removed = try await service({ try await self.storage.catalog.delete(id: id) }) else { throw .unknownTrace(id: id) }
        await forgetDeleted(removed)
    }
}
