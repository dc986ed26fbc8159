import Foundation
import Synchronization

/// The uploads' share of storage: bytes stored (with what each trace costs besides its bytes),
/// traces stored, and the free space left on the disk uploads arrive on.
///
/// An upload reserves its size when receiving starts (its `Content-Length`, or step by step as
/// a body without one arrives) and keeps the reservation until it is committed or dropped, so
/// concurrent uploads cannot together pass the quota: each check counts the others' reservations.
/// Free space is read from the disk, which already holds what reservations have written; only
/// the part still to come is counted on top of it, so an upload is never counted twice.
final class StorageQuota: Sendable {
    struct Limits: Sendable {
        /// Traces' bytes, with `recordAllowance` each, all together.
        var maxStoredBytes: Int64
        /// Uploads are refused when they would leave less free disk than this.
        var minFreeDiskBytes: Int64
        /// Traces stored (every upload costs a catalog row, however small).
        var maxTraces: Int
    }

    /// What a trace costs besides its bytes (its catalog row and index entries, its blob's last
    /// disk block), counted with every trace stored or reserved: 20,000 tiny traces are not free.
    static let recordAllowance: Int64 = 4096
    /// A body without a length reserves this much more each time it reaches its reservation.
    static let growthStep: Int64 = 1 << 20

    let limits: Limits
    /// Free bytes on the data directory's file system now; nil when it cannot be told (then
    /// only the quota applies).
    let freeDiskBytes: @Sendable () -> Int64?
    private let state = Mutex(State())

    private struct State {
        /// The traces' own bytes, as the catalog last said (and what was stored since).
        var storedBytes: Int64 = 0
        var storedTraces = 0
        /// Uploads past their final check, being written to storage: counted until settled.
        var committingBytes: Int64 = 0
        var committingTraces = 0
        /// Counts settled commits and deletes: a catalog figure read before one is stale.
        var changes = 0
        var counted: Int64 {
            storedBytes + committingBytes + Int64(storedTraces + committingTraces) * StorageQuota.recordAllowance
        }
        var reservations: [Int: (reserved: Int64, written: Int64)] = [:]
        var nextReservation = 0
    }

    init(limits: Limits, freeDiskBytes: @escaping @Sendable () -> Int64?) {
        self.limits = limits
        self.freeDiskBytes = freeDiskBytes
    }

    /// Free space of the file system holding `directory` (statvfs: blocks available to unprivileged users).
    static func freeDiskBytes(of directory: URL) -> @Sendable () -> Int64? {
        let path = directory.path
        return {
            var stats = statvfs()
            guard statvfs(path, &stats) == 0 else { return nil }
            return Int64(stats.f_bavail) * Int64(stats.f_frsize)
        }
    }

    /// Bytes stored as the quota counts them: the traces' bytes and `recordAllowance` each.
    var storedBytes: Int64 { state.withLock { $0.counted } }
    var storedTraces: Int { state.withLock { $0.storedTraces } }
    /// Bytes reserved by uploads in flight (received, being received or being read).
    var reservedBytes: Int64 { state.withLock { $0.reservations.values.reduce(0) { $0 + $1.reserved } } }

    /// A mark to pass to `setStored` with figures read after it.
    var changeMark: Int { state.withLock { $0.changes } }

    /// The stored traces and their bytes as the catalog has them (at start, and before each
    /// upload), read after `mark`; ignored when a commit or delete settled since (the figures
    /// kept here are then the fresher).
    func setStored(bytes: Int64, traces: Int, readAfter mark: Int) {
        state.withLock {
            guard $0.changes == mark else { return }
            $0.storedBytes = bytes
            $0.storedTraces = max(0, traces)
        }
    }

    /// A stored trace of `bytes` was deleted.
    func remove(bytes: Int64) {
        state.withLock {
            $0.storedBytes -= bytes
            $0.storedTraces -= 1
            $0.changes += 1
        }
    }

    /// A commit of `bytes` (see `Reservation.commit`) is over: stored, or not (failed, or the
    /// same content was stored by another request first).
    func settle(bytes: Int64, stored: Bool) {
        state.withLock {
            $0.committingBytes -= bytes
            $0.committingTraces -= 1
            if stored {
                $0.storedBytes += bytes
                $0.storedTraces += 1
            }
            $0.changes += 1
        }
    }

    /// Room for an upload of `bytes` (0 when its size is not known yet) and its catalog row; refused
    /// with `storageFull` when the quota, the trace count or the disk's reserve would be passed.
    func reserve(bytes: Int64) throws(StoreError) -> Reservation {
        let free = freeDiskBytes()
        let wanted = bytes + Self.recordAllowance
        let id = try state.withLock { state throws(StoreError) -> Int in
            guard state.storedTraces + state.committingTraces + state.reservations.count < limits.maxTraces else {
                throw .storageFull("This server stores at most \(limits.maxTraces) traces (--max-traces); delete traces you no longer need.")
            }
            try check(state, reserving: wanted, toCome: wanted, free: free)
            let id = state.nextReservation
            state.nextReservation += 1
            state.reservations[id] = (wanted, 0)
            return id
        }
        return Reservation(quota: self, id: id)
    }

