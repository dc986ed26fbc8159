import Crypto
import Foundation
import Synchronization

/// The web root's version: a hash of every file's path and bytes. The app page names its scripts,
/// styles and icons under `/v/<version>/…`, so those URLs (and every module an ES module imports
/// relative to them) can be cached for good: a reload downloads no module and asks for none, and a
/// changed file is a new version, hence new URLs. Rehashed when a file's size or time changes
/// (checked when the app page is asked for), so editing the web root needs no restart.
final class WebRootVersion: Sendable {
    static let prefix = "/v/"
    /// The folders the app page refers to by absolute path.
    static let versionedFolders = ["js", "css", "icons"]

    private let root: URL
    private let state = Mutex<(listing: String, version: String)>(("", ""))

    init(root: URL) {
        self.root = root
    }

    /// The version as last computed (module requests use it without walking the tree).
    var lastKnown: String { state.withLock { $0.version } }

    /// The version now: the tree's sizes and times are read, its bytes hashed again only when they changed.
    func current() -> String {
        let files = Self.files(under: root)
        let listing = files.map { "\($0.path)\t\($0.size)\t\($0.modified)" }.joined(separator: "\n")
        if let known = state.withLock({ $0.listing == listing ? $0.version : nil }) { return known }
        var hash = SHA256()
        for file in files {
            hash.update(data: Data(file.path.utf8 + [0]))
            hash.update(data: FileManager.default.contents(atPath: root.path + "/" + file.path) ?? Data())
        }
        let version = String(traceID(hash.finalize()).prefix(16))
        state.withLock { $0 = (listing, version) }
        return version
    }

    /// The app page with its `/js/`, `/css/` and `/icons/` references under `/v/<version>/`.
    func versioned(page: Data, version: String) -> Data {
        var text = String(decoding: page, as: UTF8.self)
        for folder in Self.versionedFolders {
            for quote in ["\"", "'", "="] {
                text = text.replacingOccurrences(of: "\(quote)/\(folder)/", with: "\(quote)\(Self.prefix)\(version)/\(folder)/")
            }
        }
        return Data(text.utf8)
    }

    /// Splits `/v/<version>/rest` into the version and `/rest`; nil for any other path.
    static func split(_ path: String) -> (version: String, path: String)? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return (String(rest[..<slash]), String(rest[slash...]))
    }

    private struct File {
        var path: String
        var size: Int64
        var modified: Int64
    }

    /// Regular files under `root` (relative paths, sorted), walked with a queue: no recursion.
    private static func files(under root: URL) -> [File] {
        var found: [File] = []
        var folders = [""]
        while let folder = folders.popLast() {
            let absolute = folder.isEmpty ? root.path : root.path + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: absolute)) ?? [] {
                let relative = folder.isEmpty ? name : folder + "/" + name
                var info = stat()
                guard stat(absolute + "/" + name, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    folders.append(relative)
                } else if (info.st_mode & S_IFMT) == S_IFREG {
                    found.append(File(path: relative, size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)))
                }
            }
        }
        return found.sorted { $0.path < $1.path }
    }
}
