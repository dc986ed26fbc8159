import Foundation
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    /// Extras being built for one trace (`prepareExtras`).
    struct ExtrasBuild: Sendable {
        /// Tells this build from a later one of the same trace.
        let serial: Int
        /// Whether it ends with the history's figures of a new upload stored.
        let measures: Bool
        let task: Task<Void, Never>
    }

    /// Builds what a trace's first picture did not need (findings, summary and update lists, the
    /// comparison side and its cause fan-outs) after it, off the request path and within the
    /// load gate; `measure`: then stores the history's figures of a new upload. A request that
    /// needs one of these meanwhile builds or waits for that one only (`LoadedTrace`).
    func prepareExtras(of loaded: LoadedTrace, id: String, measure: Bool) {
        let earlier = extrasInFlight[id]
        // Being built already; a new upload's figures are still stored after a load's extras
        // (a load of the same id may start first: the background measuring asks for it).
        if let earlier, earlier.measures || !measure { return }
        extrasBuilt += 1
        let serial = extrasBuilt
        let gate = loadGate, catalog = storage.catalog, logger = logger
        let task = Task.detached(priority: .utility) { [weak self] in
            await earlier?.task.value
            do {
                let measurements = try await gate.run { () -> TraceMeasurements? in
                    loaded.prepareExtras()
                    return measure ? loaded.measurements() : nil
                }
                if let measurements {
                    let stored = try await catalog.storeMeasurements(
                        measurements, id: id, measuredVersion: Self.measuredVersion, parserVersion: TraceImporter.parserVersion
                    )
                    if !stored { logger.info("trace \(id) was deleted before its history figures were stored") }
                }
            } catch {
                // Requests build what they need meanwhile, and the background measuring stores
                // the history's figures later (`measureInBackground`); until then the history
                // counts this trace as pending.
                logger.warning("extras of trace \(id) left for later: \(error)")
            }
            await self?.extrasDone(id, serial: serial)
        }
        extrasInFlight[id] = ExtrasBuild(serial: serial, measures: measure, task: task)
    }

    /// The server is stopping: the extras being built stop at their next check (and keep nothing
    /// half built); a new upload's figures are measured again at the next start.
    func cancelBackgroundBuilds() {
        for build in extrasInFlight.values { build.task.cancel() }
    }

    func extrasDone(_ id: String, serial: Int) {
        if extrasInFlight[id]?.serial == serial { extrasInFlight[id] = nil }
    }

    /// Waits until the extras being built for these traces (and the figures of new uploads) are
    /// done; throws `.cancelled` as soon as the caller is (a stopping server waits for no build).
    func waitForExtras(of ids: [String]) async throws(StoreError) {
        for id in ids {
            // A later build may have replaced the one waited for: wait until none is left.
            while let building = extrasInFlight[id] {
                guard await building.task.valueUnlessCancelled() != nil else { throw .cancelled }
            }
        }
    }
}
