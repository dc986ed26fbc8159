import Crypto
import Foundation

/// AWS Signature Version 4 for request headers (the `Authorization` header), as S3-compatible
/// stores check it. Paths are encoded once (S3's rule, not the double encoding of other AWS
/// services) and never normalized; checked against the published AWS SigV4 test vectors.
public enum SigV4 {
    /// Object-store credentials. `description` never shows the secret.
    public struct Credentials: Sendable, CustomStringConvertible {
        public var accessKeyID: String
        public var secretAccessKey: String
        public var sessionToken: String?

        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }

        public var description: String { "Credentials(accessKeyID: \(accessKeyID), secret: <redacted>)" }
    }

    /// What is signed of a request. `path` and `query` are decoded text; headers keep their order
    /// (repeated names are joined with commas, in that order, as the spec says).
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(name: String, value: String)]
        public var headers: [(name: String, value: String)]
        /// Lowercase hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
        public var payloadHash: String

        public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)], payloadHash: String) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    public static let emptyPayloadHash = hex(SHA256.hash(data: Data()))
    /// The payload hash of a request whose body is not part of the signature.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// `20150830T123600Z`: the `X-Amz-Date` form of a time.
    public static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// The canonical request and the signed header names (`host;x-amz-date`).
    public static func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        var merged: [String: [String]] = [:]
        for (name, value) in request.headers {
            merged[name.lowercased(), default: []].append(canonicalHeaderValue(value))
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let encoded: [(name: String, value: String)] = request.query.map { item in
            (uriEncode(item.name, keepSlash: false), uriEncode(item.value, keepSlash: false))
        }
        let sorted = encoded.sorted { a, b in a.name != b.name ? a.name < b.name : a.value < b.value }
        let query = sorted.map { item in "\(item.name)=\(item.value)" }.joined(separator: "&")
        let path = request.path.isEmpty ? "/" : uriEncode(request.path, keepSlash: true)
        let text = [request.method, path, query, canonicalHeaders, signedHeaders, request.payloadHash].joined(separator: "\n")
        return (text, signedHeaders)
    }

    public static func stringToSign(canonicalRequest: String, amzDate: String, scope: String) -> String {
        "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(hex(SHA256.hash(data: Data(canonicalRequest.utf8))))"
    }

    /// The `Authorization` header value. The request's headers must already hold everything
    /// signed: `host`, `x-amz-date` (= `amzDate`), and for S3 `x-amz-content-sha256`.
    public static func authorization(_ request: Request, credentials: Credentials, region: String, service: String, amzDate: String) -> String {
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let (canonical, signedHeaders) = canonicalRequest(request)
        let toSign = stringToSign(canonicalRequest: canonical, amzDate: amzDate, scope: scope)
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key))
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// Trimmed, with runs of spaces collapsed to one.
    static func canonicalHeaderValue(_ value: String) -> String {
        var result = ""
        var lastWasSpace = false
        for character in value.trimmingCharacters(in: .whitespaces) {
            if character == " " || character == "\t" {
                if !lastWasSpace { result.append(" ") }
                lastWasSpace = true
            } else {
                result.append(character)
                lastWasSpace = false
            }
        }
        return result
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (and `/` in paths).
    static func uriEncode(_ text: String, keepSlash: Bool) -> String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]] }
        return String(decoding: out, as: UTF8.self)
    }
}
