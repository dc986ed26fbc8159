import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Blobs in any S3-compatible object store (AWS S3, SeaweedFS, MinIO, Ceph RGW): path-style
/// requests signed with `SigV4`, keys `blobs/<sha256>`, or `blobs/up-<random>` for a blob
/// streamed while it arrived (multipart upload: `StreamedBlob`). A `PUT` sends `If-None-Match: *`, so a
/// blob already there answers 412 and is not written again; its body is signed with its SHA-256
/// (AWS refuses bytes damaged on the way; SeaweedFS does not check), and a `GET` hashes what
/// arrives, so damaged bytes are never read as the trace on any store.
public final class S3BlobStore: StreamingBlobStore, FetchingBlobStore {
    public struct Location: Sendable, Equatable, CustomStringConvertible {
        public var endpoint: URL
        public var bucket: String
        public var region: String

        /// `s3://BUCKET?endpoint=http://HOST:PORT&region=REGION` (region defaults to us-east-1;
        /// without an endpoint, AWS's regional one).
        public init(url text: String) throws {
            guard let components = URLComponents(string: text), components.scheme == "s3",
                  let bucket = components.host, !bucket.isEmpty
            else { throw StorageConfigurationError("--blobs: expected s3://BUCKET?endpoint=http://HOST:PORT&region=REGION, got \(redactURL(text))") }
            let items = components.queryItems ?? []
            region = items.first { $0.name == "region" }?.value ?? "us-east-1"
            let endpointText = items.first { $0.name == "endpoint" }?.value ?? "https://s3.\(region).amazonaws.com"
            guard let endpoint = URL(string: endpointText), let scheme = endpoint.scheme, ["http", "https"].contains(scheme), endpoint.host != nil else {
                throw StorageConfigurationError("--blobs: endpoint must be an http:// or https:// URL, got \(endpointText)")
            }
            self.endpoint = endpoint
            self.bucket = bucket
        }

        public var description: String { "s3://\(bucket)?endpoint=\(endpoint.absoluteString)&region=\(region)" }
    }

    public let location: Location
    public let serviceName = "object store (S3)"
    private let credentials: SigV4.Credentials
    let client: HTTPClient
    private let logger: Logger
    /// Deadline of a call without a body worth counting (HEAD, DELETE, a list page), and of a
    /// `GET`'s first bytes.
    public let callTimeout: Duration
    /// Bytes per second a transfer must at least keep up; a blob's deadline grows with its bytes.
    public let minimumThroughput: Int64
    /// Open while the store is known to be down: calls fail at once (`CircuitBreaker`).
    public let breaker: CircuitBreaker

    /// Bytes of each part of a streamed upload but its last (S3 wants at least 5 MB).
    public let partBytes: Int
    /// Parts of all streamed uploads in memory at once at most (`PartBuffers`).
    public let partBuffers: PartBuffers

    public init(location: Location, credentials: SigV4.Credentials, logger: Logger,
                callTimeout: Duration = .seconds(2), minimumThroughput: Int64 = 4 << 20, partBytes: Int = 16 << 20, partBuffers: Int = 4) {
        precondition(partBytes >= 5 << 20)
        self.partBytes = partBytes
        self.partBuffers = PartBuffers(count: partBuffers, bytes: partBytes)
        self.location = location
        self.credentials = credentials
        self.logger = logger
        self.callTimeout = callTimeout
        self.minimumThroughput = minimumThroughput
        breaker = CircuitBreaker(service: serviceName, logger: logger)
        // The process-wide client: it needs no shutdown, and every call here has its own deadline.
        client = HTTPClient.shared
    }

    func deadline(forBytes bytes: Int64) -> Duration {
        callTimeout + .seconds(bytes / max(1, minimumThroughput))
    }

    func objectPath(_ key: String) -> String { "/\(location.bucket)/blobs/\(key)" }

