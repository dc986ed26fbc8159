import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Stamped on stored measurements: a parser bump or a change of what is measured makes the
    /// background measure every trace again.
    public static let measuredVersion = TraceImporter.parserVersion * 1000 + TraceMeasurements.version

    // MARK: Measuring in the background

    nonisolated static func isOutage(_ error: StorageError) -> Bool {
        switch error {
        case .unavailable, .failed: true
        case .missingBlob, .corruptBlob: false
        }
    }

    /// Measures what is missing, a few traces at a time, then looks again every minute.
    func measureInBackground() async {
        while !Task.isCancelled {
            let measured = await measureStale()
            try? await Task.sleep(for: measured > 0 ? .milliseconds(50) : .seconds(60))
        }
    }

    /// Measures up to `limit` uploads whose figures are missing or of another `measuredVersion`
    /// (a parser bump, a trace stored before the history); returns how many it stored. Replicas
    /// may measure one trace twice: the second write replaces the first with the same figures.
    @discardableResult
    public func measureStale(limit: Int = 8) async -> Int {
        var stale: [CatalogEntry] = []
        do {
            for entry in try await storage.catalog.unmeasured(version: Self.measuredVersion, limit: limit + unmeasurable.count)
                // A new upload's figures are being stored by its extras (`prepareExtras`).
                where !unmeasurable.contains(entry.id) {
                if await !models.isMeasuring(entry.id) { stale.append(entry) }
            }
        } catch {
            logger.warning("measuring: cannot list the traces to measure: \(error)")
            return 0
        }
        var stored = 0
        for entry in stale.shuffled().prefix(limit) {
            do {
                let loaded = try await loaded(id: entry.id)
                let measurements = try await loadGate.run { loaded.measurements() }
                if try await storage.catalog.storeMeasurements(
                    measurements, id: entry.id, measuredVersion: Self.measuredVersion, parserVersion: TraceImporter.parserVersion
                ) { stored += 1 }
            } catch {
                // A storage service that is down: later. Bytes missing or damaged, a file the parser refuses: not again.
                if case let .service(failure) = Self.storeError(error), Self.isOutage(failure) {
                    logger.warning("measuring: \(entry.id): \(error); trying again later")
                    break
                }
                unmeasurable.insert(entry.id)
                logger.error("measuring: trace \(entry.id) cannot be measured: \(error)")
            }
        }
        if stored > 0 { logger.info("measured \(stored) trace(s) for the history") }
        return stored
    }
}
