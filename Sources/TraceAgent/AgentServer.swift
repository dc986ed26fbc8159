import Foundation
import Logging
import MCP

/// tracesvc's MCP server (docs/agents.md): the tools, each trace and finding as a resource (its
/// share link), and one prompt. The same for stdio and `POST /mcp`.
public enum AgentServer {
    public static let name = "tracesvc"
    public static let version = "1.0"

    static let tools: [AgentTool] = [
        TraceTools.listTraces, TraceTools.overview, TraceTools.findings, TraceTools.viewUpdates,
        CauseAndCPUTools.whyUpdate, CauseAndCPUTools.cpuHotspots, CompareTools.compare, CompareTools.history,
        CompareTools.addNote,
    ]

    /// The tools' definitions, in the order `tools/list` answers them.
    public static var toolDefinitions: [Tool] { tools.map(\.definition) }

    /// Runs one tool: an answer, or a tool error (`isError`) with a message, never a thrown error.
    public static func call(_ name: String, arguments: [String: Value]?, context: AgentContext) async -> CallTool.Result {
        guard let tool = tools.first(where: { $0.name == name }) else {
            return .init(content: [.text(text: "no tool named '\(Format.line(name, max: 80))'; tools: \(tools.map(\.name).joined(separator: ", "))", annotations: nil, _meta: nil)], isError: true)
        }
        do throws(ToolError) {
            let text = try await tool.run(Arguments(values: arguments ?? [:]), context)
            return .init(content: [.text(text: text, annotations: nil, _meta: nil)], isError: false)
        } catch {
            return .init(content: [.text(text: BoundedAnswer.clip(error.description), annotations: nil, _meta: nil)], isError: true)
        }
    }

    /// A server with every handler; `start(transport:)` it.
    public static func make(context: AgentContext) async -> Server {
        let server = Server(
            name: name, version: version,
            instructions: "tracesvc holds recorded SwiftUI performance traces. Find a trace with list_traces, read trace_overview and findings, explain with why_update and cpu_hotspots, prove a fix with compare. Every claim in an answer carries the link that opens its evidence: quote it.",
            capabilities: .init(prompts: .init(listChanged: false), resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false))
        )
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: toolDefinitions) }
        await server.withMethodHandler(CallTool.self) { params in await call(params.name, arguments: params.arguments, context: context) }
        await server.withMethodHandler(ListResources.self) { params in try await AgentResources.list(cursor: params.cursor, context: context) }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in .init(templates: AgentResources.templates(context: context)) }
        await server.withMethodHandler(ReadResource.self) { params in try await AgentResources.read(params.uri, context: context) }
        await server.withMethodHandler(ListPrompts.self) { _ in .init(prompts: [AgentPrompt.diagnose]) }
        await server.withMethodHandler(GetPrompt.self) { params in try AgentPrompt.get(params.name, arguments: params.arguments) }
        return server
    }

    /// Serves MCP over stdin and stdout until the client closes stdin.
    public static func runStdio(context: AgentContext) async throws {
        let server = await make(context: context)
        try await server.start(transport: StdioTransport(logger: Logger(label: "tracesvc.mcp", factory: { StreamLogHandler.standardError(label: $0) })))
        await server.waitUntilCompleted()
    }
}

/// Traces and findings as resources: their URI is the share link that opens them.
enum AgentResources {
    static func list(cursor: String?, context: AgentContext) async throws -> ListResources.Result {
        var path = "/api/traces?limit=50"
        if let cursor { path += "&cursor=\(ShareLink.encode(cursor))" }
        let json: JSON
        do throws(ToolError) { json = try await context.get(path, what: "listing traces") } catch { throw MCPError.internalError(error.description) }
        let resources = json["traces"].list.map { trace in
            Resource(
                name: trace["name"].text, uri: context.link(trace["id"].text, .init(pane: "findings")),
                description: "\(trace["app"].text) on \(trace["device"].text), \(Format.duration(trace["durationNs"].int)), \(trace["updateCount"].int ?? 0) updates: its overview",
                mimeType: "text/plain"
            )
        }
        return .init(resources: resources, nextCursor: json["nextCursor"].string)
    }

