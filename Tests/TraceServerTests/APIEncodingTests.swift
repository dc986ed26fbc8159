import Foundation
import Testing
import TraceFormats
import TraceModel
import TraceSamples
@testable import TraceServer
import TraceStorage

/// docs/api.md: "Absent values are `null`, never missing keys". Every stored property of every
/// API type must be a key of its JSON (a nil optional written as null by `NullWhenAbsent`, the one
/// mechanism), or be flattened into it (a summary row's stats). The values are the queries'
/// answers on every sample and on traces of other apps, walked down to every nested value; and
/// every Encodable struct declared in TraceModel and TraceServer must be met on the way (or, when
/// private to its file, write its optionals through NullWhenAbsent), so a new API type is checked
/// as soon as it exists.
@Suite struct APIEncodingTests {
    static let sources = LiveServerTests.packageRoot.appendingPathComponent("Sources")

    /// Encodable structs that are not in any API answer, and why.
    static let notInTheAPI: [String: String] = [
        "TraceMetadata": "the native file's metadata; the API's trace info lists its fields itself",
        "TraceThread": "the native file's thread row; the API answers ThreadInfo",
        "TimelineInterval": "hitches and hangs of `inspect --format json`; the API's timeline is written by hand (Timeline.json)",
    ]

    /// Stored properties written as other keys, and why.
    static let writtenAsOtherKeys: [String: String] = [
        "TraceRecord.stored": "the catalog's row: its fields are the record's keys (uploadedAtMicros as uploadedAt); the hash, blob key and parser version stay on the server",
        "LaneCount.lane": "the lane's wire name, as `id` (the page's lane ids)",
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
                if object[key] != nil || APIEncodingTests.writtenAsOtherKeys["\(name).\(key)"] != nil { continue }
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

    /// A struct declared Encodable or Codable under Sources/TraceModel or Sources/TraceServer.
    struct Declaration {
        /// As `Walker.name(of:)` names it (a nested type as Outer.Inner).
        var name: String
        /// Private to its file: no test can make one.
        var isPrivate: Bool
        /// Its stored optional properties not written through NullWhenAbsent (source lines).
        var plainOptionals: [String] = []
    }

    static func declaredAPITypes() throws -> [String: Declaration] {
        var found: [String: Declaration] = [:]
        for module in ["TraceModel", "TraceServer"] {
            let folder = sources.appendingPathComponent(module)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" {
                found.merge(declarations(in: try String(contentsOf: file, encoding: .utf8))) { $1 }
            }
        }
        return found
    }

