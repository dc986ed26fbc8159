import Crypto
import Foundation
import Hummingbird
import Logging
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
    /// Its room on disk, reserved when receiving started; committed or given back by the store.
    var reservation: StorageQuota.Reservation?
    /// Its import, started while it arrived (nil: the store reads the file now).
    var importing: UploadImport?
    /// Its blob, sent to the object store while it arrived (nil: the store writes it now).
    var streamedBlob: StreamedBlob?
}

/// Starts the import of an upload whose first bytes are on disk, reading the rest as it arrives:
/// given the file, its display name and the request's declared length.
typealias ImportStarter = @Sendable (_ file: IncomingFile, _ name: String, _ declaredLength: Int64) -> UploadImport

/// Starts sending an upload's blob to the store while it arrives, given its file and declared
/// length; nil when the store keeps it some other way (files, or a body too small to stream).
typealias BlobStreamStarter = @Sendable (_ file: URL, _ declaredLength: Int64) -> StreamedBlob?

/// Streams `POST /api/traces` bodies to disk: a raw body, or the `file` field of a
/// `multipart/form-data` form. Never holds the body in memory; over the size limit is 413, over
/// the storage quota 507, and the partial file is deleted.
enum UploadReceiver {
    /// - Parameters:
    ///   - quota: reserves the upload's room when receiving starts (its `Content-Length`, else
    ///     as it arrives), so concurrent uploads cannot pass the quota together.
    ///   - maxUploadBytes: the size limit (`--max-upload-mb`).
    ///   - startImport: reads the trace while it arrives, from its first bytes on, when the request
    ///     declares its length (what the import's memory is estimated from); a body of unknown
    ///     length is read once it is whole.
    ///   - streamBlob: sends the blob to the store while it arrives, when the request declares its length.
    static func receive(
        _ request: Request, into directory: URL, quota: StorageQuota, maxUploadBytes: Int64, logger: Logger, startImport: ImportStarter? = nil,
        streamBlob: BlobStreamStarter? = nil
    ) async throws(APIError) -> ReceivedUpload {
        let tooLarge = tooLarge(maxUploadBytes)
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = try acceptedMediaType(contentType)
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        if let length, length > maxUploadBytes { throw tooLarge }
        let reservation: StorageQuota.Reservation
        do {
            reservation = try quota.reserve(bytes: length ?? 0)
        } catch {
            throw APIError(error)
        }
        let file: IncomingFile
        do {
            file = try IncomingFile(in: directory)
        } catch {
            logger.error("upload refused: \(error)")
            throw APIError(error.storeError)
        }
        if let streamBlob, let length { file.streamed = streamBlob(file.url, length) }
        let givenName = QueryParameters(request: request).string("name") ?? request.headers[.traceName].map { $0.removingPercentEncoding ?? $0 }
        // Started once the file's first bytes are written (a form's file name is known by then, and
        // the gzip magic that the import's memory estimate reads).
        let importing = ImportHolder()
        let beginImport: (String) -> Void = { name in
            guard importing.value == nil, file.written >= 2, let startImport, let length else { return }
            importing.value = startImport(file, name, length)
        }
        do {
            let formName: String?
            if mediaType == "multipart/form-data" {
                formName = try await receiveMultipart(
                    request, contentType: contentType, file: file, reservation: reservation, maxBytes: maxUploadBytes, tooLarge: tooLarge,
                    fileStarted: { beginImport(displayName($0 ?? givenName)) }
                )
            } else {
                var received: Int64 = 0
                let name = displayName(givenName)
                for try await buffer in request.body {
                    received += Int64(buffer.readableBytes)
                    if received > maxUploadBytes { throw tooLarge }
                    try reservation.cover(received)
                    try file.write(buffer)
                    beginImport(name)
                }
                formName = nil
            }
            let sha256 = try file.finish()
            let name = displayName(formName ?? givenName)
            return ReceivedUpload(
                file: file.url, id: String(sha256.prefix(32)), sha256: sha256, size: file.written, name: name, reservation: reservation,
                importing: importing.value, streamedBlob: file.streamed
            )
        } catch {
            file.discard()
            // The import stops at the abandoned file; its memory is given back before the answer,
            // and the parts of its blob already sent are dropped.
            if let started = importing.value { await started.stop() }
            await file.streamed?.abort()
            switch error {
            case let error as APIError: throw error
            case let error as StoreError: throw APIError(error)
            case let error as SystemFailure:
                logger.error("upload refused: \(error)")
                throw APIError(error.storeError)
            // The body stopped arriving (the client left, or a guard closed the connection): the
            // error's text is the transport's, not the client's business.
            default: throw APIError(.badRequest, "upload interrupted", detail: "The upload did not arrive whole; send it again.")
            }
        }
    }

