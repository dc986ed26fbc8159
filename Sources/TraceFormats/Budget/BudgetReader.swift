import Foundation
import TraceModel

/// Reads a budget file (docs/budgets.schema.json, docs/ci.md). Every mistake is reported where
/// it stands, `file:line:column: rules[2].max: ...`, using the trace reader's JSON scanner.
public enum BudgetReader {
    public static func read(at url: URL, displayName: String) throws(TraceFormatError) -> Budget {
        let source = try ByteSource(url: url, displayName: displayName, chunkSize: 64 << 10)
        var parser = BudgetParser(scanner: JSONScanner(source: source))
        var budget: Budget
        do {
            budget = try parser.parse()
        } catch {
            throw allMistakes(first: error, url: url, displayName: displayName)
        }
        // Each rule's line, for annotations that point at it (`::error file=budget.json,line=4`).
        for (index, offset) in parser.ruleOffsets.enumerated() where index < budget.rules.count {
            budget.rules[index].line = TextLocation.lineAndColumn(of: offset, in: url).line
        }
        return budget
    }

    /// The first mistake, with those of the other rules on the lines after it
    /// (`budget.json:5:17: rules[2].max: ...`): a CI job's author fixes them all in one go. Each
    /// rule is read again on its own (BudgetRuleSpans); mistakes outside the rules stop at the first.
    private static func allMistakes(first: OffsetError, url: URL, displayName: String) -> TraceFormatError {
        var error = TextLocation.formatError(first, url: url, displayName: displayName)
        guard let bytes = try? Data(contentsOf: url), bytes.count <= BudgetRuleSpans.maxBytes, bytes.first != 0x1f,
              let spans = BudgetRuleSpans.rules(in: [UInt8](bytes)) else { return error }
        var others: [OffsetError] = []
        for (index, span) in spans.enumerated() where !span.contains(first.offset) && others.count < 20 {
            // The rule alone at its own offsets: the bytes around it are blanks.
            var alone = [UInt8](repeating: UInt8(ascii: " "), count: span.upperBound)
            alone.replaceSubrange(span, with: bytes[span])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tracesvc-budget-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            guard (try? Data(alone).write(to: file)) != nil, let source = try? ByteSource(url: file) else { break }
            var parser = BudgetParser(scanner: JSONScanner(source: source))
            do {
                _ = try parser.parseRule(path: "rules[\(index)]")
            } catch {
                others.append(error)
            }
        }
        for other in others.sorted(by: { $0.offset < $1.offset }) {
            error.message += "\n" + TextLocation.formatError(other, url: url, displayName: displayName).description
        }
        return error
    }

    /// "16ms", "500 us", "1.5 s" in nanoseconds (DurationText.parse, the one syntax of the CLI and
    /// the browser); nil when the text is not a duration. A budget's string has a unit: a bare
    /// number is not read as nanoseconds here, where "16" most likely meant milliseconds.
    public static func duration(_ text: String) -> Nanoseconds? {
        guard text.contains(where: { $0.isLetter }) else { return nil }
        return DurationText.parse(text)
    }
}

/// Keys of the file, one place (the schema in docs/ lists the same).
enum BudgetKeys {
    static let top = ["$schema", "version", "window", "rules", "baseline"]
    static let rule = ["name", "metric", "views", "perView", "window", "max", "kinds", "minSeverity", "thresholds", "functions", "over", "interaction"]
    static let window = ["from", "to"]
    static let baseline = ["countTolerance", "timeTolerance", "views"]
}

struct BudgetParser: ~Copyable {
    static let version: Int64 = 1
    /// Where each rule of the parsed budget starts, in order.
    private(set) var ruleOffsets: [Int] = []
    private var scanner: JSONScanner

    init(scanner: consuming JSONScanner) {
        self.scanner = scanner
    }

