import TraceStorage
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

extension SystemFailure {
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
