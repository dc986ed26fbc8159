import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// File descriptors decide how many connections the server can really serve: each may hold its
/// socket and an upload's file. The connection limit is lowered to what the process's limit
/// (RLIMIT_NOFILE) leaves, so that a flood of slow uploads is turned away at accept instead of
/// running the process out of descriptors, where opening a file, a pipe or a random source fails
/// anywhere. (Accepting itself backs off on EMFILE: NIO's `AcceptBackoffHandler`.)
enum DescriptorBudget {
    /// Descriptors kept for everything but connections: trace loads and their hash checks,
    /// blob writes and syncs, the catalog's connections, the event loops and thread pools that start later.
    static let reserved = 64

    /// Raises the soft limit to the hard one (as servers do) and returns how many connections
    /// the descriptors left can serve, at most `configured`.
    static func connectionsAllowed(configured: Int) -> Int {
        guard let limit = raisedLimit() else { return configured }
        let spare = limit - descriptorsInUse() - reserved
        return max(1, min(configured, spare / 2))
    }

    /// The soft limit after raising it as far as the hard limit allows; nil when unknown.
    private static func raisedLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        let ceiling = rlim_t(1 << 20)
        if limit.rlim_cur < min(limit.rlim_max, ceiling) {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, ceiling)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, ceiling))
    }

    /// Descriptors open now (/proc/self/fd on Linux; a guess elsewhere).
    private static func descriptorsInUse() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 32
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
