import ArgumentParser
import Foundation
import TraceAgent

/// `tracesvc mcp`: the agent interface over stdio (docs/agents.md).
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the Model Context Protocol over stdio for a coding agent, answering from a tracesvc server.",
        discussion: """
            An MCP client (Claude Code, Cursor, Xcode's assistant) starts this command and speaks \
            JSON-RPC on its standard input and output; the tools read the server's HTTP API, each \
            request within --deadline seconds. Log lines go to standard error. docs/agents.md has the \
            tools and each client's configuration.

            add_note needs the server's write token (--token-file).

            claude mcp add tracesvc -- tracesvc mcp --server http://127.0.0.1:8080
            """
    )

    @OptionGroup var connection: ServerConnection

    @Option(help: "Seconds a request to the server may take before the tool answers an error.")
    var deadline: Int = 30

    func validate() throws {
        guard (1...600).contains(deadline) else { throw ValidationError("--deadline must be between 1 and 600 seconds") }
    }

    func run() async throws {
        let api = HTTPTraceAPI(server: connection.server, token: try connection.token(), deadline: .seconds(Int64(deadline)))
        // The server decides writes by the token; without one add_note gets its 401, said plainly.
        let context = AgentContext(api: api, linkBase: api.server, writesAllowed: true)
        do {
            try await AgentServer.runStdio(context: context)
        } catch {
            await api.shutdown()
            throw error
        }
        await api.shutdown()
    }
}
