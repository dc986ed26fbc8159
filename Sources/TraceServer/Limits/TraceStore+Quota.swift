import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Bytes of uploads stored.
    public func storedBytes() async throws(StoreError) -> Int64 {
        try await service { try await self.storage.catalog.totals().bytes }
    }

    /// The quota's stored traces and bytes as the catalog has them now (another replica may
    /// have added or deleted some); each upload is checked against them when it starts and
    /// again at commit.
    public func refreshQuota() async throws(StoreError) {
        let mark = quota.changeMark
        let totals = try await service { try await self.storage.catalog.totals() }
        quota.setStored(bytes: totals.bytes, traces: totals.count, readAfter: mark)
    }
}
