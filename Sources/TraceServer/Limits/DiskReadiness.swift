import Foundation

extension StorageQuota {
    /// The replica's own disk as a readiness check: below the reserve every upload to this
    /// replica is refused (507), so a load balancer should send them elsewhere. In team mode too:
    /// uploads are received there before they go to the store.
    func diskCheck(directory: URL) -> Readiness.Check {
        let service = "replica disk (\(directory.path))"
        return Readiness.Check(service: service) { [self] in
            guard let free = freeDiskBytes(), free < limits.minFreeDiskBytes else { return }
            throw DiskBelowReserve(free: free, reserve: limits.minFreeDiskBytes)
        }
    }
}

/// Said after the disk's name (`Readiness` puts it first).
struct DiskBelowReserve: Error, CustomStringConvertible {
    var free: Int64
    var reserve: Int64

    var description: String {
        "\(free >> 20) MB free, under the \(reserve >> 20) MB this server keeps free; uploads to this replica are refused (507)"
    }
}
