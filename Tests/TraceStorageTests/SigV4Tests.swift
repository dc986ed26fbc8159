import Crypto
import Foundation
import Testing
@testable import TraceStorage

/// The signer against the published AWS Signature Version 4 vectors: a wrong canonical form
/// (encoding, sorting, trimming, repeated headers) changes the signature and fails here.
struct SigV4Tests {
    struct Fixture: Decodable {
        struct Suite: Decodable {
            var accessKeyID, secretAccessKey, region, service, amzDate: String
            var vectors: [Vector]
        }
        struct Vector: Decodable {
            var name, req, authz: String
            var creq, sts: String?
        }
        var suites: [Suite]
    }

    static func fixture() throws -> Fixture {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/sigv4-vectors", withExtension: "json"))
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    /// A request written as the suite's `.req` files: request line, `Name:value` headers, blank line, body.
    static func parse(_ text: String) -> SigV4.Request {
        let (head, body) = text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ")
        let target = String(requestLine[1])
        let (path, query) = target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) } ?? (target, "")
        let pairs = query.split(separator: "&").map { item in
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            return (name: kv[0], value: kv.count > 1 ? kv[1] : "")
        }
        let headers = lines.map { line in
            let colon = line.firstIndex(of: ":")!
            return (name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        }
        return SigV4.Request(method: String(requestLine[0]), path: path, query: pairs, headers: headers,
                             payloadHash: SigV4.hex(SHA256.hash(data: Data(body.utf8))))
    }

    @Test func signsEveryPublishedVector() throws {
        var checked = 0
        for suite in try Self.fixture().suites {
            let credentials = SigV4.Credentials(accessKeyID: suite.accessKeyID, secretAccessKey: suite.secretAccessKey)
            for vector in suite.vectors {
                let request = Self.parse(vector.req)
                if let creq = vector.creq { #expect(SigV4.canonicalRequest(request).text == creq, "\(vector.name): canonical request") }
                if let sts = vector.sts {
                    let scope = "\(suite.amzDate.prefix(8))/\(suite.region)/\(suite.service)/aws4_request"
                    #expect(SigV4.stringToSign(canonicalRequest: SigV4.canonicalRequest(request).text, amzDate: suite.amzDate, scope: scope) == sts, "\(vector.name): string to sign")
                }
                let authorization = SigV4.authorization(request, credentials: credentials, region: suite.region, service: suite.service, amzDate: suite.amzDate)
                #expect(authorization == vector.authz, "\(vector.name)")
                checked += 1
            }
        }
        #expect(checked == 14)
    }

    @Test func amzDateIsUTCBasicFormat() {
        #expect(SigV4.amzDate(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
    }

    @Test func credentialsNeverPrintTheSecret() {
        let credentials = SigV4.Credentials(accessKeyID: "AKID", secretAccessKey: "very-secret")
        #expect(!"\(credentials)".contains("very-secret"))
        #expect(!String(reflecting: credentials).contains("very-secret"))
    }
}
