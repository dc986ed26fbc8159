import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Replaces an upload's tags; a tag it gains that is at its quota (`serve --tag-quota`) refuses
    /// the edit (`.tagQuotaExceeded`), as it refuses an upload.
    public func setTags(_ tags: [TraceTag], id: String) async throws(StoreError) -> TraceRecord {
        try refuseSample(id)
        let quotas = configuration.tagQuotas
        guard let entry = try await service({ try await self.storage.catalog.setTags(tags, id: id, within: quotas) }) else { throw .unknownTrace(id: id) }
        return TraceRecord(entry: entry)
    }

    // MARK: Notes and verdicts

    public func notes(traceID: String) async throws(StoreError) -> [TraceNote] {
        if samples[traceID] != nil { return [] }
        return try await service { try await self.storage.catalog.notes(traceID: traceID) }
    }

    /// Throws `.tooManyNotes` when the trace has `TraceNote.maxPerTrace` already (however many are added at once).
    public func addNote(traceID: String, target: TraceNote.Target, text: String) async throws(StoreError) -> TraceNote {
        try refuseSample(traceID)
        let note = TraceNote(id: Self.randomNoteID(), traceID: traceID, target: target, text: text, createdAtMicros: CatalogEntry.nowMicros())
        switch try await service({ try await self.storage.catalog.addNote(note, maxPerTrace: TraceNote.maxPerTrace) }) {
        case .added: return note
        case .unknownTrace: throw .unknownTrace(id: traceID)
        case .full: throw .tooManyNotes(id: traceID, limit: TraceNote.maxPerTrace)
        }
    }

    /// False when the trace has no such note.
    public func deleteNote(id: String, traceID: String) async throws(StoreError) -> Bool {
        try refuseSample(traceID)
        return try await service { try await self.storage.catalog.deleteNote(id: id, traceID: traceID) }
    }

    nonisolated static func randomNoteID() -> String {
        String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
    }

    public func recordVerdict(_ verdict: CheckVerdict) async throws(StoreError) {
        try refuseSample(verdict.traceID)
        guard try await service({ try await self.storage.catalog.recordVerdict(verdict) }) else { throw .unknownTrace(id: verdict.traceID) }
    }
}
