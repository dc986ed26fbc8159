import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

extension S3BlobStore {
    /// Sends part `number` of a streamed upload from its file. Over plain HTTP the bytes go from
    /// the file to the socket in the kernel (a `FileRegion`, `sendfile`): this process neither
    /// reads them nor holds them, which was most of the CPU a team upload spent beyond an embedded
    /// one. Over HTTPS they are encrypted here, so they are read into a buffer first. The body is
    /// not hashed for the signature (`UNSIGNED-PAYLOAD`): the whole blob's SHA-256 is checked
    /// when it is read back.
    public func uploadPart(key: String, uploadID: String, number: Int, file: URL, offset: Int64, length: Int) async throws -> String {
        guard location.endpoint.scheme == "http" else {
            return try await uploadPart(key: key, uploadID: uploadID, number: number, bytes: readPart(file, offset: offset, length: length))
        }
        let signed = request(.PUT, path: objectPath(key), query: [("partNumber", String(number)), ("uploadId", uploadID)],
                             payloadHash: SigV4.unsignedPayload)
        let what = "PUT part \(number) of \(key)"
        return try await call(what, timeout: deadline(forBytes: Int64(length))) {
            let response = try await self.execute(signed, bodyFrom: file, offset: offset, length: length)
            guard response.status == .ok else { throw self.unexpected(response.status, text: response.body.map { String(buffer: $0) } ?? "", what) }
            guard let etag = response.headers.first(name: "etag") else {
                throw StorageError.failed(service: self.serviceName, detail: "\(what): no ETag in the answer")
            }
            return etag
        }
    }

    /// Runs `signed` with `length` bytes of `file` from `offset` as its body, written to the
    /// connection as a file region. The file stays open until the region's write has ended
    /// (sent, or failed with the connection), so the event loop never sends from a closed file.
    private func execute(_ signed: HTTPClientRequest, bodyFrom file: URL, offset: Int64, length: Int) async throws -> HTTPClient.Response {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemFailure.lastError("open an incoming upload to send it") }
        // A region past the file's end would stall the write (sendfile sends nothing there) until the deadline.
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int64(status.st_size) >= offset + Int64(length) else {
            close(descriptor)
            throw SystemFailure(code: EIO, action: "read an incoming upload to send it: it is shorter than written")
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        let region = FileRegion(fileHandle: handle, readerIndex: Int(offset), endIndex: Int(offset) + length)
        let bodyWritten = Mutex<EventLoopFuture<Void>?>(nil)
        let outcome: Result<HTTPClient.Response, any Error>
        do {
            let request = try HTTPClient.Request(
                url: signed.url, method: signed.method, headers: signed.headers,
                body: .stream(contentLength: Int64(length)) { writer in
                    let written = writer.write(.fileRegion(region))
                    bodyWritten.withLock { $0 = written }
                    return written
                }
            )
            let task = client.execute(request: request, delegate: ResponseAccumulator(request: request, maxBodySize: 1 << 20))
            outcome = .success(try await withTaskCancellationHandler { try await task.futureResult.get() } onCancel: { task.cancel() })
        } catch {
            outcome = .failure(error)
        }
        if let written = bodyWritten.withLock({ $0 }) { _ = try? await written.get() }
        try? handle.close()
        return try outcome.get()
    }
}
