// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "tracesvc",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tracesvc", targets: ["tracesvc"]),
        .executable(name: "tracesvc-bench", targets: ["tracesvc-bench"]),
    ],
    dependencies: [
        // No default traits: we need neither swift-configuration nor Hummingbird's full-Foundation extras.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Already under Hummingbird; named to bound the graceful shutdown (Serve.swift).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already under Hummingbird; named for the connection guards (TraceServer/ConnectionGuards.swift).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        // Storage engines (TraceStorage): the embedded catalog in SQLite, the team catalog in PostgreSQL,
        // blobs in any S3-compatible store over HTTP (signed with our own SigV4 signer).
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Already under postgres-nio; named for its TLS settings (sslmode=prefer|require).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The Model Context Protocol (docs/agents.md): its Server, stdio and stateless HTTP transports.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        .target(name: "TraceModel", swiftSettings: strict),
        .target(
            name: "TraceFormats",
            dependencies: [
                "TraceModel",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strict
        ),
        // The sample traces and the synthetic generators (model traces, xctrace-shaped exports):
        // for `tracesvc generate`, the benchmarks and the tests.
        .target(name: "TraceSamples", dependencies: ["TraceModel", "TraceFormats"], swiftSettings: strict),
        // The catalog's domain: what a stored trace is and its identities (TraceID, BlobKey),
        // apart from any engine.
        .target(name: "TraceCatalog", dependencies: ["TraceModel"], swiftSettings: strict),
        .target(
            name: "TraceStorage",
            dependencies: [
                "TraceModel",
                "TraceCatalog",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The agent interface (docs/agents.md): MCP tools answering from the HTTP API, over stdio
        // (`tracesvc mcp`) or in process (`POST /mcp`, mounted by TraceServer).
        .target(
            name: "TraceAgent",
            dependencies: [
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TraceServer",
            dependencies: [
                "TraceModel",
                "TraceCatalog",
                "TraceFormats",
                "TraceStorage",
                "TraceAgent",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ],
            swiftSettings: strict
        ),
        // The user's command line: the commands, runnable in process (TraceCLITests); the
        // `tracesvc` executable only calls it.
        .target(
            name: "TraceCLI",
            dependencies: [
                "TraceModel",
                "TraceFormats",
                "TraceSamples",
                "TraceServer",
                "TraceStorage",
                "TraceAgent",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "tracesvc", dependencies: ["TraceCLI"], swiftSettings: strict),
        // The benchmarks (README, "Benchmarks"): not part of the user's command line.
        .executableTarget(
            name: "tracesvc-bench",
            dependencies: [
                "TraceModel",
                "TraceFormats",
                "TraceSamples",
                "TraceServer",
                "TraceStorage",
                "TraceAgent",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "TraceModelTests", dependencies: ["TraceModel", "TraceSamples"], exclude: ["Expected"], swiftSettings: strict),
        .testTarget(
            name: "TraceFormatsTests",
            dependencies: ["TraceFormats", "TraceModel", "TraceSamples"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TraceCLITests",
            dependencies: ["TraceCLI", "TraceAgent", "TraceFormats", "TraceModel", "TraceSamples"],
            exclude: ["Expected"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TraceStorageTests",
            dependencies: ["TraceStorage", "TraceCatalog", "TraceModel"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TraceAgentTests",
            dependencies: [
                "TraceAgent",
                "TraceServer",
                "TraceSamples",
                "TraceFormats",
                "TraceModel",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TraceServerTests",
            dependencies: [
                "TraceServer",
                "TraceCatalog",
                "TraceStorage",
                "TraceFormats",
                "TraceSamples",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
    ]
)
