import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import TraceStorage

/// Who made a request, as the audit trail names them, and what they may do (docs/api.md, "Tokens").
public struct AccessIdentity: Sendable, Equatable {
    public var name: String
    public var scopes: Set<AccessScope>

    public init(name: String, scopes: Set<AccessScope>) {
        self.name = name
        self.scopes = scopes
    }

    /// The server's one write token (`--write-token`): everything, as before personal tokens.
    public static let sharedToken = AccessIdentity(name: "shared token", scopes: [.admin])
    /// Anyone, on a server started without a write token.
    public static let open = AccessIdentity(name: "open (no token required)", scopes: [.admin])

    public func allows(_ scope: AccessScope) -> Bool { scopes.contains(.admin) || scopes.contains(scope) }
}

/// Which scope each request needs: one table for every route (reading traces needs none).
enum AccessRules {
    static func requiredScope(method: HTTPRequest.Method, path: String) -> AccessScope? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        let isTraces = parts.count >= 2 && parts[0] == "api" && parts[1] == "traces"
        switch method {
        case .get, .head:
            return path == "/api/audit" || path == "/api/retention" ? .read : nil
        case .post where path == AgentRoutes.path:
            // Reads are open; its one write (add_note) is checked as the note route it calls.
            return nil
        case .post where path == "/api/traces":
            return .upload
        case .delete where path == "/api/traces":
            return .delete
        case .post where isTraces && parts.count == 4 && parts[3] == "checks":
            return .upload
        case .patch where isTraces && parts.count == 3:
            return .annotate
        case .post where isTraces && parts.count == 4 && parts[3] == "notes", .delete where isTraces && parts.count == 5 && parts[3] == "notes":
            return .annotate
        case .delete where isTraces && parts.count == 3:
            return .delete
        default:
            // A write no rule names: only an administrator (safe for routes added later).
            return .admin
        }
    }
}

/// Finds the identity of a bearer token: the shared write token, or a personal token by the
/// SHA-256 of its secret in the catalog (revoked ones are not found, on every replica at once).
final class TokenAuthority: Sendable {
    let policy: AccessPolicy
    let catalog: any AccessCatalog
    /// Token id → when its last use was written: at most once a minute per token and replica.
    private let lastMarked = Mutex<[String: Int64]>([:])

    init(policy: AccessPolicy, catalog: any AccessCatalog) {
        self.policy = policy
        self.catalog = catalog
    }

    /// Nil: no identity (no token where one is needed, or a token nobody knows).
    func identify(authorization: String?) async throws(APIError) -> AccessIdentity? {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else {
            return policy.writeToken == nil ? .open : nil
        }
        if policy.writeToken != nil, policy.tokenMatches(authorization) { return .sharedToken }
        let secret = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let found: AccessToken?
        do {
            found = try await catalog.token(secretSHA256: AccessToken.sha256(ofSecret: secret))
        } catch {
            throw APIError(TraceStore.storeError(error))
        }
        guard let token = found else {
            // An open server lets anyone write: a stale or unknown token changes nothing.
            return policy.writeToken == nil ? .open : nil
        }
        await markUsed(token)
        return AccessIdentity(name: token.name, scopes: Set(token.scopes))
    }

    private func markUsed(_ token: AccessToken) async {
        let now = CatalogEntry.nowMicros()
        let due = lastMarked.withLock { marked in
            guard now - (marked[token.id] ?? token.lastUsedAtMicros ?? 0) >= 60_000_000 else { return false }
            marked[token.id] = now
            return true
        }
        // "Last used" is a hint for the operator: a catalog that cannot record it does not refuse the request.
        if due { try? await catalog.markTokenUsed(id: token.id, at: now) }
    }
}
