import Foundation
import Testing
import TraceFormats
import TraceModel
import TraceSamples
@testable import TraceServer

/// docs/api.md: "Absent values are `null`, never missing keys". Every stored property of every
/// API type must be a key of its JSON (a nil optional written as null by `NullWhenAbsent`, the one
/// mechanism), or be flattened into it (a summary row's stats). The values are the queries'
/// answers on every sample and on traces of other apps, walked down to every nested value; and
/// every Encodable struct declared in TraceModel and TraceServer must be met on the way, so a new
/// API type is checked as soon as it exists.
@Suite struct APIEncodingTests {
    static let sources = LiveServerTests.packageRoot.appendingPathComponent("Sources")

    /// Encodable structs that are not in any API answer, and why.
    static let notInTheAPI: [String: String] = [
        "TraceMetadata": "the native file's metadata; the API's trace info lists its fields itself",
        "TraceThread": "the native file's thread row; the API answers ThreadInfo",
        "TimelineInterval": "hitches and hangs of `inspect --format json`; the API's timeline is written by hand (Timeline.json)",
    ]

    /// Response wrappers private to their route files (being split per area): not reachable from
    /// here yet, so checked only by their routes' tests.
    static let privateToTheirRoutes: Set<String> = [
        "APIError.Body", "FindingsResponse", "LongUpdateAnswer", "LongUpdateStep", "TaskStateList", "TaskStateListRow", "TaskSummaryResponse",
    ]

    /// Walks values and records, per API type, what was checked and what was wrong.
    final class Walker {
        var met: Set<String> = []
        var problems: [String] = []
        private var checks: [String: Int] = [:]
        private let encoder = JSONEncoder()
        private let modules: Set<String>

        init(modules: Set<String> = ["TraceModel", "TraceServer"]) { self.modules = modules }

        /// "TraceModel.UpdateDetail.Thread" → "UpdateDetail.Thread"; nil for types of other modules.
        func name(of type: Any.Type) -> String? {
            let parts = String(reflecting: type).split(separator: ".")
            guard let module = parts.first, modules.contains(String(module)) else { return nil }
            return parts.dropFirst().filter { !$0.hasPrefix("(") }.joined(separator: ".")
        }

        func walk(_ root: Any) {
            var stack: [Any] = [root]
            while let value = stack.popLast() {
                let mirror = Mirror(reflecting: value)
                if mirror.displayStyle == .struct, let name = name(of: type(of: value)), let encodable = value as? any Encodable {
                    met.insert(name)
                    check(encodable, named: name, mirror)
                }
                // Down into properties, optionals, arrays, dictionaries and property wrappers; not
                // into arrays of plain values (update ids, durations), which hold no API type.
                if mirror.displayStyle == .collection, let first = mirror.children.first?.value, Mirror(reflecting: first).children.isEmpty {
                    continue
                }
                stack.append(contentsOf: mirror.children.map(\.value))
            }
        }

        /// The value's JSON object has a key for every stored property, or holds its keys (flattened).
        private func check(_ value: any Encodable, named name: String, _ mirror: Mirror) {
            // Every value of small traces, but not every row of a big answer.
            checks[name, default: 0] += 1
            guard checks[name]! <= 400, let object = json(value) as? [String: Any] else { return }
            for child in mirror.children {
                guard let label = child.label else { continue }
                let key = label.hasPrefix("_") ? String(label.dropFirst()) : label
                if object[key] != nil { continue }
                if let flattened = (child.value as? any Encodable).flatMap(json) as? [String: Any], !flattened.isEmpty,
                    flattened.keys.allSatisfy({ object[$0] != nil }) {
                    continue
                }
                let problem = "\(name).\(key) is not in its JSON (keys: \(object.keys.sorted().joined(separator: ", ")))"
                if !problems.contains(problem) { problems.append(problem) }
            }
        }

        private func json(_ value: any Encodable) -> Any? {
            guard let data = try? encoder.encode(value) else { return nil }
            return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        }
    }