    /// The body's media type, lowercased, when it can carry a trace. text/plain is refused too: it
    /// is what a cross-site page can send without asking (a "simple" request), and no trace file
    /// is plain text to a browser.
    static func acceptedMediaType(_ contentType: String) throws(APIError) -> String {
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if mediaType == "application/x-www-form-urlencoded" || mediaType == "text/plain"
            || (mediaType.hasPrefix("multipart/") && mediaType != "multipart/form-data") {
            throw APIError(.unsupportedMediaType, "unsupported media type",
                           detail: "Send the trace file as the raw body (e.g. curl -H 'Content-Type: application/octet-stream' --data-binary @trace.json), or as the field 'file' of a multipart/form-data form (curl -F file=@trace.json); got \(mediaType).")
        }
        return mediaType
    }

    /// Most bytes the multipart parser may read without reporting a header, body bytes or the end
    /// of a part: bounds a part's headers (and a preamble) before the parser accumulates them;
    /// MultipartKit copies a header value on every chunk it is given, so an endless value cost
    /// time growing with the square of its length.
    static let maxPartHeaderBytes = 16 << 10
    /// The parser is given the body in slices of at most this, so that the bound above is checked
    /// between slices (a single chunk of the body may be far larger).
    private static let parserSlice = 4 << 10

    /// Writes the first `file` field of the form to the file; returns the field's file name.
    /// `fileStarted` is called with the field's file name once its first bytes are written.
    private static func receiveMultipart(
        _ request: Request, contentType: String, file: IncomingFile, reservation: StorageQuota.Reservation, maxBytes: Int64, tooLarge: APIError,
        fileStarted: (String?) -> Void
    ) async throws -> String? {
        guard let boundary = headerParameter(contentType, "boundary"), !boundary.isEmpty else {
            throw APIError(.badRequest, "bad multipart form", detail: "Content-Type multipart/form-data has no boundary.")
        }
        let parser = MultipartParser(boundary: boundary)
        let part = PartState()
        parser.onHeader = { name, value in
            part.progressed = true
            guard name.lowercased() == "content-disposition" else { return }
            part.isFile = !part.fileDone && headerParameter(value, "name") == "file"
            if part.isFile { part.fileName = headerParameter(value, "filename") }
        }
        parser.onBody = { buffer in
            part.progressed = true
            guard part.isFile else { return }
            do { try file.write(buffer) } catch { part.writeError = error }
        }
        parser.onPartComplete = {
            part.progressed = true
            if part.isFile { part.fileDone = true }
            part.isFile = false
        }
        var received: Int64 = 0
        var sinceProgress = 0
        for try await var buffer in request.body {
            received += Int64(buffer.readableBytes)
            if received > maxBytes { throw tooLarge }
            // The rest of the form after the file is not read: nothing in it is used.
            while !part.fileDone, let slice = buffer.readSlice(length: min(buffer.readableBytes, parserSlice)), slice.readableBytes > 0 {
                // The file gets at most the slice's bytes.
                try reservation.cover(file.written + Int64(slice.readableBytes))
                part.progressed = false
                do {
                    try parser.execute(slice)
                } catch {
                    throw APIError(.badRequest, "bad multipart form", detail: "The multipart/form-data body is malformed.")
                }
                if let error = part.writeError { throw error }
                if part.isFile || part.fileDone { fileStarted(part.fileName.flatMap { $0.isEmpty ? nil : $0 }) }
                sinceProgress = part.progressed ? 0 : sinceProgress + slice.readableBytes
                if sinceProgress > maxPartHeaderBytes {
                    throw APIError(.badRequest, "bad multipart form",
                                   detail: "A part's headers (or the text before the first part) pass \(maxPartHeaderBytes >> 10) KB.")
                }
            }
        }
        guard part.fileDone else {
            throw APIError(.badRequest, "bad multipart form", detail: "The form has no complete field named 'file'.")
        }
        return part.fileName.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The import started while receiving, if any.
    private final class ImportHolder {
        var value: UploadImport?
    }

    private final class PartState {
        /// The parser reported something since this was last cleared.
        var progressed = false
        var isFile = false
        var fileDone = false
        var fileName: String?
        var writeError: (any Error)?
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
