import Foundation
import Logging
import Testing
@testable import TraceServer

/// docs/api.md lists every route in its "Routes" table; the router must have exactly those.
@Suite struct DocsTests {
    @Test func apiDocumentListsExactlyTheRouterRoutes() async throws {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: packageRoot.appendingPathComponent("docs/api.md"), encoding: .utf8)
        // Rows like: | `GET` | `/api/traces/{id}` | ... | (the router describes captures as {id} too)
        var documented = Set<String>()
        for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let method = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let path = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            documented.insert("\(method) \(path)")
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 20), logger: Logger(label: "test")
        )
        let router = buildRouter(store: store, options: scratch.options())
        let routed = Set(router.routes.map { "\($0.method) \($0.path)" })
        #expect(!documented.isEmpty)
        #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed).sorted())")
        #expect(routed.subtracting(documented).isEmpty, "routed but not documented: \(routed.subtracting(documented).sorted())")
    }
}
