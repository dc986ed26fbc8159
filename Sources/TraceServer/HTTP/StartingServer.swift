import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Runs `work` (a replica preparing its storage: connecting, then running or waiting for the
/// catalog's schema migrations, which another replica or `tracesvc migrate --schema-only` may
/// hold for minutes) while the port already answers: `/healthz` 200, so a liveness probe does not
/// restart a replica that is only waiting, and anything else (`/readyz` included) a JSON 503
/// saying what it waits for, so no load balancer sends it requests yet. The port is free again
/// when `work` returns, for the application itself. A replica is ready when `/readyz` says so
/// (scripts starting one wait for that, not for `/healthz`). `port` nil: `work` alone.
public func answeringWhileStarting<T: Sendable>(
    host: String, port: Int?, waitingFor: String, logger: Logger, _ work: () async throws -> T
) async throws -> T {
    guard let port else { return try await work() }
    let starting = try jsonResponse(["status": "starting", "detail": "waiting for \(waitingFor)"])
    let notReady = try jsonResponse(NotReadyYet(detail: "This replica is starting: waiting for \(waitingFor)."), status: .serviceUnavailable)
    let app = Application(
        responder: CallbackResponder { (request: Request, _: BasicRequestContext) in
            request.uri.path == "/healthz" ? starting : notReady
        },
        configuration: .init(address: .hostname(host, port: port), serverName: "tracesvc"),
        logger: logger
    )
    let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
    let serving = Task { try await group.run() }
    let result: Result<T, any Error>
    do {
        result = .success(try await work())
    } catch {
        result = .failure(error)
    }
    await group.triggerGracefulShutdown()
    if case let .failure(error) = await serving.result {
        logger.warning("could not answer on port \(port) while starting: \(error)")
    }
    return try result.get()
}

/// `/readyz`'s shape (`ready`, `detail`) and an API error's (`error`, `detail`) at once.
private struct NotReadyYet: Encodable {
    var ready = false
    var error = "starting"
    var detail: String
}
