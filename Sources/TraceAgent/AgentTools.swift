import Foundation
import MCP

/// Where the tools read and what they may do: the same tools answer over stdio (`tracesvc mcp`)
/// and at `POST /mcp`, from the same API, so with the same `linkBase` they answer the same text.
public struct AgentContext: Sendable {
    public var api: any TraceAPI
    /// The server's root URL as a person opens it ("http://127.0.0.1:8080"): every share link starts with it.
    public var linkBase: String
    /// False where `/mcp` was asked without the write token: `add_note` is refused.
    public var writesAllowed: Bool

    public init(api: any TraceAPI, linkBase: String, writesAllowed: Bool) {
        var root = linkBase
        while root.hasSuffix("/") { root.removeLast() }
        (self.api, self.linkBase, self.writesAllowed) = (api, root, writesAllowed)
    }

    /// A share link (docs/share-links.md) on this server.
    func link(_ trace: String, _ view: ShareLink.TraceView = .init()) -> String {
        linkBase + ShareLink.trace(trace, view)
    }

    /// GETs `path` and reads its JSON; an error status becomes a tool error naming what was asked.
    func get(_ path: String, what: String) async throws(ToolError) -> JSON {
        let answer: APIAnswer
        do throws(TraceAPIError) {
            answer = try await api.get(path)
        } catch {
            throw ToolError("\(what): \(error.description)")
        }
        return try Self.read(answer, what: what)
    }

    static func read(_ answer: APIAnswer, what: String) throws(ToolError) -> JSON {
        guard (200..<300).contains(answer.status) else {
            let body = try? JSON(parsing: answer.body)
            let error = body?["error"].string ?? "HTTP \(answer.status)"
            let detail = body?["detail"].string.map { ": \($0)" } ?? ""
            let hint = answer.status == 503 ? " (the server is busy, stopping or a storage service is down: try again shortly)" : ""
            throw ToolError("\(what): \(error)\(detail)\(hint)")
        }
        return try JSON(parsing: answer.body)
    }
}

/// Reads a tool's arguments, each checked, a bad one named.
struct Arguments {
    let values: [String: Value]

    func string(_ name: String) throws(ToolError) -> String? {
        guard let value = values[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw ToolError("argument \(name): expected a string") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    func required(_ name: String) throws(ToolError) -> String {
        guard let text = try string(name) else { throw ToolError("argument \(name) is required") }
        return text
    }

    func int(_ name: String, in range: ClosedRange<Int64>) throws(ToolError) -> Int64? {
        guard let value = values[name], !value.isNull else { return nil }
        let number: Int64?
        switch value {
        case .int(let n): number = Int64(n)
        case .double(let d) where d.rounded() == d && abs(d) < 9e18: number = Int64(d)
        case .string(let s): number = Int64(s)
        default: number = nil
        }
        guard let number, range.contains(number) else {
            throw ToolError("argument \(name): expected a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    func strings(_ name: String) throws(ToolError) -> [String] {
        guard let value = values[name], !value.isNull else { return [] }
        if let text = value.stringValue { return text.isEmpty ? [] : [text] }
        guard let list = value.arrayValue else { throw ToolError("argument \(name): expected a list of strings") }
        return try list.map { item throws(ToolError) in
            guard let text = item.stringValue else { throw ToolError("argument \(name): expected a list of strings") }
            return text
        }
    }

    /// A page's first item: the cursor an earlier answer gave.
    func offset() throws(ToolError) -> Int {
        guard let cursor = try string("cursor") else { return 0 }
        guard let offset = Int(cursor), offset >= 0, offset <= 1_000_000 else { throw ToolError("argument cursor: not a cursor this server gave") }
        return offset
    }

    /// A trace id: 32 hex characters (an unknown one is the server's 404, told as such).
    func trace(_ name: String = "trace") throws(ToolError) -> String {
        let id = try required(name).lowercased()
        guard id.count == 32, id.allSatisfy(\.isHexDigit) else {
            throw ToolError("argument \(name): '\(Format.line(id, max: 80))' is not a trace id (32 hex characters; list_traces gives them)")
        }
        return id
    }
}

/// One tool: its name, what an agent chooses it by, its input schema and its answer.
struct AgentTool: Sendable {
    var name: String
    var description: String
    var schema: Value
    var readOnly: Bool
    var run: @Sendable (Arguments, AgentContext) async throws(ToolError) -> String

    var definition: Tool {
        Tool(name: name, description: description, inputSchema: schema, annotations: .init(readOnlyHint: readOnly, openWorldHint: false))
    }
}

/// JSON Schema of a tool's input.
enum Schema {
    static func object(_ properties: [String: Value], required: [String] = []) -> Value {
        .object(["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }), "additionalProperties": false])
    }

    static func string(_ description: String) -> Value { .object(["type": "string", "description": .string(description)]) }
    static func integer(_ description: String, minimum: Int, maximum: Int) -> Value {
        .object(["type": "integer", "description": .string(description), "minimum": .int(minimum), "maximum": .int(maximum)])
    }

    static func strings(_ description: String) -> Value {
        .object(["type": "array", "items": .object(["type": "string"]), "description": .string(description)])
    }

    static let trace = string("Trace id (32 hex characters, from list_traces)")
    static let cursor = string("Cursor from the previous answer's last line, for the next page")
    static func limit(_ what: String, _ defaultValue: Int, max: Int) -> Value {
        integer("How many \(what) per answer (default \(defaultValue))", minimum: 1, maximum: max)
    }
}