    /// Every struct declared Encodable or Codable under Sources/TraceModel and Sources/TraceServer,
    /// named as `Walker.name(of:)` names them (nested types as Outer.Inner).
    static func declaredAPITypes() throws -> Set<String> {
        var names: Set<String> = []
        let declaration = #/^(\s*)(?:public |package |private |fileprivate )?(struct|enum|extension|final class|class) (\w+)([^{]*)/#
        for module in ["TraceModel", "TraceServer"] {
            let folder = sources.appendingPathComponent(module)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" {
                var outer: String?
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    guard let match = line.firstMatch(of: declaration) else { continue }
                    let indent = match.1.count, kind = match.2, name = String(match.3), rest = match.4
                    if indent == 0 { outer = name }
                    guard kind != "enum", kind != "extension", rest.contains("Encodable") || rest.contains("Codable") else { continue }
                    names.insert(indent == 0 ? name : "\(outer ?? "?").\(name)")
                }
            }
        }
        return names
    }

    /// The answers of every query the API serves, on `trace`.
    static func answers(of trace: Trace, id: String) -> [Any] {
        var answers: [Any] = [
            TraceInfo(id: id, trace: trace),
            TraceRecord(id: id, trace: trace, sizeBytes: 1, uploadedAt: nil, isSample: true),
            TraceList(traces: [TraceRecord(id: id, trace: trace, sizeBytes: 1, uploadedAt: "2026-11-26T00:00:00Z", isSample: false, run: 2)]),
            Uploaded(trace: TraceRecord(id: id, trace: trace, sizeBytes: 1, uploadedAt: nil, isSample: false), summary: TraceInfo(id: id, trace: trace)),
            trace.summary(in: nil, filter: .all),
            trace.summary(in: TimeRange(start: trace.metadata.start, end: trace.metadata.start + trace.metadata.duration / 2), filter: .longViewBody),
            trace.taskSummary(),
            trace.findings(),
        ]
        let updates = trace.updates.count
        for update in stride(from: 0, to: updates, by: max(1, updates / 60)) {
            answers.append(trace.updateDetail(update) as Any)
            answers.append(trace.causeGraph(ofUpdate: update) as Any)
            // Folded fan-outs (collapsed groups and their members) at any fan-out.
            answers.append(trace.causeGraph(ofUpdate: update, fanOut: FanOutPolicy(limit: 2, visible: 1)) as Any)
        }
        if let view = trace.summary(in: nil, filter: .all).processes.first?.modules.first?.views.first {
            answers.append(trace.viewUpdates(ViewUpdatesQuery(view: view.name)))
            let module = trace.summary(in: nil, filter: .all).processes.first?.modules.first?.name ?? ""
            answers.append(trace.causeGraph(ofView: view.name, module: module))
        }
        answers += (0..<trace.signposts.count).map(trace.signpostDetail)
        answers += (0..<trace.taskStates.count).compactMap(trace.taskStateDetail)
        return answers
    }

    @Test func everyStoredPropertyOfEveryAPITypeIsAKeyOfItsJSON() throws {
        let walker = Walker()
        let samples = SampleTraces.names.map(SampleTraces.trace(named:))
        let mail = try XCTraceImporter.importTrace(
            at: LiveServerTests.packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures/xctrace-signposts/os-signpost.xml"), displayName: "mail.xml"
        )
        let others = [SyntheticTraces.trace(updates: 400, seed: 9), mail]
        for (index, trace) in (samples + others).enumerated() {
            walker.walk(Self.answers(of: trace, id: String(format: "%032x", index)))
        }
        for (before, after) in zip(samples + others, (samples + others).reversed()) {
            walker.walk(TraceComparison(before: before, after: after))
        }
        // Several recordings a side (with their spread), of another app: findings, intervals, skipped notifications.
        let pantry = { (slow: Bool) in ComparisonSide.pooled((1...2).map { PantryTraces.trace(slow: slow, run: UInt64($0)).comparisonSide() }) }
        walker.walk(TraceComparison(pantry(true), pantry(false)))
        #expect(walker.problems.isEmpty, "\(walker.problems.joined(separator: "\n"))")

        let declared = try Self.declaredAPITypes()
        let unmet = declared.subtracting(walker.met).subtracting(Self.notInTheAPI.keys).subtracting(Self.privateToTheirRoutes).sorted()
        #expect(unmet.isEmpty, "API types no answer reached (reach them above, or say in notInTheAPI why they are not API types): \(unmet)")
        #expect(declared.count > 40, "the declarations were found")
    }

    @Test func theCheckFindsAKeyLeftOut() {
        // Synthesized Encodable leaves a nil optional out; NullWhenAbsent writes null.
        struct Plain: Encodable { var name = "x"; var note: String? }
        struct Wrapped: Encodable { var name = "x"; @NullWhenAbsent var note: String? }
        let plain = Walker(modules: ["TraceServerTests"]), wrapped = Walker(modules: ["TraceServerTests"])
        plain.walk([Plain(note: "a"), Plain()])
        wrapped.walk([Wrapped(note: "a"), Wrapped()])
        #expect(plain.problems.count == 1 && plain.problems[0].hasSuffix("Plain.note is not in its JSON (keys: name)"), "\(plain.problems)")
        #expect(wrapped.problems.isEmpty && wrapped.met.count == 1)
    }
}
