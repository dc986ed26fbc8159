import Crypto
import Foundation

/// Blobs as files in a folder of the data directory (`blobs/<sha256>`): the embedded default.
/// A blob is synced to disk before `put` returns, so the catalog row written after it never
/// names bytes a power cut could lose.
public struct FileBlobStore: BlobStore {
    public let directory: URL
    public var serviceName: String { "data directory" }

    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    public func file(key: String) -> URL { directory.appendingPathComponent(key) }

    /// The caller's file is hard-linked in (same file system: a 2 GB upload is not written twice),
    /// or copied when linking fails; synced before this returns.
    public func put(key: String, file: URL, size: Int64) async throws -> Bool {
        precondition(isBlobKey(key))
        let target = self.file(key: key)
        if FileManager.default.fileExists(atPath: target.path) { return false }
        do {
            try DurableFiles.sync(file)
            do {
                try FileManager.default.linkItem(at: file, to: target)
            } catch CocoaError.fileWriteFileExists {
                return false
            } catch {
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: file, to: target)
                try DurableFiles.sync(target)
            }
            try DurableFiles.sync(directory)
            return true
        } catch {
            // No descriptor left or a full disk is the server's condition, said as such; anything
            // else a failure of the data directory. Never the path or the system's dump.
            if let failure = SystemFailure.from(error, action: "write blob \(key.prefix(12))") { throw failure }
            throw StorageError.failed(service: serviceName, detail: "cannot write a blob")
        }
    }

    public func localFile(key: String, sha256: String, scratch: URL) async throws -> BlobFile {
        let url = file(key: key)
        guard isBlobKey(key), FileManager.default.fileExists(atPath: url.path) else { throw StorageError.missingBlob(key: key) }
        return BlobFile(url: url, isTemporary: false)
    }

    public func delete(key: String) async throws {
        guard isBlobKey(key) else { return }
        try? FileManager.default.removeItem(at: file(key: key))
    }

    public func list() async throws -> [StoredBlob] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter(isBlobKey).compactMap { name in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path) else { return nil }
            return StoredBlob(key: name, size: (attributes[.size] as? Int64) ?? 0, modified: (attributes[.modificationDate] as? Date) ?? .distantPast)
        }
    }

    public func check() async throws {
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw StorageError.unavailable(service: serviceName, detail: "\(directory.path) is not writable")
        }
    }
}

/// Writes that survive a power cut: data and directory entries flushed before they count. Plain
/// system calls, so a failure keeps its errno (`SystemFailure`), never a path in its text.
public enum DurableFiles {
    /// Starts writing a range of an open file to disk without waiting for it (Linux
    /// `sync_file_range` with `SYNC_FILE_RANGE_WRITE`), so that a later fsync finds little left
    /// to write; does nothing where that call is missing. Errors are ignored: the fsync decides.
    public static func startWriteback(_ descriptor: Int32, offset: Int64, count: Int64) {
        _ = syncFileRange?(descriptor, offset, count, 2 /* SYNC_FILE_RANGE_WRITE */)
    }

    /// Glibc's module does not export `sync_file_range` (a GNU extension): looked up once.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// fsync of a file or a directory.
    public static func sync(_ url: URL) throws(SystemFailure) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .lastError("open \(url.lastPathComponent) to sync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .lastError("sync \(url.lastPathComponent)") }
    }

    /// Writes to a temporary file (of a random name: `RandomName`), syncs it, renames it over
    /// `url`, syncs the directory.
    public static func write(_ data: Data, to url: URL) throws(SystemFailure) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(RandomName.make()).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .lastError("create \(temporary.lastPathComponent)") }
        do throws(SystemFailure) {
            let failure: Int32 = data.withUnsafeBytes { bytes in
                let failure = writeAll(descriptor, bytes)
                return failure != 0 ? failure : fsync(descriptor) == 0 ? 0 : errno
            }
            let closed = close(descriptor) == 0 ? 0 : errno
            if failure != 0 || closed != 0 { throw SystemFailure(code: failure != 0 ? failure : closed, action: "write \(temporary.lastPathComponent)") }
            guard rename(temporary.path, url.path) == 0 else { throw SystemFailure.lastError("rename \(temporary.lastPathComponent)") }
            try sync(url.deletingLastPathComponent())
        } catch {
            unlink(temporary.path)
            throw error
        }
    }
}

/// SHA-256 of a file's bytes (lowercase hex) and its size, read in 1 MB chunks.
public func sha256OfFile(_ file: URL) throws -> (hex: String, size: Int64) {
    let handle = try FileHandle(forReadingFrom: file)
    defer { try? handle.close() }
    var hasher = SHA256()
    var size: Int64 = 0
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        hasher.update(data: chunk)
        size += Int64(chunk.count)
    }
    return (SigV4.hex(hasher.finalize()), size)
}
