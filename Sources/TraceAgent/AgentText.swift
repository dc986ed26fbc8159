import Foundation

/// A value of an API answer, read leniently: a missing key or another type reads as nil, so a
/// field the server adds or drops never crashes a tool.
struct JSON: @unchecked Sendable {
    let value: Any?

    init(_ value: Any?) {
        self.value = value is NSNull ? nil : value
    }

    init(parsing data: Data) throws(ToolError) {
        do {
            self.init(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
        } catch {
            throw ToolError("tracesvc answered something that is not JSON (\(data.count) bytes)")
        }
    }

    subscript(key: String) -> JSON { JSON((value as? [String: Any])?[key]) }
    subscript(index: Int) -> JSON {
        guard let list = value as? [Any], list.indices.contains(index) else { return JSON(nil) }
        return JSON(list[index])
    }

    var string: String? { value as? String }
    var text: String { string ?? "" }
    var int: Int64? { (value as? NSNumber)?.int64Value }
    var double: Double? { (value as? NSNumber)?.doubleValue }
    var bool: Bool? { value as? Bool }
    var list: [JSON] { (value as? [Any])?.map(JSON.init) ?? [] }
    var isNull: Bool { value == nil }
}

/// A tool's failure, told to the agent as a tool error (`isError`), never as a protocol error.
public struct ToolError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Durations and shares as a person reads them.
enum Format {
    static func duration(_ ns: Int64?) -> String {
        guard let ns else { return "?" }
        let magnitude = abs(ns)
        if magnitude >= 1_000_000_000 { return String(format: "%.2f s", Double(ns) / 1e9) }
        if magnitude >= 1_000_000 { return String(format: "%.2f ms", Double(ns) / 1e6) }
        if magnitude >= 1_000 { return String(format: "%.0f µs", Double(ns) / 1e3) }
        return "\(ns) ns"
    }

    /// A weight of the call tree: time, or cycles for a CPU Profiler trace.
    /// A moment on the trace's clock, fine enough to tell neighbouring updates apart.
    static func at(_ ns: Int64?) -> String {
        guard let ns else { return "?" }
        return String(format: "%.2f ms", Double(ns) / 1e6)
    }

    static func weight(_ value: Int64, unit: String) -> String {
        unit == "cycles" ? "\(value) cycles" : duration(value)
    }

    static func percent(_ part: Int64, of whole: Int64) -> String {
        whole > 0 ? String(format: "%.1f%%", Double(part) * 100 / Double(whole)) : "-"
    }

    /// One line of a trace's text: line breaks and control characters of a recording's strings
    /// cannot break the answer's layout.
    static func line(_ text: String, max: Int = 300) -> String {
        var clean = String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
        if clean.count > max { clean = String(clean.prefix(max - 1)) + "…" }
        return clean
    }
}

/// A tool's answer: a head that always shows, then items (costliest first) while they fit in
/// `maxBytes`, then a line saying what was left out and how to page on.
struct BoundedAnswer {
    /// 16 KB: about 4,000 tokens, a small share of any agent's context.
    static let maxBytes = 16 * 1024
    /// Room kept for the closing lines.
    private static let reserve = 600

    var head: [String] = []
    var items: [String] = []
    var tail: [String] = []

    /// `offset` is the first item's place among all `total`; `pageHint` says how to ask for the
    /// next page given its cursor.
    func render(offset: Int = 0, total: Int? = nil, noun: String = "items", pageHint: (String) -> String = { "pass cursor \"\($0)\" for more" }) -> String {
        var text = head.joined(separator: "\n")
        var budget = Self.maxBytes - Self.reserve - text.utf8.count - tail.joined(separator: "\n").utf8.count
        var shown = 0
        for item in items {
            let size = item.utf8.count + 1
            guard size <= budget else { break }
            text += "\n" + item
            budget -= size
            shown += 1
        }
        let all = total ?? (offset + items.count)
        let leftOut = all - offset - shown
        if !tail.isEmpty { text += "\n" + tail.joined(separator: "\n") }
        if leftOut > 0 {
            let why = shown < items.count ? " (the answer is kept under 16 KB)" : ""
            text += "\n\n\(leftOut) more \(noun) left out\(why): \(pageHint(String(offset + shown)))."
        } else if all > 0 {
            text += "\n\n(all \(all) \(noun) shown)"
        }
        return Self.clip(text)
    }

    /// The last guard: a head or tail made of a trace's long strings still ends under the bound.
    static func clip(_ text: String) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var clipped = Substring(text)
        while clipped.utf8.count > maxBytes - 80 { clipped = clipped.dropLast(max(1, (clipped.utf8.count - maxBytes + 80) / 4)) }
        return clipped + "\n… (cut at 16 KB)"
    }
}
