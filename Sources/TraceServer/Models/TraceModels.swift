import TraceCatalog
import TraceModel

/// The facet of the store that the query routes are given: a trace's model by its checked id,
/// from memory or loaded. Nothing of uploads, tags, notes or the catalog (`TraceStore` is it).
protocol TraceModels: Sendable {
    /// `alongside`: models the caller keeps using meanwhile (`TraceStore.loaded(id:alongside:)`).
    func loaded(id: TraceID, alongside held: [LoadedTrace]) async throws(StoreError) -> LoadedTrace

    /// Models used together (a compare's recordings), in order: the memory of all is claimed
    /// before any is held, and each load holds the memory of those before it.
    func loaded(together ids: [TraceID]) async throws(StoreError) -> [LoadedTrace]
}

extension TraceModels {
    func loaded(id: TraceID) async throws(StoreError) -> LoadedTrace { try await loaded(id: id, alongside: []) }

    func trace(id: TraceID) async throws(StoreError) -> Trace { try await loaded(id: id, alongside: []).trace }
}

