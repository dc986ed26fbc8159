import Foundation

extension FileHandle {
    /// Creates (or truncates) the file at `url` and opens it for writing; throws a
    /// `CocoaError` naming the path when it cannot be created.
    public static func creatingForWriting(at url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        return try FileHandle(forWritingTo: url)
    }
}
