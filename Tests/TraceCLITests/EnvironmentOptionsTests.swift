import Foundation
import Testing
@testable import TraceCLI

/// Every `serve` option as a TRACESVC_* environment variable (docs/deploy.md, "Environment").
@Suite struct EnvironmentOptionsTests {
    @Test func variablesFillTheOptionsTheCommandLineLeavesAndTheCommandLineWins() throws {
        let environment = [
            "TRACESVC_PORT": "9000", "TRACESVC_HOST": "0.0.0.0", "TRACESVC_ALLOWED_HOST": "traces.example.com, tracesvc.internal",
            "TRACESVC_ALLOW_ANONYMOUS_WRITES": "true", "TRACESVC_METRICS_LISTEN": "127.0.0.1:9090", "TRACESVC_LOG_FORMAT": "json",
            "TRACESVC_MAX_UPLOAD_MB": "512", "UNRELATED": "x",
        ]
        let given = ["--host", "127.0.0.1", "--max-upload-mb=64"]
        let added = try EnvironmentOptions.arguments(for: Serve.self, given: given, environment: environment)
        let serve = try Serve.parse(given + added)
        #expect(serve.port == 9000)
        #expect(serve.host == "127.0.0.1")
        #expect(serve.maxUploadMb == 64)
        #expect(serve.allowedHost == ["traces.example.com", "tracesvc.internal"])
        #expect(serve.allowAnonymousWrites)
        #expect(serve.metricsListen == "127.0.0.1:9090")
        #expect(serve.logFormat == .json)
    }

    @Test func aFlagsVariableMustSayYesOrNo() {
        #expect(throws: (any Error).self) {
            try EnvironmentOptions.arguments(for: Serve.self, given: [], environment: ["TRACESVC_ALLOW_ANONYMOUS_WRITES": "maybe"])
        }
        #expect((try? EnvironmentOptions.arguments(for: Serve.self, given: [], environment: ["TRACESVC_ALLOW_ANONYMOUS_WRITES": "0"])) == [])
    }

    @Test func everyServeOptionHasAVariableAndTheDeployGuideListsIt() throws {
        let variables = EnvironmentOptions.variables(of: Serve.self)
        // The team options (an option group) are there too.
        for name in ["TRACESVC_PORT", "TRACESVC_DATA_DIR", "TRACESVC_WRITE_TOKEN_FILE", "TRACESVC_CATALOG", "TRACESVC_BLOBS", "TRACESVC_LOG_FORMAT"] {
            #expect(variables.contains { $0.variable == name }, "\(name)")
        }
        #expect(variables.count >= 25)
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/deploy.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        for mapped in variables {
            #expect(text.contains("`\(mapped.variable)`"), "docs/deploy.md lists \(mapped.variable)")
        }
    }
}
