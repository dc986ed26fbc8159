import Crypto
import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// An upload's id: its content's, or for another run than the first a hash of that and the run.
    nonisolated static func uploadID(content: String, run: Int?) -> String {
        guard let run else { return content }
        return traceID(SHA256.hash(data: Data("\(content) run \(run)".utf8)))
    }

    /// The id an upload of this file gets (read at run 1): what `tracesvc check` asks the server not to use as its own baseline.
    public nonisolated static func uploadID(ofFile file: URL) throws -> String {
        try contentID(of: file).0
    }

    /// The content-derived id (first 128 bits of SHA-256, hex) and size of a file.
    nonisolated static func contentID(of file: URL) throws -> (String, Int64) {
        let (hex, size) = try sha256OfFile(file)
        return (String(hex.prefix(32)), size)
    }
}

/// Lowercase hex of the first 16 bytes of a digest.
func traceID(_ digest: SHA256.Digest) -> String {
    let hex = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in digest.prefix(16) {
        text.append(hex[Int(byte >> 4)])
        text.append(hex[Int(byte & 0xf)])
    }
    return String(decoding: text, as: UTF8.self)
}
