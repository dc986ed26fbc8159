import Foundation
import Hummingbird
import Prometheus
import TraceModel
import TraceStorage

/// `GET /healthz` (the process answers), `GET /readyz` (every storage service answers within its
/// deadline) and `GET /metrics` (Prometheus text): what a load balancer and an operator's
/// Grafana read. None of them needs the write token.
struct HealthRoutes: RouteController {
    let readiness: Readiness
    /// Nil when `/metrics` is served alone on `serve --metrics-listen`'s port.
    let metrics: OperationalMetrics?

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/healthz", use: health)
        router.get("/readyz", use: ready)
        if let metrics { MetricsRoutes(metrics: metrics).add(to: router) }
    }

    @Sendable func health(_ request: Request, context: TraceRequestContext) async throws -> Response {
        try jsonResponse(["status": "ok"])
    }

    @Sendable func ready(_ request: Request, context: TraceRequestContext) async throws -> Response {
        let report = await readiness.check()
        return try jsonResponse(report, status: report.ready ? .ok : .serviceUnavailable)
    }
}

/// `GET /metrics`, on the public port or alone on `serve --metrics-listen`'s.
struct MetricsRoutes: RouteController {
    let metrics: OperationalMetrics

    func add(to router: some RouterMethods<TraceRequestContext>) {
        router.get("/metrics", use: emit)
    }

    @Sendable func emit(_ request: Request, context: TraceRequestContext) async throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: await metrics.emit()))
        )
    }
}

/// The storage services a request may need, checked together, each within its own deadline.
public struct Readiness: Sendable {
    public struct Check: Sendable {
        public var service: String
        public var run: @Sendable () async throws -> Void

        public init(service: String, run: @escaping @Sendable () async throws -> Void) {
            self.service = service
            self.run = run
        }
    }

    /// One service's answer to the check.
    public struct ServiceStatus: Encodable, Sendable {
        public var name: String
        public var ok: Bool
        public var milliseconds: Int
        @NullWhenAbsent public var error: String?
    }

    public struct Report: Encodable, Sendable {
        public var ready: Bool
        public var services: [ServiceStatus]
        /// The first service that is down, said for a person: `catalog (PostgreSQL) unavailable: …`.
        @NullWhenAbsent public var detail: String?
    }

    public var checks: [Check]
    /// A check that takes longer is reported down.
    public var timeout: Duration

    public init(checks: [Check], timeout: Duration = .seconds(3)) {
        self.checks = checks
        self.timeout = timeout
    }

    public func check() async -> Report {
        let timeout = timeout
        let services = await withTaskGroup(of: (Int, ServiceStatus).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask {
                    let started = ContinuousClock.now
                    var problem: String?
                    do {
                        try await withDeadline(timeout, service: check.service, check.run)
                    } catch let failure as StorageError {
                        problem = failure.description
                    } catch {
                        problem = "\(check.service): \(error)"
                    }
                    let milliseconds = Int((ContinuousClock.now - started).wholeMilliseconds)
                    return (index, ServiceStatus(name: check.service, ok: problem == nil, milliseconds: milliseconds, error: problem))
                }
            }
            var services: [(Int, ServiceStatus)] = []
            for await result in group { services.append(result) }
            return services.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let down = services.first { !$0.ok }
        return Report(ready: down == nil, services: services, detail: down?.error)
    }
}
