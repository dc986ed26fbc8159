import Crypto
import Foundation
import Hummingbird
import MultipartKit
import TraceFormats
import TraceStorage

/// An upload streamed to a file in the store's incoming directory, not yet read as a trace.
public struct ReceivedUpload: Sendable {
    public var file: URL
    /// Content-derived trace id (hashed while receiving): the first 32 digits of `sha256`.
    public var id: String
    /// Lowercase hex SHA-256 of the trace file: its blob's key.
    public var sha256: String
    /// Bytes of the trace file itself (without multipart framing).
    public var size: Int64
    /// Display name: the file name the client gave.
    public var name: String
}

/// Streams `POST /api/traces` bodies to disk: a raw body, or the `file` field of a
/// `multipart/form-data` form. Never holds the body in memory; over the limit is 413 and the
/// partial file is deleted.
enum UploadReceiver {
    /// - Parameters:
    ///   - limit: most bytes accepted now (the size limit, or less when storage is nearly full).
    ///   - sizeLimit: the configured size limit, named in the error when that is what was passed.
    static func receive(_ request: Request, into directory: URL, limit: Int64, sizeLimit: Int64) async throws(APIError) -> ReceivedUpload {
        let overLimit = limit < sizeLimit ? storageFull() : tooLarge(sizeLimit)
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        // text/plain is refused too: it is what a cross-site page can send without asking (a
        // "simple" request), and no trace file is plain text to a browser.
        if mediaType == "application/x-www-form-urlencoded" || mediaType == "text/plain"
            || (mediaType.hasPrefix("multipart/") && mediaType != "multipart/form-data") {
            throw APIError(.unsupportedMediaType, "unsupported media type",
                           detail: "Send the trace file as the raw body (e.g. curl -H 'Content-Type: application/octet-stream' --data-binary @trace.json), or as the field 'file' of a multipart/form-data form (curl -F file=@trace.json); got \(mediaType).")
        }
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > limit {
            throw overLimit
        }
        let file = directory.appendingPathComponent("\(UUID().uuidString).part")
        guard let handle = try? FileHandle.creatingForWriting(at: file) else {
            throw APIError(.internalServerError, "cannot store trace", detail: "Cannot create \(file.path).")
        }
        let sink = FileSink(handle: handle)
        do {
            let formName: String?
            if mediaType == "multipart/form-data" {
                formName = try await receiveMultipart(request, contentType: contentType, sink: sink, limit: limit, overLimit: overLimit)
            } else {
                var received: Int64 = 0
                for try await buffer in request.body {
                    received += Int64(buffer.readableBytes)
                    if received > limit { throw overLimit }
                    try sink.write(buffer)
                }
                formName = nil
            }
            try handle.close()
            let name = displayName(formName ?? QueryParameters(request: request).string("name") ?? request.headers[.traceName].map { $0.removingPercentEncoding ?? $0 })
            let sha256 = SigV4.hex(sink.hasher.finalize())
            return ReceivedUpload(file: file, id: String(sha256.prefix(32)), sha256: sha256, size: sink.written, name: name)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
            if let error = error as? APIError { throw error }
            throw APIError(.badRequest, "upload interrupted", detail: "The upload did not arrive whole: \(error)")
        }
    }

    /// Writes the first `file` field of the form to the sink; returns the field's file name.
    private static func receiveMultipart(_ request: Request, contentType: String, sink: FileSink, limit: Int64, overLimit: APIError) async throws -> String? {
        guard let boundary = headerParameter(contentType, "boundary"), !boundary.isEmpty else {
            throw APIError(.badRequest, "bad multipart form", detail: "Content-Type multipart/form-data has no boundary.")
        }
        let parser = MultipartParser(boundary: boundary)
        let part = PartState()
        parser.onHeader = { name, value in
            guard name.lowercased() == "content-disposition" else { return }
            part.isFile = !part.fileDone && headerParameter(value, "name") == "file"
            if part.isFile { part.fileName = headerParameter(value, "filename") }
        }
        parser.onBody = { buffer in
            guard part.isFile else { return }
            do { try sink.write(buffer) } catch { part.writeError = error }
        }
        parser.onPartComplete = {
            if part.isFile { part.fileDone = true }
            part.isFile = false
        }
        var received: Int64 = 0
        for try await buffer in request.body {
            received += Int64(buffer.readableBytes)
            if received > limit { throw overLimit }
            do {
                try parser.execute(buffer)
            } catch {
                throw APIError(.badRequest, "bad multipart form", detail: "The multipart/form-data body is malformed.")
            }
            if let error = part.writeError { throw error }
        }
        guard part.fileDone else {
            throw APIError(.badRequest, "bad multipart form", detail: "The form has no complete field named 'file'.")
        }
        return part.fileName.flatMap { $0.isEmpty ? nil : $0 }
    }

    private final class PartState {
        var isFile = false
        var fileDone = false
        var fileName: String?
        var writeError: (any Error)?
    }

    private final class FileSink {
        let handle: FileHandle
        var hasher = SHA256()
        var written: Int64 = 0
        init(handle: FileHandle) { self.handle = handle }

        func write(_ buffer: ByteBuffer) throws {
            try buffer.withUnsafeReadableBytes { bytes in
                hasher.update(bufferPointer: bytes)
                try handle.write(contentsOf: bytes)
            }
            written += Int64(buffer.readableBytes)
        }
    }

    static func storageFull() -> APIError {
        APIError(StoreError.storageFull("The server's storage quota (--max-stored-mb) or its disk is nearly full; delete traces you no longer need."))
    }

    static func tooLarge(_ limit: Int64) -> APIError {
        APIError(.contentTooLarge, "upload too large", detail: "Traces up to \(limit / (1 << 20)) MB are accepted (see --max-upload-mb).")
    }

    /// A file name safe to show and store: its last path component, without control characters.
    static func displayName(_ given: String?) -> String {
        let base = (given ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let clean = String(base.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.prefix(200))
            .trimmingCharacters(in: .whitespaces)
        return clean.isEmpty ? "upload" : clean
    }
}

/// A parameter of a header value such as `form-data; name="file"; filename="a.json"`.
func headerParameter(_ header: String, _ name: String) -> String? {
    for item in header.split(separator: ";").dropFirst() {
        let pair = item.split(separator: "=", maxSplits: 1)
        guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
        var value = pair[1].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        return value
    }
    return nil
}

extension HTTPFields.Element.Name {
    static let traceName = Self("X-Trace-Name")!
}
