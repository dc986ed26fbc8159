import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// What a rebuilt record cannot read from an upload's bytes: the name it was uploaded under,
/// the run of a several-run export it read (`?run=N`), and when. Kept on the stored file itself
/// as an extended attribute (`user.tracesvc.upload`, JSON), so it moves with the file (a rename
/// keeps it) and outlives a damaged sidecar. A file system without extended attributes loses
/// only this: a rebuilt record is then named by its id and dated by the file.
struct UploadOrigin: Codable, Sendable, Equatable {
    var name: String
    var run: Int?
    var uploadedAt: String?

    static let attributeName = "user.tracesvc.upload"
    /// Far above what the fields take (a name is at most 200 characters); a longer value is not ours.
    private static let maxAttributeBytes = 4096

    func attach(to file: URL) throws(SystemFailure) {
        let value = (try? JSONEncoder().encode(self)) ?? Data()
        let result = value.withUnsafeBytes { bytes in
            #if canImport(Glibc)
            ExtendedAttributes.set(file.path, Self.attributeName, bytes.baseAddress, bytes.count, 0)
            #else
            setxattr(file.path, Self.attributeName, bytes.baseAddress, bytes.count, 0, 0)
            #endif
        }
        guard result == 0 else { throw .lastError("record the upload's name on its file") }
    }

    /// The origin attached to `file`, or nil when it has none (or not one of ours).
    static func read(from file: URL) -> UploadOrigin? {
        var value = [UInt8](repeating: 0, count: maxAttributeBytes)
        let count = value.withUnsafeMutableBytes { bytes in
            #if canImport(Glibc)
            ExtendedAttributes.get(file.path, attributeName, bytes.baseAddress, bytes.count)
            #else
            getxattr(file.path, attributeName, bytes.baseAddress, bytes.count, 0, 0)
            #endif
        }
        guard count > 0 else { return nil }
        return try? JSONDecoder().decode(UploadOrigin.self, from: Data(value[..<count]))
    }
}

#if canImport(Glibc)
/// setxattr(2) and getxattr(2): Glibc's Swift module leaves out <sys/xattr.h>, so they are
/// looked up in the C library by name, with their C signatures.
private enum ExtendedAttributes {
    typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int

    static let set: Set = { path, name, value, size, flags in
        guard let function = setFunction else { errno = ENOTSUP; return -1 }
        return function(path, name, value, size, flags)
    }
    static let get: Get = { path, name, value, size in
        guard let function = getFunction else { errno = ENOTSUP; return -1 }
        return function(path, name, value, size)
    }

    private static let setFunction = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr").map { unsafeBitCast($0, to: Set.self) }
    private static let getFunction = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr").map { unsafeBitCast($0, to: Get.self) }
}
#endif
