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
    /// (team mode) and MigrationSource (`migrate`'s source), and the embedded default in
    /// TraceStore's facade.
    @Test func onlyTheCompositionRootNamesAnEngine() throws {
        let allowed: Set<String> = ["TraceCLI/TeamStorage.swift", "TraceCLI/MigrationSource.swift", "TraceServer/TraceStore.swift"]
        for folder in ["TraceServer", "TraceCLI", "TraceAgent", "TraceModel", "TraceFormats", "TraceCatalog"] {
            for (path, text) in try Self.files(folder) where !allowed.contains(path) {
                for engine in Self.engineTypes { #expect(!text.contains(engine), "\(path) names \(engine)") }
            }
        }
    }

    /// The query routes are given the model facet only (`TraceModels`), never the whole store.
    @Test func theQueryRoutesSeeOnlyTheModels() throws {
        let names = ["Summary", "Task", "Search", "Timeline", "Findings", "Row", "Graph", "CPU", "Compare", "Query"].map { "TraceServer/Routes/\($0)Routes.swift" }
        let routes = try Self.files("TraceServer/Routes").filter { names.contains($0.path) }
        #expect(routes.count == names.count)
        for (path, text) in routes {
            #expect(!text.contains("TraceStore"), "\(path) names TraceStore")
        }
    }

    /// One route style: every file that registers routes declares a controller (a struct given
    /// the facets it needs, `RouteController`), no `addXRoutes` function is left, and only the
    /// library's and uploads' controller (`TraceRoutes`) holds the whole store.
    @Test func everyRouteFileDeclaresAController() throws {
        let routes = try Self.files("TraceServer/Routes")
        #expect(routes.count > 10)
        for (path, text) in routes {
            let code = text.split(separator: "\n").map { Self.withoutStringsAndComments(String($0)) }.joined(separator: "\n")
            #expect(code.range(of: #"func add[A-Z][A-Za-z]*Routes?\b"#, options: .regularExpression) == nil, "\(path) registers routes in a function, not a controller")
            if code.contains("router.") {
                #expect(code.range(of: #"struct [A-Za-z]+Routes: (RouteController|TraceController)"#, options: .regularExpression) != nil, "\(path) registers routes without a controller")
            }
            if !["TraceServer/Routes/TraceRoutes.swift", "TraceServer/Routes/TracesByID.swift"].contains(path) {
                #expect(!code.contains("TraceStore"), "\(path) names TraceStore: give its controller a facet")
            }
        }
        for (path, text) in try Self.files("TraceServer") {
            #expect(text.range(of: #"func add[A-Z][A-Za-z]*Routes?\("#, options: .regularExpression) == nil, "\(path) registers routes in a function")
        }
    }

    /// The model cache is an actor of its own whose state only it touches: every stored `var` of
    /// `ModelCache` is private (so the compiler keeps the store's other rooms out: they call its
    /// methods), and the store's facade keeps no model state beside it.
    @Test func theModelCacheOwnsItsState() throws {
        let text = try String(contentsOf: Self.sources.appendingPathComponent("TraceServer/Models/ModelCache.swift"), encoding: .utf8)
        let members = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("    ") && !$0.hasPrefix("     ") }
        let stored = members.filter { line in
            let words = line.split(separator: " ")
            return words.contains("var") && !line.contains("{")
        }
        #expect(stored.count >= 6, "\(stored)")
        for line in stored {
            #expect(line.trimmingCharacters(in: .whitespaces).hasPrefix("private"), "ModelCache state not private: \(line)")
        }
        let facade = try String(contentsOf: Self.sources.appendingPathComponent("TraceServer/TraceStore.swift"), encoding: .utf8)
        for state in ["CacheSlot", "LoadedTrace", "Task<LoadedTrace", "footprints", "extrasInFlight", "useCounter"] {
            #expect(!facade.contains(state), "TraceStore.swift holds model state: \(state)")
        }
    }

    @Test func theCatalogsDomainDependsOnTheModelOnly() throws {
        let files = try Self.files("TraceCatalog")
        #expect(!files.isEmpty)
        for (path, text) in files {
            #expect(Self.imports(text).isSubset(of: ["Foundation", "TraceModel"]), "\(path) imports \(Self.imports(text))")
        }
    }

    @Test func noServerOrStorageFileIsOver500Lines() throws {
        for (path, text) in try Self.files("TraceServer") + Self.files("TraceStorage") {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
            #expect(lines <= 500, "\(path) has \(lines) lines")
        }
    }

    /// The store's facade: what it holds and how it opens; the jobs are in its rooms.
    @Test func theTraceStoreIsAFacadeUnder200Lines() throws {
        let text = try String(contentsOf: Self.sources.appendingPathComponent("TraceServer/TraceStore.swift"), encoding: .utf8)
        let lines = text.split(separator: "\n").count
        #expect(lines < 200, "TraceStore.swift has \(lines) lines")
    }

    @Test func noServerOrStorageFunctionIsOver80Lines() throws {
        let files = try Self.files("TraceServer") + Self.files("TraceStorage")
        var measured = 0
        for (path, text) in files {
            for function in Self.functions(in: text) {
                measured += 1
                #expect(function.lines <= 80, "\(path): \(function.name) has \(function.lines) lines")
            }
        }
        #expect(measured > 300)
    }

    @Test func theFunctionMeasureCountsABodyToItsClosingBrace() {
        let text = "struct A {\n    func f() {\n        let s = \"{\"\n        if s.isEmpty { print(s) }\n    }\n    init() {}\n}\n"
        let found = Self.functions(in: text)
        #expect(found.map { $0.name } == ["f", "init"])
        #expect(found.map { $0.lines } == [4, 1])
    }

    /// Each `func` and `init` with its line count, declaration to closing brace (braces in string
    /// literals and line comments are not counted). Declarations without a body are skipped.
    static func functions(in text: String) -> [(name: String, lines: Int)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [(name: String, lines: Int)] = []
        for (start, line) in lines.enumerated() {
            guard let name = declaredFunction(line) else { continue }
            var depth = 0, opened = false
            for end in start..<min(lines.count, start + 2000) {
                let code = withoutStringsAndComments(lines[end])
                depth += code.filter { $0 == "{" }.count - code.filter { $0 == "}" }.count
                opened = opened || code.contains("{")
                if opened, depth <= 0 {
                    found.append((name, end - start + 1))
                    break
                }
                if !opened, end > start + 10 { break }
            }
        }
        return found
    }

    static func declaredFunction(_ line: String) -> String? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "<" }).map(String.init)
        let modifiers: Set<String> = ["public", "private", "fileprivate", "internal", "package", "nonisolated", "static", "override",
                                      "final", "mutating", "@discardableResult", "convenience", "required", "@inlinable", "@Sendable"]
        guard let index = words.firstIndex(where: { !modifiers.contains($0) }) else { return nil }
        if words[index] == "init" || words[index] == "init?" { return "init" }
        guard words[index] == "func", index + 1 < words.count else { return nil }
        return words[index + 1]
    }

    static func withoutStringsAndComments(_ line: String) -> String {
        var code = "", inString = false, escaped = false
        var previous: Character = " "
        for character in line {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "/", previous == "/" {
                code.removeLast()
                break
            } else {
                code.append(character)
            }
            previous = character
        }
        return code
    }
}
