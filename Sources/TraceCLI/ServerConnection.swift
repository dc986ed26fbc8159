import ArgumentParser

/// `--server` and `--token-file` of the commands that ask a running tracesvc (delete, retention,
/// mcp, upload): one declaration, one check of the URL, one way to the token.
struct ServerConnection: ParsableArguments {
    @Option(help: "The tracesvc server, e.g. https://tracesvc.example.com.")
    var server: String

    @Option(help: "A file whose first line is the token to send (default: $TRACESVC_TOKEN).")
    var tokenFile: String?

    func validate() throws {
        guard ServerClient.isServerURL(server) else {
            throw ValidationError("--server must be an http:// or https:// URL, e.g. http://127.0.0.1:8080")
        }
    }

    /// The token: `given` (a command's `--token`), else the first line of `--token-file`, else $TRACESVC_TOKEN.
    func token(given: String? = nil) throws -> String? {
        try ServerClient.token(file: tokenFile, given: given)
    }
}