    mutating func parse() throws(OffsetError) -> Budget {
        let start = try tokenOffset()
        var object = try beginObject("the budget", expecting: "a JSON object (a budget file is {\"version\": 1, \"rules\": [...]})")
        var version: Int64?
        var rules: [RuleDraft] = []
        var budget = Budget()
        while let key = try nextKey(&object, in: "the budget", known: BudgetKeys.top) {
            switch key.name {
            case "$schema":
                _ = try readString(path: "$schema")
            case "version":
                let offset = try tokenOffset()
                guard try numberComesNext() else {
                    throw typeError(path: "version", expected: "the number \(Self.version)")
                }
                version = try scanner.readInt64(field: "version")
                guard version == Self.version else {
                    throw OffsetError(offset: offset, message: "version: unsupported version \(version!); this tracesvc reads version \(Self.version)")
                }
            case "window":
                budget.window = try readWindow(path: "window")
            case "rules":
                rules = try readRules()
            default:
                budget.baseline = try readBaseline()
            }
        }
        if try scanner.peek() != nil { throw scanner.error("unexpected content after the end of the budget object") }
        guard version != nil else { throw OffsetError(offset: start, message: "the budget: missing \"version\": 1") }

        var names: Set<String> = []
        for draft in rules {
            let rule = draft.rule
            guard names.insert(rule.name).inserted else {
                throw OffsetError(offset: draft.nameOffset, message: "\(draft.path): another rule is named \"\(rule.name)\"; rule names must differ (they name the JUnit test cases)")
            }
            budget.rules.append(rule)
            ruleOffsets.append(draft.offset)
        }
        return budget
    }

    private struct RuleDraft {
        var rule: BudgetRule
        var path: String
        /// Where the name is (or the rule, when the name is made up).
        var nameOffset: Int
        /// Where the rule's object starts.
        var offset: Int
    }

    // MARK: Rules

    /// One rule object and nothing else (BudgetReader.allMistakes reads each rule on its own).
    mutating func parseRule(path: String) throws(OffsetError) -> BudgetRule {
        try readRule(path: path).rule
    }

    private mutating func readRules() throws(OffsetError) -> [RuleDraft] {
        try expectArray(path: "rules", of: "rules (objects)")
        var drafts: [RuleDraft] = []
        if try scanner.consume(UInt8(ascii: "]")) { return [] }
        repeat {
            drafts.append(try readRule(path: "rules[\(drafts.count)]"))
        } while try scanner.nextElement()
        return drafts
    }

