import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Replaces an upload's tags.
    public func setTags(_ tags: [TraceTag], id: String) async throws(StoreError) -> TraceRecord {
        if let sample = samples[id] { throw .readOnlySample(name: sample.record.name) }
        guard let entry = try await service({ try await self.storage.catalog.setTags(tags, id: id) }) else { throw .unknownTrace(id: id) }
        return TraceRecord(entry: entry)
    }

    /// The tags of an upload sent again: its keys take the given values, the others stay.
    func adding(_ tags: [TraceTag], to entry: CatalogEntry) async throws(StoreError) -> TraceRecord {
        let given = Set(tags.map(\.key))
        let kept = entry.tags.compactMap { try? TraceTag(parsing: $0) }.filter { !given.contains($0.key) }
        let merged = (kept + tags).sorted()
        guard merged.map(\.text) != entry.tags.sorted(), merged.count <= TraceTag.maxPerTrace else { return TraceRecord(entry: entry) }
        return try await setTags(merged, id: entry.id)
    }

    // MARK: Notes and verdicts

    public func notes(traceID: String) async throws(StoreError) -> [TraceNote] {
        if samples[traceID] != nil { return [] }
        return try await service { try await self.storage.catalog.notes(traceID: traceID) }
    }

    public func addNote(traceID: String, target: TraceNote.Target, text: String) async throws(StoreError) -> TraceNote {
        if let sample = samples[traceID] { throw .readOnlySample(name: sample.record.name) }
        let note = TraceNote(id: Self.randomNoteID(), traceID: traceID, target: target, text: text, createdAtMicros: CatalogEntry.nowMicros())
        guard try await service({ try await self.storage.catalog.addNote(note) }) else { throw .unknownTrace(id: traceID) }
        return note
    }

    /// False when the trace has no such note.
    public func deleteNote(id: String, traceID: String) async throws(StoreError) -> Bool {
        if let sample = samples[traceID] { throw .readOnlySample(name: sample.record.name) }
        return try await service { try await self.storage.catalog.deleteNote(id: id, traceID: traceID) }
    }

    nonisolated static func randomNoteID() -> String {
        String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
    }

    public func recordVerdict(_ verdict: CheckVerdict) async throws(StoreError) {
        if let sample = samples[verdict.traceID] { throw .readOnlySample(name: sample.record.name) }
        guard try await service({ try await self.storage.catalog.recordVerdict(verdict) }) else { throw .unknownTrace(id: verdict.traceID) }
    }
}