    /// Whether an upload of `bytes` would get a reservation now (nothing is reserved).
    func wouldAccept(bytes: Int64) -> Bool {
        let free = freeDiskBytes()
        let wanted = bytes + Self.recordAllowance
        return state.withLock { state in
            guard state.storedTraces + state.committingTraces + state.reservations.count < limits.maxTraces else { return false }
            return (try? check(state, reserving: wanted, toCome: wanted, free: free)) != nil
        }
    }

    /// Whether `bytes` more can be reserved beside `state`'s stored traces and reservations, of
    /// which `toCome` are not on the disk yet.
    private func check(_ state: State, reserving bytes: Int64, toCome: Int64, free: Int64?) throws(StoreError) {
        let reserved = state.reservations.values.reduce(Int64(0)) { $0 + $1.reserved }
        guard state.counted + reserved + bytes <= limits.maxStoredBytes else {
            throw .storageFull("Storing \(Self.megabytes(bytes)) more would pass this server's storage quota (--max-stored-mb, \(Self.megabytes(limits.maxStoredBytes))); delete traces you no longer need.")
        }
        if let free {
            // The disk already holds what reservations wrote; the rest of them is still to come.
            let othersToCome = state.reservations.values.reduce(Int64(0)) { $0 + max(0, $1.reserved - $1.written) }
            guard free - othersToCome - toCome >= limits.minFreeDiskBytes else {
                throw .storageFull("Storing \(Self.megabytes(bytes)) more would leave the server's disk with less than \(Self.megabytes(limits.minFreeDiskBytes)) free; delete traces you no longer need.")
            }
        }
    }

    private static func megabytes(_ bytes: Int64) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(max(1, bytes >> 10)) KB"
    }

    fileprivate func cover(_ id: Int, total: Int64) throws(StoreError) {
        let needsMore = state.withLock { $0.reservations[id].map { total + Self.recordAllowance > $0.reserved } ?? false }
        // statvfs outside the lock; the check and the growth happen under it.
        let free = needsMore ? freeDiskBytes() : nil
        try state.withLock { state throws(StoreError) in
            guard var entry = state.reservations[id] else { return }
            let wanted = total + Self.recordAllowance
            if wanted > entry.reserved {
                var others = state
                others.reservations[id] = nil
                // A step ahead when there is room for it, else just what is needed; `total` is
                // on the disk already, only the rest is still to come.
                let ahead = max(wanted, entry.reserved + Self.growthStep)
                if (try? check(others, reserving: ahead, toCome: ahead - total, free: free)) != nil {
                    entry.reserved = ahead
                } else {
                    try check(others, reserving: wanted, toCome: wanted - total, free: free)
                    entry.reserved = wanted
                }
            }
            entry.written = total
            state.reservations[id] = entry
        }
    }

    /// The upload of `bytes` is about to be stored: checked once more against what is stored now
    /// (another replica may have stored more since the reservation), then counted as committing
    /// until `settle`.
    fileprivate func commit(_ id: Int, bytes: Int64) throws(StoreError) {
        try state.withLock { state throws(StoreError) in
            guard let entry = state.reservations.removeValue(forKey: id) else { return }
            do throws(StoreError) {
                guard state.storedTraces + state.committingTraces + state.reservations.count < limits.maxTraces else {
                    throw .storageFull("This server stores at most \(limits.maxTraces) traces (--max-traces); delete traces you no longer need.")
                }
                try check(state, reserving: bytes + Self.recordAllowance, toCome: 0, free: nil)
            } catch {
                state.reservations[id] = entry
                throw error
            }
            state.committingBytes += bytes
            state.committingTraces += 1
        }
    }

    fileprivate func release(_ id: Int) {
        _ = state.withLock { $0.reservations.removeValue(forKey: id) }
    }

    /// One upload's room on disk; given back when its last copy is dropped uncommitted.
    struct Reservation: Sendable {
        private let quota: StorageQuota
        private let id: Int
        private let room: ReleaseOnDrop

        fileprivate init(quota: StorageQuota, id: Int) {
            (self.quota, self.id) = (quota, id)
            room = ReleaseOnDrop { quota.release(id) }
        }

        /// Covers the upload's first `total` bytes, growing the reservation when they pass it;
        /// call it before writing them: from then on they count as on the disk. (Counted as
        /// still to come until written, a chunk in the middle of its write would be counted
        /// twice by a concurrent check, and refuse an upload that fits.)
        func cover(_ total: Int64) throws(StoreError) { try quota.cover(id, total: total) }

        /// About to be stored: the trace's `bytes` (and its record) count as committing from now
        /// on, until the store settles them (`StorageQuota.settle`).
        func commit(bytes: Int64) throws(StoreError) { try quota.commit(id, bytes: bytes) }
    }
}