    private mutating func readRule(path: String) throws(OffsetError) -> RuleDraft {
        let start = try tokenOffset()
        var object = try beginObject(path, expecting: "a rule object, e.g. {\"metric\": \"red-updates\", \"max\": 0}")
        var name: (text: String, offset: Int)?
        var metric: (value: BudgetMetric, offset: Int)?
        var views: (globs: [Glob], offset: Int)?
        var perView: (value: Bool, offset: Int)?
        var window: BudgetWindow?
        var limit: (token: LimitToken, offset: Int)?
        var findings = FindingsFilter()
        /// The first key only a findings rule may have, to point at when the metric is another.
        var findingsKey: (name: String, offset: Int)?
        var interaction: (glob: Glob, offset: Int)?
        var functions: (globs: [Glob], offset: Int)?
        var over: (value: Nanoseconds, text: String, offset: Int)?
        while let key = try nextKey(&object, in: path, known: BudgetKeys.rule) {
            let field = "\(path).\(key.name)"
            let offset = try tokenOffset()
            switch key.name {
            case "name":
                let text = try readString(path: field)
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw OffsetError(offset: offset, message: "\(field): must not be empty") }
                name = (text, offset)
            case "metric":
                let text = try readString(path: field)
                guard let value = BudgetMetric(rawValue: text) else {
                    throw OffsetError(offset: offset, message: "\(field): unknown metric \"\(text)\"; metrics: \(BudgetMetric.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                metric = (value, offset)
            case "views":
                views = (try readGlobs(path: field), offset)
            case "perView":
                perView = (try readBool(path: field), offset)
            case "functions":
                functions = (try readGlobs(path: field, noun: "resume function"), offset)
            case "over":
                let text = try readString(path: field)
                over = (try durationValue(text, path: field, offset: offset), text, offset)
            case "window":
                window = try readWindow(path: field)
            case "max":
                limit = (try readLimitToken(path: field), offset)
            case "interaction":
                interaction = (try readGlob(path: field), offset)
            case "kinds":
                findings.kinds = try readKinds(path: field)
                findingsKey = findingsKey ?? (key.name, key.offset)
            case "minSeverity":
                let text = try readString(path: field)
                guard let severity = FindingSeverity(rawValue: text) else {
                    throw OffsetError(offset: offset, message: "\(field): unknown severity \"\(text)\"; severities: \(FindingSeverity.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                findings.minSeverity = severity
                findingsKey = findingsKey ?? (key.name, key.offset)
            default:
                findings.options = try readThresholds(path: field)
                findingsKey = findingsKey ?? (key.name, key.offset)
            }
        }
        guard let metric else { throw OffsetError(offset: start, message: "\(path): missing \"metric\"") }
        guard let limit else { throw OffsetError(offset: start, message: "\(path): missing \"max\"") }
        if let views, !metric.value.acceptsViews {
            let metrics = BudgetMetric.allCases.filter(\.acceptsViews).map(\.rawValue).joined(separator: ", ")
            throw OffsetError(offset: views.offset, message: "\(path).views: \(metric.value.rawValue) is not about views; views narrow only \(metrics)")
        }
        if let perView, !metric.value.isPerView {
            let metrics = BudgetMetric.allCases.filter(\.isPerView).map(\.rawValue).joined(separator: ", ")
            throw OffsetError(offset: perView.offset, message: "\(path).perView: applies only to \(metrics), not \(metric.value.rawValue)")
        }
        if let findingsKey, metric.value != .findings {
            throw OffsetError(offset: findingsKey.offset, message: "\(path).\(findingsKey.name): applies only to the findings metric, not \(metric.value.rawValue)")
        }
        if let functions, !metric.value.isMainActor {
            let metrics = BudgetMetric.allCases.filter(\.isMainActor).map(\.rawValue).joined(separator: ", ")
            throw OffsetError(offset: functions.offset, message: "\(path).functions: \(metric.value.rawValue) is not about Swift tasks; functions narrow only \(metrics)")
        }
        if let over, metric.value != .mainActorTasksOver {
            throw OffsetError(offset: over.offset, message: "\(path).over: applies only to main-actor-tasks-over, not \(metric.value.rawValue)")
        }
        if let interaction, metric.value != .perInteraction {
            throw OffsetError(offset: interaction.offset, message: "\(path).interaction: applies only to the per-interaction metric, not \(metric.value.rawValue)")
        }
        if interaction == nil, metric.value == .perInteraction {
            throw OffsetError(offset: start, message: "\(path): missing \"interaction\", the signpost name of the intervals measured (e.g. \"Favorite Tap\")")
        }
        let limitValue = try limitValue(limit.token, metric: metric.value, path: "\(path).max", offset: limit.offset)
        var defaultName = metric.value.rawValue
        if !findings.kinds.isEmpty { defaultName += " (" + findings.kinds.map(\.rawValue).joined(separator: ", ") + ")" }
        if let views { defaultName += " of " + views.globs.map(\.pattern).joined(separator: ", ") }
        if let functions { defaultName += " of " + functions.globs.map(\.pattern).joined(separator: ", ") }
        if let over { defaultName += " over \(over.text)" }
        if perView?.value == true { defaultName += " (each view)" }
        if let interaction { defaultName += " per \(interaction.glob.pattern)" }
        defaultName += " ≤ \(limit.token.text)"
        let rule = BudgetRule(
            name: name?.text ?? defaultName, metric: metric.value, views: views?.globs ?? [], perView: perView?.value ?? false,
            window: window, limit: limitValue, findings: findings, functions: functions?.globs ?? [], over: over?.value, interaction: interaction?.glob
        )
        return RuleDraft(rule: rule, path: path, nameOffset: name?.offset ?? start, offset: start)
    }

    /// `max` as written: its meaning (count or duration) depends on the metric, which may come after it.
    private enum LimitToken {
        case number(Double, text: String)
        case string(String)

        var text: String {
            switch self {
            case .number(_, let text): text
            case .string(let text): text
            }
        }
    }

    private mutating func readLimitToken(path: String) throws(OffsetError) -> LimitToken {
        if try scanner.peek() == UInt8(ascii: "\"") { return .string(try scanner.readString(field: path)) }
        guard try numberComesNext() else {
            throw typeError(path: path, expected: "a number (a count) or a duration string such as \"16ms\"")
        }
        let value = try scanner.readDouble(field: path)
        return .number(value, text: Units.plain(value))
    }

    private func limitValue(_ token: LimitToken, metric: BudgetMetric, path: String, offset: Int) throws(OffsetError) -> Int64 {
        switch (token, metric.unit == .nanoseconds) {
        case (.number(let value, let text), false):
            guard value >= 0 else { throw OffsetError(offset: offset, message: "\(path): must not be negative, found \(text)") }
            guard value == value.rounded(), value <= Double(Int32.max) else {
                throw OffsetError(offset: offset, message: "\(path): \(metric.rawValue) counts; expected a whole number, found \(text)")
            }
            return Int64(value)
        case (.string(let text), false):
            throw OffsetError(offset: offset, message: "\(path): \(metric.rawValue) counts; expected a whole number, found the string \"\(text)\"")
        case (.number(_, let text), true):
            throw OffsetError(offset: offset, message: "\(path): \(metric.rawValue) is a time; expected a duration string with a unit such as \"16ms\", \"500us\" or \"1.5s\", found the number \(text)")
        case (.string(let text), true):
            return try durationValue(text, path: path, offset: offset)
        }
    }

    private func durationValue(_ text: String, path: String, offset: Int) throws(OffsetError) -> Nanoseconds {
        if text.hasPrefix("-") { throw OffsetError(offset: offset, message: "\(path): must not be negative, found \"\(text)\"") }
        guard let value = BudgetReader.duration(text) else {
            throw OffsetError(offset: offset, message: "\(path): \"\(text)\" is not a duration; write a number and a unit (ns, us, ms, s), e.g. \"16ms\"")
        }
        return value
    }

    // MARK: Parts

    private mutating func readWindow(path: String) throws(OffsetError) -> BudgetWindow {
        let start = try tokenOffset()
        var object = try beginObject(path, expecting: "an object such as {\"from\": \"1s\", \"to\": \"5s\"}")
        var window = BudgetWindow()
        while let key = try nextKey(&object, in: path, known: BudgetKeys.window) {
            let field = "\(path).\(key.name)"
            let offset = try tokenOffset()
            let value = try durationValue(try readString(path: field), path: field, offset: offset)
            if key.name == "from" { window.from = value } else { window.to = value }
        }
        if let from = window.from, let to = window.to, to <= from {
            throw OffsetError(offset: start, message: "\(path): \"to\" must be after \"from\"")
        }
        return window
    }

    private mutating func readBaseline() throws(OffsetError) -> BaselineTolerance {
        var object = try beginObject("baseline", expecting: "an object such as {\"countTolerance\": 0.1, \"timeTolerance\": 0.2}")
        var tolerance = BaselineTolerance()
        while let key = try nextKey(&object, in: "baseline", known: BudgetKeys.baseline) {
            let field = "baseline.\(key.name)"
            switch key.name {
            case "views":
                tolerance.views = try readGlobs(path: field)
            default:
                let offset = try tokenOffset()
                guard try numberComesNext() else {
                    throw typeError(path: field, expected: "a fraction such as 0.1 (10 % growth)")
                }
                let value = try scanner.readDouble(field: field)
                guard value >= 0 else { throw OffsetError(offset: offset, message: "\(field): must not be negative, found \(Units.plain(value))") }
                if key.name == "countTolerance" { tolerance.count = value } else { tolerance.time = value }
            }
        }
        return tolerance
    }

    /// A finding kind or a non-empty array of them.
    private mutating func readKinds(path: String) throws(OffsetError) -> [FindingKind] {
        var kinds: [FindingKind] = []
        let single = try scanner.peek() == UInt8(ascii: "\"")
        if !single {
            let start = try tokenOffset()
            try expectArray(path: path, of: "finding kinds, or one kind")
            if try scanner.consume(UInt8(ascii: "]")) {
                throw OffsetError(offset: start, message: "\(path): an empty list matches no finding; leave \"kinds\" out to mean every kind")
            }
        }
        while true {
            let field = single ? path : "\(path)[\(kinds.count)]"
            let offset = try tokenOffset()
            let text = try readString(path: field)
            guard let kind = FindingKind(rawValue: text) else {
                throw OffsetError(offset: offset, message: "\(field): unknown finding kind \"\(text)\"; kinds: \(FindingKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            kinds.append(kind)
            if single { return kinds }
            if try !scanner.nextElement() { return kinds }
        }
    }

    /// Findings thresholds by name (docs/findings.md), e.g. {"fanOutMinBodies": 12}.
    private mutating func readThresholds(path: String) throws(OffsetError) -> FindingsOptions {
        var options = FindingsOptions()
        var object = try beginObject(path, expecting: "an object of thresholds such as {\"fanOutMinBodies\": 12}")
        let names = FindingsOptions.parameters.map(\.name)
        while let key = try nextKey(&object, in: path, known: names) {
            let field = "\(path).\(key.name)"
            let offset = try tokenOffset()
            guard try numberComesNext() else {
                throw typeError(path: field, expected: "a number")
            }
            let value = try scanner.readDouble(field: field)
            do {
                try options.set(key.name, to: Units.plain(value))
            } catch {
                throw OffsetError(offset: offset, message: "\(path).\(error.description)")
            }
        }
        return options
    }

    /// A name pattern or a non-empty array of them (of view names, or of resume functions).
    private mutating func readGlobs(path: String, noun: String = "view") throws(OffsetError) -> [Glob] {
        if try scanner.peek() == UInt8(ascii: "\"") { return [try readGlob(path: path)] }
        let start = try tokenOffset()
        try expectArray(path: path, of: "a name pattern (\"*Row*\") or an array of them")
        var globs: [Glob] = []
        if try scanner.consume(UInt8(ascii: "]")) {
            let key = path.split(separator: ".").last.map(String.init) ?? "views"
            throw OffsetError(offset: start, message: "\(path): an empty list matches no \(noun); leave \"\(key)\" out to mean every \(noun)")
        }
        repeat {
            globs.append(try readGlob(path: "\(path)[\(globs.count)]"))
        } while try scanner.nextElement()
        return globs
    }

    private mutating func readGlob(path: String) throws(OffsetError) -> Glob {
        let offset = try tokenOffset()
        let pattern = try readString(path: path)
        do {
            return try Glob(pattern)
        } catch {
            throw OffsetError(offset: offset, message: "\(path): bad pattern \"\(pattern)\": \(error.message)")
        }
    }

    // MARK: Tokens

    private struct ObjectState {
        var first = true
        var seen: Set<String> = []
    }

    private mutating func tokenOffset() throws(OffsetError) -> Int {
        _ = try scanner.peek()
        return scanner.offset
    }

    private mutating func beginObject(_ path: String, expecting: String) throws(OffsetError) -> ObjectState {
        guard try scanner.peek() == UInt8(ascii: "{") else { throw typeError(path: path, expected: expecting) }
        try scanner.expect(UInt8(ascii: "{"), "'{'")
        return ObjectState()
    }

    /// The next key of an object and its ':' consumed; nil (and '}' consumed) at the end.
    private mutating func nextKey(_ state: inout ObjectState, in path: String, known: [String]) throws(OffsetError) -> (name: String, offset: Int)? {
        if state.first {
            state.first = false
            if try scanner.consume(UInt8(ascii: "}")) { return nil }
        } else if try !scanner.nextElement(closing: UInt8(ascii: "}")) {
            return nil
        }
        let offset = try tokenOffset()
        let name = try scanner.readString()
        guard known.contains(name) else {
            throw OffsetError(offset: offset, message: "\(path): unknown key \"\(name)\"; expected one of: \(known.joined(separator: ", "))")
        }
        guard state.seen.insert(name).inserted else { throw OffsetError(offset: offset, message: "\(path): \"\(name)\" appears twice") }
        try scanner.expect(UInt8(ascii: ":"), "':' after \"\(name)\"")
        return (name, offset)
    }

    private mutating func expectArray(path: String, of what: String) throws(OffsetError) {
        guard try scanner.peek() == UInt8(ascii: "[") else { throw typeError(path: path, expected: "an array of \(what)") }
        try scanner.expect(UInt8(ascii: "["), "'['")
    }

    private mutating func numberComesNext() throws(OffsetError) -> Bool {
        guard let byte = try scanner.peek() else { return false }
        return byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private mutating func readString(path: String) throws(OffsetError) -> String {
        guard try scanner.peek() == UInt8(ascii: "\"") else { throw typeError(path: path, expected: "a string") }
        return try scanner.readString(field: path)
    }

    private mutating func readBool(path: String) throws(OffsetError) -> Bool {
        guard let byte = try scanner.peek(), byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") else {
            throw typeError(path: path, expected: "true or false")
        }
        return try scanner.readBool(field: path)
    }

    /// "rules[0].perView: expected true or false, found the string "yes"", pointing at the value.
    private mutating func typeError(path: String, expected: String) -> OffsetError {
        let found = scanner.describeNext()
        return scanner.error("\(path): expected \(expected), found \(found)", field: path)
    }
}

private enum Units {
    /// 2 → "2", 0.5 → "0.5", as the number was most likely written.
    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Where each element of a budget's top-level "rules" array lies in the file's bytes, found
/// without reading the values (iteratively: no depth an input controls); nil when the file is not
/// well-formed enough to tell.
enum BudgetRuleSpans {
    /// Larger files are not budgets; only the first mistake of one is reported.
    static let maxBytes = 1 << 20

    static func rules(in bytes: [UInt8]) -> [Range<Int>]? {
        var i = skipSpaces(bytes, 0)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            i = skipSpaces(bytes, i)
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return [] }
            guard bytes[i] == UInt8(ascii: "\""), let keyEnd = stringEnd(bytes, i) else { return nil }
            let key = bytes[(i + 1)..<(keyEnd - 1)]
            i = skipSpaces(bytes, keyEnd)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpaces(bytes, i + 1)
            if key.elementsEqual("rules".utf8), i < bytes.count, bytes[i] == UInt8(ascii: "[") {
                var spans: [Range<Int>] = []
                i += 1
                while true {
                    i = skipSpaces(bytes, i)
                    guard i < bytes.count else { return spans }
                    if bytes[i] == UInt8(ascii: "]") { return spans }
                    guard let end = valueEnd(bytes, i) else { return spans }
                    spans.append(i..<end)
                    i = skipSpaces(bytes, end)
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return spans }
                    i += 1
                }
            }
            guard let end = valueEnd(bytes, i) else { return nil }
            i = skipSpaces(bytes, end)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    private static func skipSpaces(_ bytes: [UInt8], _ start: Int) -> Int {
        var i = start
        while i < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(bytes[i]) { i += 1 }
        return i
    }

    /// Just past the closing quote of the string starting at `start`.
    private static func stringEnd(_ bytes: [UInt8], _ start: Int) -> Int? {
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
            if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return nil
    }

    /// Just past the value starting at `start`: a string, an object or array (brackets counted
    /// outside strings), or a number or keyword.
    private static func valueEnd(_ bytes: [UInt8], _ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(bytes, i) else { return nil }
                    i = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(bytes[i]) { i += 1 }
            return i > start ? i : nil
        }
    }
}
