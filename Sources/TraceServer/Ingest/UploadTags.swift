import TraceModel
import TraceStorage

/// What became of the tags an upload gave (`?tag=`), in every upload answer and in the error
/// that refused them, so no tag is lost or moved without a word. The rule (docs/api.md, "Tags"):
/// a 2xx answer means every given tag is on the trace; content stored before takes new keys, but
/// a key it has with another value (`build:1`, given `build:2`) is a conflict (409, nothing
/// changed) unless the upload says `?retag=1`; a sample's bytes take no tags (403).
public struct TagOutcome: Encodable, Sendable, Equatable {
    /// A key whose value the upload changes (or would change): `from` → `to`.
    public struct Move: Encodable, Sendable, Equatable {
        public var from: String
        public var to: String
    }

    /// The trace the upload's bytes are.
    public var traceID: String
    /// Given tags on the trace after this upload (new ones and ones it had already).
    public var stored: [String]
    /// Given tags that are not on the trace.
    public var notStored: [String]
    /// Keys moved to the given value (`?retag=1`).
    public var moved: [Move]
    /// Keys the upload would have moved: refused, the trace keeps its tags.
    public var conflicts: [Move]
    /// Why some given tags are not stored; nil when all are.
    @NullWhenAbsent public var reason: String?

    static func allStored(_ tags: [TraceTag], traceID: String) -> TagOutcome {
        TagOutcome(traceID: traceID, stored: tags.map(\.text), notStored: [], moved: [], conflicts: [], reason: nil)
    }

    /// A sample's bytes: samples are read-only and have no tags.
    static func sample(_ tags: [TraceTag], traceID: String, name: String) -> TagOutcome {
        TagOutcome(traceID: traceID, stored: [], notStored: tags.map(\.text), moved: [], conflicts: [],
                   reason: "the file is the sample '\(name)', and samples have no tags; upload a recording of your own to tag it")
    }

    /// The given tags on content stored before (`entry`'s tags): the plan, and the tags the trace
    /// ends with (nil: refused, nothing changes; `stored` unchanged: nothing to write).
    static func retagging(_ given: [TraceTag], entry: CatalogEntry, retag: Bool) -> (outcome: TagOutcome, tags: [TraceTag]?) {
        let current = entry.tags.compactMap { try? TraceTag(parsing: $0) }
        let byKey = Dictionary(current.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let moves = given.compactMap { tag in byKey[tag.key].flatMap { $0 == tag ? nil : Move(from: $0.text, to: tag.text) } }
        let givenKeys = Set(given.map(\.key))
        let merged = (current.filter { !givenKeys.contains($0.key) } + given).sorted()
        let texts = given.map(\.text)
        if !moves.isEmpty, !retag {
            let list = moves.map { "\($0.from) → \($0.to)" }.joined(separator: ", ")
            return (TagOutcome(traceID: entry.id, stored: texts.filter { entry.tags.contains($0) }, notStored: texts.filter { !entry.tags.contains($0) },
                               moved: [], conflicts: moves,
                               reason: "the same file is stored already as trace \(entry.id), whose tags say \(list); nothing was changed (retag to move them)"), nil)
        }
        if merged.count > TraceTag.maxPerTrace {
            return (TagOutcome(traceID: entry.id, stored: texts.filter { entry.tags.contains($0) }, notStored: texts.filter { !entry.tags.contains($0) },
                               moved: [], conflicts: [],
                               reason: "trace \(entry.id) would have \(merged.count) tags, more than \(TraceTag.maxPerTrace); nothing was changed"), nil)
        }
        return (TagOutcome(traceID: entry.id, stored: texts, notStored: [], moved: moves, conflicts: [], reason: nil), merged)
    }
}

extension TraceStore {
    /// An upload of a sample's bytes: that sample is the trace, and it takes no tags.
    func addedAsSample(_ sample: TraceRecord, tags: [TraceTag], _ received: ReceivedUpload) async throws(StoreError) -> Added {
        await received.streamedBlob?.abort()
        guard tags.isEmpty else { throw .tagsNotStored(.sample(tags, traceID: sample.id, name: sample.name), onSample: true) }
        TraceMetrics.uploads(.duplicate)
        return Added(record: sample, loaded: try await loadedDuplicate(id: sample.id, received.importing), isNew: false, tags: .allStored([], traceID: sample.id))
    }

    /// The given tags set on content uploaded before (`TagOutcome.retagging`'s rule); throws
    /// `.tagsNotStored` when they cannot all be stored.
    func retagging(_ tags: [TraceTag], to entry: CatalogEntry, retag: Bool) async throws(StoreError) -> (record: TraceRecord, tags: TagOutcome) {
        let (outcome, merged) = TagOutcome.retagging(tags, entry: entry, retag: retag)
        guard let merged else { throw .tagsNotStored(outcome, onSample: false) }
        guard merged.map(\.text) != entry.tags.sorted() else { return (TraceRecord(entry: entry), outcome) }
        return (try await setTags(merged, id: entry.id), outcome)
    }
}
