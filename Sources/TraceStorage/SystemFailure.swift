import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A system call that failed while storing or reading a trace, by its errno: what a client is
/// told depends on why (no descriptor left, disk full, anything else), never on a path or the
/// system's message, which only the log sees.
public struct SystemFailure: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    /// What was being done, for the log ("create an incoming file").
    public var action: String

    public init(code: Int32, action: String) {
        self.code = code
        self.action = action
    }

    public static func lastError(_ action: String) -> SystemFailure { SystemFailure(code: errno, action: action) }

    /// The errno under a Foundation error (a CocoaError wrapping a POSIX one), if there is one.
    public static func from(_ error: any Error, action: String) -> SystemFailure? {
        if let failure = error as? SystemFailure { return failure }
        var current: NSError? = error as NSError
        while let error = current {
            if error.domain == NSPOSIXErrorDomain { return SystemFailure(code: Int32(error.code), action: action) }
            current = error.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        return nil
    }

    public var description: String { "cannot \(action): \(String(cString: strerror(code)))" }
}

#if canImport(Glibc)
/// write(2), named apart from the many `write` methods.
private let systemWrite = Glibc.write
#else
private let systemWrite = Darwin.write
#endif

/// Writes all of `bytes` to `descriptor` (again after a signal interrupts it, on after a short
/// write); 0 when done, else the errno of the call that failed.
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < bytes.count {
        let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += count
    }
    return 0
}
