import Logging
import Metrics
import Synchronization

/// Fail fast while a service is down: once a call finds it unavailable and a probe confirms it,
/// every later call is `.unavailable` at once (no request waits out a deadline on a service known
/// to be down) while one background probe asks it again every `probeInterval`; the first answer
/// closes the breaker. A call that was merely slow (a catalog query past its 2 s, the service
/// answering the probe) fails alone and leaves the breaker closed.
/// `tracesvc_service_up{service}` is 1 while closed, 0 while open.
public final class CircuitBreaker: Sendable {
    public let service: String
    private let probeInterval: Duration
    private let logger: Logger
    private let state = Mutex<State>(State())

    private struct State {
        /// When the open breaker opened, and the last reason the service was found down.
        var openedAt: ContinuousClock.Instant?
        var reason = ""
        /// A probe is asking whether an unavailable call meant the service is down.
        var confirming = false
    }

    public init(service: String, probeInterval: Duration = .seconds(1), logger: Logger) {
        self.service = service
        self.probeInterval = probeInterval
        self.logger = logger
        Gauge(label: "tracesvc_service_up", dimensions: [("service", service)]).record(1)
    }

    public var isOpen: Bool { state.withLock { $0.openedAt != nil } }

    /// Runs `body` unless the service is known to be down; an `.unavailable` from it opens the
    /// breaker once `probe` (which asks the service directly, within its own deadline) fails too,
    /// and `probe` closes it again.
    public func run<T: Sendable>(probe: @escaping @Sendable () async throws -> Void, _ body: () async throws -> T) async throws -> T {
        if let (openedAt, reason) = state.withLock({ state in state.openedAt.map { ($0, state.reason) } }) {
            let seconds = (ContinuousClock.now - openedAt).wholeMilliseconds / 1000
            throw StorageError.unavailable(service: service, detail: "down for \(seconds) s (\(reason)); checked again every \(probeInterval.shortDescription)")
        }
        do {
            return try await body()
        } catch let error as StorageError {
            if case let .unavailable(_, detail) = error { confirm(reason: detail, probe: probe) }
            throw error
        }
    }

    /// Asks `probe` in the background whether the service is down (the failed call is answered
    /// meanwhile; calls made meanwhile run as usual); only then does the breaker open.
    private func confirm(reason: String, probe: @escaping @Sendable () async throws -> Void) {
        let starts = state.withLock { state in
            guard state.openedAt == nil, !state.confirming else { return false }
            state.confirming = true
            return true
        }
        guard starts else { return }
        Task {
            var down: String?
            do {
                try await probe()
            } catch {
                down = Self.describe(error)
            }
            state.withLock { $0.confirming = false }
            if let down {
                open(reason: down == reason ? reason : "\(reason); then \(down)", probe: probe)
            } else {
                logger.warning("\(service): a call failed (\(reason)) but the service answers: slow, not down")
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        if case let .unavailable(_, detail) = error as? StorageError { detail } else { "\(error)" }
    }

    private func open(reason: String, probe: @escaping @Sendable () async throws -> Void) {
        let opened = state.withLock { state in
            state.reason = reason
            guard state.openedAt == nil else { return false }
            state.openedAt = .now
            return true
        }
        guard opened else { return }
        logger.error("\(service) is down (\(reason)): answering 503 at once until a probe finds it back")
        Gauge(label: "tracesvc_service_up", dimensions: [("service", service)]).record(0)
        Counter(label: "tracesvc_service_outages_total", dimensions: [("service", service)]).increment()
        Task { await probeUntilBack(probe) }
    }

    private func probeUntilBack(_ probe: @Sendable () async throws -> Void) async {
        while true {
            try? await Task.sleep(for: probeInterval)
            do {
                try await probe()
                break
            } catch {
                let reason = Self.describe(error)
                state.withLock { $0.reason = reason }
            }
        }
        let downFor = state.withLock { state in
            defer { state.openedAt = nil }
            return state.openedAt.map { ContinuousClock.now - $0 } ?? .zero
        }
        Gauge(label: "tracesvc_service_up", dimensions: [("service", service)]).record(1)
        logger.notice("\(service) is back after \(downFor.shortDescription)")
    }
}