    static func templates(context: AgentContext) -> [Resource.Template] {
        [
            .init(uriTemplate: context.linkBase + "/traces/{trace}?v=\(ShareLink.version)&p=findings", name: "trace", description: "A trace's overview", mimeType: "text/plain"),
            .init(uriTemplate: context.linkBase + "/traces/{trace}?v=\(ShareLink.version)&p=findings&fd={finding}", name: "finding", description: "One finding of a trace: cost, fix, evidence", mimeType: "text/plain"),
        ]
    }

    /// Reads a trace's or a finding's link as text: the overview, or the finding with its evidence.
    static func read(_ uri: String, context: AgentContext) async throws -> ReadResource.Result {
        guard uri.hasPrefix(context.linkBase + "/traces/"), let components = URLComponents(string: uri) else {
            throw MCPError.invalidParams("not a resource of this server: \(Format.line(uri, max: 200))")
        }
        let parts = components.path.split(separator: "/")
        guard parts.count >= 2, parts[0] == "traces" else { throw MCPError.invalidParams("not a trace link: \(Format.line(uri, max: 200))") }
        let id = String(parts[1])
        let finding = components.queryItems?.first(where: { $0.name == "fd" })?.value
        do throws(ToolError) {
            guard id.count == 32, id.allSatisfy(\.isHexDigit) else { throw ToolError("'\(Format.line(id, max: 80))' is not a trace id") }
            let text: String
            if let finding {
                let json = try await context.get("/api/traces/\(id)/findings", what: "the findings of trace \(id)")
                let all = json["findings"].list
                guard let index = all.firstIndex(where: { $0["id"].text == finding }) else { throw ToolError("trace \(id) has no finding '\(Format.line(finding, max: 200))'") }
                text = TraceTools.findingText(all[index], number: index + 1, trace: id, context: context)
            } else {
                text = try await TraceTools.overviewText(id, context: context)
            }
            return .init(contents: [.text(text, uri: uri, mimeType: "text/plain")])
        } catch {
            throw MCPError.invalidParams(error.description)
        }
    }
}

/// "Diagnose a slow interaction": the steps, in the tools' words.
enum AgentPrompt {
    static let diagnose = Prompt(
        name: "diagnose-slow-interaction",
        description: "Find why an interaction in a recorded trace is slow, explain it from the evidence, and say how to prove a fix",
        arguments: [
            .init(name: "trace", description: "The trace id (list_traces)", required: true),
            .init(name: "interaction", description: "What was slow, in the user's words (e.g. 'tapping favorite')", required: false),
        ]
    )

    static func get(_ name: String, arguments: [String: String]?) throws -> GetPrompt.Result {
        guard name == diagnose.name else { throw MCPError.invalidParams("no prompt named '\(Format.line(name, max: 80))'") }
        guard let trace = arguments?["trace"], !trace.isEmpty else { throw MCPError.invalidParams("argument trace is required") }
        let interaction = arguments?["interaction"].flatMap { $0.isEmpty ? nil : " The slow interaction: \(Format.line($0, max: 300))." } ?? ""
        let text = """
            Diagnose why trace \(Format.line(trace, max: 80)) is slow.\(interaction)
            1. trace_overview: which lanes have red (> 1 ms) updates, hitches or hangs, and which views cost the most.
            2. findings: the costliest findings, each with its fix and evidence. Pick the one that matches the interaction.
            3. why_update on the finding's representative update: the cause chain from the state change to the body, and the backtrace of the code that made the change.
            4. cpu_hotspots of that view (or the hang's range): the frames that cost the time.
            5. Explain the cause in two or three sentences and the fix to make in the app's code.
            Quote the share link of every claim, so a person can open the evidence. If a fixed recording exists (list_traces), prove the fix with compare (A = this trace, B = the fixed one): say what the verdict says and whether it is beyond noise.
            """
        return .init(description: diagnose.description, messages: [.user(.text(text: text))])
    }
}