    /// The Encodable structs one source file declares.
    static func declarations(in source: String) -> [String: Declaration] {
        var found: [String: Declaration] = [:]
        let declaration = #/^(\s*)(public |package |private |fileprivate )?(struct|enum|extension|final class|class) (\w+)([^{]*)/#
        let storedOptional = #/^\s*(?:@\w+(?:\([^)]*\))? )*(?:public |package |private |fileprivate )?(?:private\(set\) )?(?:var|let) \w+: [^={]*\?/#
        var outer: String?
        var open: [(name: String, indent: Int)] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            while let last = open.last, indent <= last.indent, line.dropFirst(indent).hasPrefix("}") { open.removeLast() }
            if let match = line.firstMatch(of: declaration) {
                let kind = match.3, name = String(match.4), rest = match.5
                if indent == 0 { outer = name }
                guard kind != "enum", kind != "extension", rest.contains("Encodable") || rest.contains("Codable") else { continue }
                let qualified = indent == 0 ? name : "\(outer ?? "?").\(name)"
                found[qualified] = Declaration(name: qualified, isPrivate: ["private ", "fileprivate "].contains(match.2 ?? ""))
                if !rest.contains("}") { open.append((qualified, indent)) }
            } else if let current = open.last, indent == current.indent + 4, line.contains(storedOptional), !line.contains("@NullWhenAbsent") {
                found[current.name]?.plainOptionals.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return found
    }

    /// The answers of every query the API serves, on `trace`.
    static func answers(of trace: Trace, id: String) -> [Any] {
        var answers: [Any] = [
            TraceInfo(id: id, trace: trace),
            TraceRecord.sample(id: id, trace: trace, sizeBytes: 1),
            TraceList(traces: [TraceRecord(entry: CatalogEntry(id: id, trace: trace, sizeBytes: 1, sha256: "", run: 2, uploadedAtMicros: 1_764_115_200_000_000, parserVersion: 1))], total: 1, maxUploadBytes: 1 << 20),
            TraceList(traces: [], nextCursor: "1764115200000000.\(id)", total: 7, maxUploadBytes: 1 << 20),
            Readiness.Report(ready: false, services: [
                .init(name: "catalog (PostgreSQL)", ok: true, milliseconds: 2, error: nil),
                .init(name: "object store (S3)", ok: false, milliseconds: 3000, error: "object store (S3) unavailable: no answer within 3 s"),
            ], detail: "object store (S3) unavailable: no answer within 3 s"),
            Uploaded(trace: TraceRecord(entry: CatalogEntry(id: id, trace: trace, sizeBytes: 1, sha256: "", run: nil, uploadedAtMicros: 1, parserVersion: 1)), summary: TraceInfo(id: id, trace: trace),
                     tagOutcome: TagOutcome(traceID: id, stored: ["build:2"], notStored: [], moved: [.init(from: "build:1", to: "build:2")], conflicts: [], reason: nil)),
            TagOutcome(traceID: id, stored: [], notStored: ["build:3"], moved: [], conflicts: [.init(from: "build:2", to: "build:3")], reason: "refused"),
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
        // Instruments 27's hang risks: one inside a hang, one outside every hang and hitch.
        for row in 0..<trace.hangRisks.count { answers.append(trace.hangRiskDetail(row) as Any) }
        if let view = trace.summary(in: nil, filter: .all).processes.first?.modules.first?.views.first {
            answers.append(trace.viewUpdates(ViewUpdatesQuery(view: view.name)))
            let module = trace.summary(in: nil, filter: .all).processes.first?.modules.first?.name ?? ""
            answers.append(trace.causeGraph(ofView: view.name, module: module))
        }
        // The find box: a match and none (every key written either way).
        let matches = trace.matches(TimelineSearchQuery("e")!)
        answers.append(trace.searchMarks(matches, window: TimeRange(start: trace.metadata.start, end: trace.metadata.end + 1), width: 400))
        answers.append(trace.searchStep(matches, forward: true, after: nil, at: trace.metadata.start))
        answers.append(trace.searchStep(matches, forward: true, after: nil, at: trace.metadata.end + 1))
        answers += (0..<trace.signposts.count).map(trace.signpostDetail)
        answers += (0..<trace.taskStates.count).compactMap(trace.taskStateDetail)
        answers += historyAnswers(of: trace, id: id)
        return answers
    }

    /// A history of this trace's figures over 24 builds, stepping up at build 13 (with and
    /// without verdicts and findings), its notes of each kind, a verdict.
    static func historyAnswers(of trace: Trace, id: String) -> [Any] {
        let measurements = trace.measurements()
        let view = measurements.views.first
        var traces: [HistoryTrace] = []
        for build in 1...24 {
            let tags: [String] = build % 2 == 0 ? ["build:\(build)", "commit:c\(build)"] : ["build:\(build)"]
            let value = Int64(build < 13 ? 100 : 900 + build)
            let failed = build < 13 ? 0 : 1
            let check: HistoryCheck? = build % 3 == 0 ? HistoryCheck(passed: failed == 0, failedRules: failed, rules: 2, baselineId: build % 2 == 0 ? id : nil, summary: "s") : nil
            traces.append(HistoryTrace(
                id: String(format: "%032x", build), name: "run \(build)", orderKey: Int64(build), uploadedAt: "2026-11-26T00:00:00.000Z",
                tags: tags, value: value, check: check
            ))
        }
        let series = HistorySeries(metric: .bodyTimeTotal, traces: traces)
        var findingsByTrace: [String: [TraceMeasurements.FindingMark]] = [:]
        for trace in traces { findingsByTrace[trace.id] = measurements.findings }
        let findings = series.findingHistories(findingsByTrace)
        let answer = HistoryAnswer(
            metric: .init(.bodyTimeTotal), tags: ["branch:main"], view: view?.view, module: nil, finding: nil, order: "upload", matched: 24, shown: 24,
            pending: 0, window: series.window, builds: series.builds, changePoints: series.changePoints, firstBad: series.firstBad,
            suspect: series.suspect, noise: series.noise, verdict: series.verdict, findings: findings,
            views: measurements.views.map { .init(module: $0.module, view: $0.view, totalNs: $0.totalNs) },
            metrics: HistoryMetric.allCases.map(HistoryAnswer.MetricInfo.init), notes: ["n"]
        )
        let notes = [TraceNote.Target.update(1), .range(start: 1, end: 2), .finding("long-body:X")].enumerated().map { index, target in
            NoteJSON(TraceNote(id: String(format: "%016x", index), traceID: id, target: target, text: "t", createdAtMicros: 1))
        }
        return [
            answer, NoteList(notes: notes),
            VerdictJSON(CheckVerdict(traceID: id, passed: true, failedRules: 0, rules: 1, baselineID: nil, summary: "ok", checkedAtMicros: 1)),
            AuditList(events: [
                AuditEventJSON(AuditEvent(actor: "ci-main", action: .upload, traceID: id, traceName: "t", detail: "new")),
                AuditEventJSON(AuditEvent(actor: "retention", action: .delete, traceID: nil, traceName: nil, detail: "")),
            ], nextCursor: nil),
            DeletionList(dryRun: true, rules: nil, matched: 2, deleted: 0, traces: [
                .init(id: id, name: "t", uploadedAt: "2026-11-26T00:00:00.000Z", tags: [], rule: nil),
                .init(id: id, name: "t", uploadedAt: "2026-11-26T00:00:00.000Z", tags: ["branch:x"], rule: "branch=*:30d"),
            ]),
        ]
    }

    @Test func everyStoredPropertyOfEveryAPITypeIsAKeyOfItsJSON() throws {
        let walker = Walker()
        let samples = SampleTraces.names.map(SampleTraces.trace(named:))
        let mail = try XCTraceImporter.importTrace(
            at: LiveServerTests.packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures/xctrace-signposts/os-signpost.xml"), displayName: "mail.xml"
        )
        // Instruments 27: frames with their files and lines.
        let trips = try XCTraceImporter.importTrace(
            at: LiveServerTests.packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures/xctrace-27/time-profile.xml"), displayName: "trips.xml"
        )
        // Instruments 27: layout updates and downstream cost (concatenated tables of the Trips fixtures).
        let tripsFolder = LiveServerTests.packageRoot.appendingPathComponent("Tests/TraceFormatsTests/Fixtures/xctrace-27")
        let tripsTables = try ["swiftui-updates", "SwiftUILayoutUpdates2", "potential-hangs", "hang-risks"]
            .map { try Data(contentsOf: tripsFolder.appendingPathComponent("\($0).xml")) }.reduce(Data(), +)
        let tripsFile = FileManager.default.temporaryDirectory.appendingPathComponent("trips-27-\(UUID().uuidString).xml")
        try tripsTables.write(to: tripsFile)
        defer { try? FileManager.default.removeItem(at: tripsFile) }
        let tripsLayout = try XCTraceImporter.importTrace(at: tripsFile, displayName: "trips-27.xml")
        walker.walk(SourceLinkOptions(urlTemplate: "https://x/{commit}/{path}", root: "/r").link(tags: []))
        let others = [SyntheticTraces.trace(updates: 400, seed: 9), mail, trips, tripsLayout]
        for (index, trace) in (samples + others).enumerated() {
            walker.walk(Self.answers(of: trace, id: String(format: "%032x", index)))
        }
        for (before, after) in zip(samples + others, (samples + others).reversed()) {
            walker.walk(TraceComparison(before: before, after: after))
        }
        // Several recordings a side (with their spread), of another app: findings, intervals, skipped notifications.
        let pantry = { (slow: Bool) in ComparisonSide.pooled((1...2).map { PantryTraces.trace(slow: slow, run: UInt64($0)).comparisonSide() }) }
        walker.walk(TraceComparison(pantry(true), pantry(false)))
        // The noise of earlier recordings with the same tags (GET /api/noise, and a compare's `noise`).
        let earlier = EarlierNoise((1...3).map { run in
            EarlierRecording(build: "b\(run)", measurements: PantryTraces.trace(slow: false, run: UInt64(run)).measurements())
        }, tags: ["scenario:pantry"])
        #expect(earlier != nil)
        walker.walk(EarlierNoiseAnswer(earlier: earlier))
        walker.walk(TraceComparison(PantryTraces.trace(slow: true, run: 1).comparisonSide(), PantryTraces.trace(slow: false, run: 1).comparisonSide(), earlier: earlier))
        #expect(walker.problems.isEmpty, "\(walker.problems.joined(separator: "\n"))")

        let declared = try Self.declaredAPITypes()
        #expect(declared.count > 40 && declared.values.contains { $0.isPrivate }, "the declarations were found")
        // A type private to its file (a route's response wrapper) cannot be made here: its
        // source must write every optional through NullWhenAbsent, which then writes every key.
        let unmet = declared.values.filter { !walker.met.contains($0.name) && Self.notInTheAPI[$0.name] == nil }
        let unchecked = unmet.filter { !$0.isPrivate }.map(\.name).sorted()
        #expect(unchecked.isEmpty, "API types no answer reached (reach them above, or say in notInTheAPI why they are not API types): \(unchecked)")
        let plain = unmet.filter(\.isPrivate).flatMap { declaration in declaration.plainOptionals.map { "\(declaration.name): \($0)" } }
        #expect(plain.isEmpty, "optionals that synthesized Encodable would leave out when nil: \(plain)")
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

    @Test func theSourceCheckFindsAnOptionalLeftOut() {
        let found = Self.declarations(in: """
            private struct Answer: Encodable {
                var rows: [Int]
                var next: Int?
                @NullWhenAbsent var previous: Int?
                var count: Int { rows.count }
                struct Row: Encodable { var id: Int }
                struct Page: Encodable {
                    let cursor: String?
                }
            }
            struct Plain { var note: String? }
            """)
        #expect(found.keys.sorted() == ["Answer", "Answer.Page", "Answer.Row"])
        #expect(found["Answer"]?.isPrivate == true && found["Answer.Row"]?.isPrivate == false)
        #expect(found["Answer"]?.plainOptionals == ["var next: Int?"])
        #expect(found["Answer.Page"]?.plainOptionals == ["let cursor: String?"] && found["Answer.Row"]?.plainOptionals == [])
    }
}