    /// A signed request; `path` is decoded text (the signer and the URL encode it the same way).
    func request(_ method: HTTPMethod, path: String, query: [(name: String, value: String)] = [],
                         headers extra: [(name: String, value: String)] = [], payloadHash: String = SigV4.emptyPayloadHash) -> HTTPClientRequest {
        var host = location.endpoint.host ?? ""
        if let port = location.endpoint.port { host += ":\(port)" }
        let amzDate = SigV4.amzDate(Date())
        var headers: [(name: String, value: String)] = [("host", host), ("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)] + extra
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let signed = SigV4.Request(method: method.rawValue, path: path, query: query, headers: headers, payloadHash: payloadHash)
        let authorization = SigV4.authorization(signed, credentials: credentials, region: location.region, service: "s3", amzDate: amzDate)
        let base = location.endpoint.absoluteString.hasSuffix("/") ? String(location.endpoint.absoluteString.dropLast()) : location.endpoint.absoluteString
        var url = base + SigV4.uriEncode(path, keepSlash: true)
        if !query.isEmpty {
            url += "?" + query.map { "\(SigV4.uriEncode($0.name, keepSlash: false))=\(SigV4.uriEncode($0.value, keepSlash: false))" }.joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers where name != "host" { request.headers.add(name: name, value: value) }
        request.headers.add(name: "authorization", value: authorization)
        return request
    }

    /// Runs one call under its deadline, unless the store is known to be down; transport
    /// failures and 5xx are `.unavailable`, other unexpected answers `.failed` with the store's
    /// error code. `progress`, when given, makes the deadline `callTimeout` for the first bytes
    /// and then grow with the bytes moved (`minimumThroughput`).
    func call<T: Sendable>(_ what: String, timeout: Duration, progress: TransferProgress? = nil,
                                   _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await breaker.run(probe: { [self] in try await self.checkBucket() }) {
            try await callDirectly(what, timeout: timeout, progress: progress, body)
        }
    }

    private func callDirectly<T: Sendable>(_ what: String, timeout: Duration, progress: TransferProgress?,
                                           _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await measured(service: serviceName, operation: String(what.prefix { $0 != " " })) {
                if let progress {
                    try await withDeadline(firstBytes: callTimeout, minimumThroughput: minimumThroughput, progress: progress, service: serviceName, body)
                } else {
                    try await withDeadline(timeout, service: serviceName, body)
                }
            }
        } catch let error as StorageError {
            throw error
        } catch let error as SystemFailure {
            // This replica's own disk (the scratch copy), not the store.
            throw error
        } catch let error as HTTPClientError {
            logger.warning("object store: \(what): \(String(reflecting: error))")
            throw StorageError.unavailable(service: serviceName, detail: "\(what): \(Self.describe(error))")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("object store: \(what): \(String(reflecting: error))")
            throw StorageError.unavailable(service: serviceName, detail: "\(what): cannot reach \(location.endpoint.absoluteString)")
        }
    }

    private static func describe(_ error: HTTPClientError) -> String {
        switch error {
        case .connectTimeout: "connection timed out"
        case .deadlineExceeded: "no answer in time"
        case .remoteConnectionClosed: "the store closed the connection"
        default: "cannot reach the store"
        }
    }

    private func unexpected(_ response: HTTPClientResponse, _ what: String) async -> StorageError {
        let text = (try? await response.body.collect(upTo: 64 << 10)).map { String(buffer: $0) } ?? ""
        return unexpected(response.status, text: text, what)
    }

    /// An answer that is not the one expected, with its body's text: the store's error code.
    func unexpected(_ status: HTTPResponseStatus, text: String, _ what: String) -> StorageError {
        let code = Self.xmlValues("Code", in: text).first ?? "HTTP \(status.code)"
        logger.error("object store: \(what): HTTP \(status.code) \(code)")
        if status.code >= 500 { return .unavailable(service: serviceName, detail: "\(what): \(code)") }
        return .failed(service: serviceName, detail: "\(what): \(code)")
    }

    public func put(key: String, file: URL, size: Int64) async throws -> Bool {
        precondition(isBlobKey(key))
        let request = self.request(.PUT, path: objectPath(key), headers: [("if-none-match", "*")], payloadHash: key)
        return try await call("PUT \(key)", timeout: deadline(forBytes: size)) {
            var request = request
            request.body = .stream(FileChunks(file: file), length: .known(size))
            let response = try await self.client.execute(request, deadline: .distantFuture)
            switch response.status.code {
            case 200, 201, 204:
                _ = try await response.body.collect(upTo: 1 << 20)
                return true
            // 412: the same content is there already. 409: another PUT of it is in flight (AWS's
            // ConditionalRequestConflict); that one will have written the same bytes.
            case 412, 409:
                _ = try? await response.body.collect(upTo: 1 << 20)
                return false
            default:
                throw await self.unexpected(response, "PUT \(key)")
            }
        }
    }

    public func localFile(key: String, sha256: String, scratch: URL) async throws -> BlobFile {
        guard isBlobKey(key) else { throw StorageError.missingBlob(key: key) }
        let target = scratch.appendingPathComponent("\(key).\(RandomName.make()).blob")
        guard FileManager.default.createFile(atPath: target.path, contents: nil) else {
            throw SystemFailure.lastError("create a scratch copy of blob \(key)")
        }
        do {
            try await fetch(key: key, sha256: sha256, into: target, arrived: { _ in })
        } catch {
            try? FileManager.default.removeItem(at: target)
            throw error
        }
        return BlobFile(url: target, isTemporary: true)
    }

    public func fetch(key: String, sha256: String, into target: URL, arrived: @escaping @Sendable (Int64) -> Void) async throws {
        guard isBlobKey(key) else { throw StorageError.missingBlob(key: key) }
        let request = self.request(.GET, path: objectPath(key))
        // The size is not known before the answer: the deadline is for the first bytes, then
        // grows with the bytes that arrive.
        let progress = TransferProgress()
        try await call("GET \(key)", timeout: callTimeout, progress: progress) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            if response.status == .notFound { throw StorageError.missingBlob(key: key) }
            guard response.status == .ok else { throw await self.unexpected(response, "GET \(key)") }
            let handle = try FileHandle(forWritingTo: target)
            defer { try? handle.close() }
            var hasher = SHA256()
            var written: Int64 = 0
            for try await buffer in response.body {
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                do {
                    try handle.write(contentsOf: buffer.readableBytesView)
                } catch {
                    throw SystemFailure.from(error, action: "write a scratch copy of blob \(key)") ?? error
                }
                progress.add(buffer.readableBytes)
                written += Int64(buffer.readableBytes)
                arrived(written)
            }
            guard SigV4.hex(hasher.finalize()) == sha256 else { throw StorageError.corruptBlob(key: key) }
        }
    }

    public func delete(key: String) async throws {
        guard isBlobKey(key) else { return }
        let request = self.request(.DELETE, path: objectPath(key))
        try await call("DELETE \(key)", timeout: callTimeout) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard [200, 204, 404].contains(response.status.code) else { throw await self.unexpected(response, "DELETE \(key)") }
            _ = try? await response.body.collect(upTo: 1 << 20)
        }
    }

