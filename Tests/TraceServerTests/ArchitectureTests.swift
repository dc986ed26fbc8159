import Foundation
import Testing

/// The shape of the Swift side, as Tests/Web/modules.test.mjs holds the browser's: which module
/// may name what, and rooms of a bounded size. docs/architecture.md draws it.
@Suite struct ArchitectureTests {
    static let sources = LiveServerTests.packageRoot.appendingPathComponent("Sources")

    /// The Swift files under `folder` (relative to Sources), with their text.
    static func files(_ folder: String) throws -> [(path: String, text: String)] {
        let root = sources.appendingPathComponent(folder)
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try paths.sorted().map { ("\(folder)/\($0)", try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    static func imports(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") || $0 == "public" || $0 == "package" }),
                  index + 1 < words.count else { return nil }
            return String(words[index + 1])
        })
    }

    /// The storage engines: only the composition root (`tracesvc serve`'s TeamStorage) chooses one.
    static let engineTypes = ["SQLiteCatalog", "PostgresCatalog", "FileBlobStore", "S3BlobStore"]
    static let engineLibraries: Set<String> = ["GRDB", "PostgresNIO", "AsyncHTTPClient"]

    @Test func noRouteNamesAnEngineOrImportsAnEngineLibrary() throws {
        let routes = try Self.files("TraceServer/Routes") + Self.files("TraceServer/HTTP")
        #expect(routes.count > 10)
        for (path, text) in routes {
            #expect(Self.imports(text).isDisjoint(with: Self.engineLibraries), "\(path) imports \(Self.imports(text).intersection(Self.engineLibraries))")
            for engine in Self.engineTypes { #expect(!text.contains(engine), "\(path) names \(engine)") }
        }
    }

    /// Outside TraceStorage, engines are named where storage is chosen: the CLI's TeamStorage
    /// (team mode) and, until the store's split, the embedded default in TraceStore.
    @Test func onlyTheCompositionRootNamesAnEngine() throws {
        let allowed: Set<String> = ["TraceCLI/TeamStorage.swift", "TraceServer/TraceStore.swift"]
        for folder in ["TraceServer", "TraceCLI", "TraceAgent", "TraceModel", "TraceFormats", "TraceCatalog"] {
            for (path, text) in try Self.files(folder) where !allowed.contains(path) {
                for engine in Self.engineTypes { #expect(!text.contains(engine), "\(path) names \(engine)") }
            }
        }
    }

    @Test func theCatalogsDomainDependsOnTheModelOnly() throws {
        let files = try Self.files("TraceCatalog")
        #expect(!files.isEmpty)
        for (path, text) in files {
            #expect(Self.imports(text).isSubset(of: ["Foundation", "TraceModel"]), "\(path) imports \(Self.imports(text))")
        }
    }

    /// Files that are over the limit today, at most as long as they are: they may shrink, never
    /// grow (issue 42 splits them). A new file over the limit fails.
    static let oversized = ["TraceServer/TraceStore.swift": 1057, "TraceStorage/Catalog/PostgresCatalog.swift": 696]

    @Test func noServerOrStorageFileIsOver500Lines() throws {
        for (path, text) in try Self.files("TraceServer") + Self.files("TraceStorage") {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
            #expect(lines <= Self.oversized[path, default: 500], "\(path) has \(lines) lines")
        }
    }
}
