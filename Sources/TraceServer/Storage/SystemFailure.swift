#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A system call that failed while storing or reading a trace, by its errno: what the client is
/// told depends on why (no descriptor left, disk full, anything else), never on the path or the
/// system's message, which only the log sees.
struct SystemFailure: Error, Sendable, CustomStringConvertible {
    var code: Int32
    /// What was being done, for the log ("create an incoming file").
    var action: String

    static func lastError(_ action: String) -> SystemFailure { SystemFailure(code: errno, action: action) }

    var description: String { "cannot \(action): \(String(cString: strerror(code)))" }

    /// The store's terms for it.
    var storeError: StoreError {
        switch code {
        case EMFILE, ENFILE:
            .busy("The server has too many files open right now; try again in a moment.")
        case ENOSPC, EDQUOT:
            .storageFull("The server's disk is full; delete traces you no longer need.")
        default:
            .storageFailure("The server could not use its data directory; the server log has the details.")
        }
    }
}

#if canImport(Glibc)
/// write(2), named apart from the many `write` methods.
let systemWrite = Glibc.write
#else
let systemWrite = Darwin.write
#endif