    /// Whether a blob is stored (HEAD).
    public func exists(key: String) async throws -> Bool {
        let request = self.request(.HEAD, path: objectPath(key))
        return try await call("HEAD \(key)", timeout: callTimeout) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            switch response.status.code {
            case 200: return true
            case 404: return false
            default: throw await self.unexpected(response, "HEAD \(key)")
            }
        }
    }

    public func list() async throws -> [StoredBlob] {
        var blobs: [StoredBlob] = []
        var token: String?
        repeat {
            var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", "blobs/")]
            if let token { query.append(("continuation-token", token)) }
            let page = try await bucketListingPage("list", query: query)
            for contents in Self.xmlValues("Contents", in: page) {
                guard let name = Self.xmlValues("Key", in: contents).first, name.hasPrefix("blobs/") else { continue }
                let key = String(name.dropFirst("blobs/".count))
                guard isBlobKey(key) else { continue }
                let size = Self.xmlValues("Size", in: contents).first.flatMap { Int64($0) } ?? 0
                let modified = Self.xmlValues("LastModified", in: contents).first.flatMap(Self.parseTime) ?? .distantPast
                blobs.append(StoredBlob(key: key, size: size, modified: modified))
            }
            token = Self.xmlValues("IsTruncated", in: page).first == "true" ? Self.xmlValues("NextContinuationToken", in: page).first : nil
        } while token != nil
        return blobs
    }

    /// One page of a GET on the bucket (a listing of objects or of unfinished uploads), as XML.
    private func bucketListingPage(_ what: String, query: [(name: String, value: String)]) async throws -> String {
        let request = self.request(.GET, path: "/\(location.bucket)", query: query)
        return try await call(what, timeout: callTimeout) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard response.status == .ok else { throw await self.unexpected(response, what) }
            return String(buffer: try await response.body.collect(upTo: 16 << 20))
        }
    }

    public func check() async throws {
        try await breaker.run(probe: { [self] in try await self.checkBucket() }) { try await checkBucket() }
    }

    /// The bucket answers a HEAD (around the breaker: its probe).
    private func checkBucket() async throws {
        let request = self.request(.HEAD, path: "/\(location.bucket)")
        try await callDirectly("HEAD bucket", timeout: callTimeout, progress: nil) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard response.status == .ok else { throw await self.unexpected(response, "HEAD bucket \(self.location.bucket)") }
        }
    }

    // MARK: Multipart uploads (`StreamingBlobStore`)

    public func createMultipartUpload(key: String) async throws -> String {
        precondition(isBlobKey(key))
        let request = self.request(.POST, path: objectPath(key), query: [("uploads", "")])
        return try await call("create upload \(key)", timeout: callTimeout) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard response.status == .ok else { throw await self.unexpected(response, "create upload \(key)") }
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            guard let id = Self.xmlValues("UploadId", in: text).first, !id.isEmpty else {
                throw StorageError.failed(service: self.serviceName, detail: "create upload \(key): no UploadId in the answer")
            }
            return id
        }
    }

    /// Sends part `number` (from 1); returns its ETag. The body is not hashed for the signature
    /// (`UNSIGNED-PAYLOAD`): the whole blob's SHA-256 is checked when it is read back.
    public func uploadPart(key: String, uploadID: String, number: Int, bytes: ByteBuffer) async throws -> String {
        let request = self.request(.PUT, path: objectPath(key), query: [("partNumber", String(number)), ("uploadId", uploadID)],
                                   payloadHash: SigV4.unsignedPayload)
        return try await call("PUT part \(number) of \(key)", timeout: deadline(forBytes: Int64(bytes.readableBytes))) {
            var request = request
            request.body = .bytes(bytes)
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard response.status == .ok else { throw await self.unexpected(response, "PUT part \(number) of \(key)") }
            _ = try? await response.body.collect(upTo: 1 << 20)
            guard let etag = response.headers.first(name: "etag") else {
                throw StorageError.failed(service: self.serviceName, detail: "PUT part \(number) of \(key): no ETag in the answer")
            }
            return etag
        }
    }

    public func completeMultipartUpload(key: String, uploadID: String, partTags: [String]) async throws {
        let parts = partTags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(Self.escapeXML($0.element))</ETag></Part>" }
        let body = ByteBuffer(string: "<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>")
        let payloadHash = SigV4.hex(SHA256.hash(data: Array(body.readableBytesView)))
        let request = self.request(.POST, path: objectPath(key), query: [("uploadId", uploadID)], payloadHash: payloadHash)
        // The store assembles the parts before it answers: as long as a copy of the blob may take.
        try await call("complete upload \(key)", timeout: deadline(forBytes: Int64(partTags.count * partBytes))) {
            var request = request
            request.body = .bytes(body)
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard response.status == .ok else { throw await self.unexpected(response, "complete upload \(key)") }
            // An error may come after a 200 (S3 answers early and keeps the connection alive).
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            if text.contains("<Error>") {
                let code = Self.xmlValues("Code", in: text).first ?? "an error"
                self.logger.error("object store: complete upload \(key): \(code)")
                throw StorageError.failed(service: self.serviceName, detail: "complete upload \(key): \(code)")
            }
        }
    }

    public func abortMultipartUpload(key: String, uploadID: String) async throws {
        let request = self.request(.DELETE, path: objectPath(key), query: [("uploadId", uploadID)])
        try await call("abort upload \(key)", timeout: callTimeout) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard [200, 204, 404].contains(response.status.code) else { throw await self.unexpected(response, "abort upload \(key)") }
            _ = try? await response.body.collect(upTo: 1 << 20)
        }
    }

    public func pendingUploads() async throws -> [PendingUpload] {
        var uploads: [PendingUpload] = []
        var marker: (key: String, id: String)?
        repeat {
            var query: [(name: String, value: String)] = [("prefix", "blobs/"), ("uploads", "")]
            if let marker { query += [("key-marker", marker.key), ("upload-id-marker", marker.id)] }
            let page = try await bucketListingPage("list uploads", query: query)
            for upload in Self.xmlValues("Upload", in: page) {
                guard let name = Self.xmlValues("Key", in: upload).first, name.hasPrefix("blobs/"),
                      let id = Self.xmlValues("UploadId", in: upload).first else { continue }
                let initiated = Self.xmlValues("Initiated", in: upload).first.flatMap(Self.parseTime) ?? .distantPast
                uploads.append(PendingUpload(key: String(name.dropFirst("blobs/".count)), uploadID: id, initiated: initiated))
            }
            marker = nil
            if Self.xmlValues("IsTruncated", in: page).first == "true",
               let key = Self.xmlValues("NextKeyMarker", in: page).first, let id = Self.xmlValues("NextUploadIdMarker", in: page).first {
                marker = (key, id)
            }
        } while marker != nil
        return uploads
    }

    public func lastPartUploaded(key: String, uploadID: String) async throws -> Date? {
        var newest: Date?
        var marker: String?
        repeat {
            var query: [(name: String, value: String)] = [("uploadId", uploadID)]
            if let marker { query.append(("part-number-marker", marker)) }
            let request = self.request(.GET, path: objectPath(key), query: query)
            let page: String? = try await call("list parts of \(key)", timeout: callTimeout) {
                let response = try await self.client.execute(request, deadline: .distantFuture)
                if response.status == .notFound { return nil }  // completed or aborted meanwhile
                guard response.status == .ok else { throw await self.unexpected(response, "list parts of \(key)") }
                return String(buffer: try await response.body.collect(upTo: 16 << 20))
            }
            guard let page else { return newest }
            for part in Self.xmlValues("Part", in: page) {
                guard let modified = Self.xmlValues("LastModified", in: part).first.flatMap(Self.parseTime) else { continue }
                newest = max(newest ?? modified, modified)
            }
            marker = Self.xmlValues("IsTruncated", in: page).first == "true" ? Self.xmlValues("NextPartNumberMarker", in: page).first : nil
        } while marker != nil
        return newest
    }

    /// Creates the bucket when it does not exist (test and first-start convenience).
    public func createBucketIfMissing() async throws {
        let request = self.request(.PUT, path: "/\(location.bucket)")
        try await call("create bucket", timeout: callTimeout) {
            let response = try await self.client.execute(request, deadline: .distantFuture)
            guard [200, 409].contains(response.status.code) else { throw await self.unexpected(response, "create bucket \(self.location.bucket)") }
            _ = try? await response.body.collect(upTo: 1 << 20)
        }
    }

    /// The texts of every `<name>…</name>` element, unescaped; S3's answers are flat enough.
    static func xmlValues(_ name: String, in text: String) -> [String] {
        var values: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            values.append(unescapeXML(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return values
    }

    static func escapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func unescapeXML(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func parseTime(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }
}

/// A file's bytes in 1 MB buffers, read as the upload asks for them.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: URL

    struct AsyncIterator: AsyncIteratorProtocol {
        var handle: FileHandle?
        let file: URL

        mutating func next() async throws -> ByteBuffer? {
            if handle == nil { handle = try FileHandle(forReadingFrom: file) }
            guard let data = try handle?.read(upToCount: 1 << 20), !data.isEmpty else {
                try? handle?.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: nil, file: file) }
}

/// A bad `--catalog` or `--blobs` option, said so the person can fix it (secrets redacted).
public struct StorageConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A URL with any password replaced by `***` (`postgres://user:***@host/db`): the form in which
/// a service URL may be printed or logged.
public func redactURL(_ text: String) -> String {
    guard let scheme = text.range(of: "://") else { return text }
    let authorityEnd = text[scheme.upperBound...].firstIndex { "/?#".contains($0) } ?? text.endIndex
    let authority = text[scheme.upperBound..<authorityEnd]
    guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
    return String(text[..<colon]) + ":***" + String(text[at...])
}
