import Crypto
import Foundation
import Logging
import Testing
@testable import TraceStorage

/// The S3 client against a real SeaweedFS (scripts/team-up.sh), with our own signer.
struct S3BlobStoreTests {
    static func blobFile(_ text: String) throws -> (URL, String, Int64) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blob-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        let (key, size) = try sha256OfFile(url)
        return (url, key, size)
    }

    /// AWS refuses a body that does not match its signed SHA-256; SeaweedFS stores it. Either way a
    /// blob is checked against its key when it is read, so damaged bytes are never parsed as the trace.
    @Test func aBlobWhoseBytesDoNotMatchItsKeyIsRefusedWhenRead() async throws {
        let store = try TeamEngines.blobStore()
        let (file, _, size) = try Self.blobFile("the real bytes \(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        let wrongKey = SigV4.hex(SHA256.hash(data: Data("other bytes \(UUID())".utf8)))
        if (try? await store.put(key: wrongKey, file: file, size: size)) == true {
            await #expect(throws: StorageError.corruptBlob(key: wrongKey)) {
                try await store.localFile(key: wrongKey, sha256: wrongKey, scratch: FileManager.default.temporaryDirectory)
            }
            try await store.delete(key: wrongKey)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path).filter { $0.hasPrefix(wrongKey) }
        #expect(leftovers.isEmpty, "the refused copy is not left in the scratch folder")
    }

    @Test func aWrongSecretIsAClearFailureNotAnOutage() async throws {
        let engines = try TeamEngines.endpoints()
        let store = S3BlobStore(location: try .init(url: engines.blobsURL),
                                credentials: .init(accessKeyID: engines.accessKey, secretAccessKey: "wrong"), logger: TeamEngines.logger)
        do {
            try await store.check()
            Issue.record("a wrong secret was accepted")
        } catch let StorageError.failed(service, detail) {
            #expect(service == "object store (S3)")
            #expect(detail.contains("HEAD bucket"))
        }
    }

    @Test func anUnreachableStoreIsUnavailableNotAFailure() async throws {
        let port = try freePort()
        let store = S3BlobStore(location: try .init(url: "s3://traces?endpoint=http://127.0.0.1:\(port)&region=us-east-1"),
                                credentials: .init(accessKeyID: "k", secretAccessKey: "s"), logger: TeamEngines.logger, callTimeout: .seconds(1))
        do {
            try await store.check()
            Issue.record("a store nobody listens for answered")
        } catch let StorageError.unavailable(service, _) {
            // Wall-clock bounds are checked end to end in Tests/Team: here other suites may hold the cooperative threads.
            #expect(service == "object store (S3)")
        }
    }

    @Test func locationsParseAndPrintWithoutSecrets() throws {
        let location = try S3BlobStore.Location(url: "s3://traces?endpoint=http://127.0.0.1:9000&region=eu-west-1")
        #expect(location.bucket == "traces")
        #expect(location.region == "eu-west-1")
        #expect(location.endpoint.absoluteString == "http://127.0.0.1:9000")
        #expect(throws: StorageConfigurationError.self) { try S3BlobStore.Location(url: "http://traces") }
        #expect(redactURL("postgres://app:s3cr3t@db:5432/tracesvc") == "postgres://app:***@db:5432/tracesvc")
        #expect(redactURL("postgres://app:p@ss@db/tracesvc") == "postgres://app:***@db/tracesvc")
        #expect(redactURL("postgres://app@db/tracesvc") == "postgres://app@db/tracesvc")
    }
}

/// A loopback port nothing listens on (bound, then released).
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}
