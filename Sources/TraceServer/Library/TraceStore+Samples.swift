import Foundation
import Logging
import Synchronization
import TraceFormats
import TraceModel
import TraceStorage

extension TraceStore {
    struct Sample: Sendable {
        var record: TraceRecord
        var file: URL
    }

    /// Writes (tags, notes, verdicts, delete) are for uploads: a sample is read-only.
    func refuseSample(_ id: String) throws(StoreError) {
        if let sample = samples[id] { throw .readOnlySample(name: sample.record.name) }
    }

    func scanSamples() async throws {
        guard let directory = configuration.samplesDirectory else { return }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.gz") }
            .sorted()
        let cacheDirectory = samplesCacheDirectory
        let logger = logger
        // Hash and (first time only) read the samples in parallel, off the actor.
        let found = await withTaskGroup(of: (Sample, (Trace, String)?)?.self) { group in
            for name in names {
                let file = directory.appendingPathComponent(name)
                group.addTask { Self.indexSample(file, name: name, cacheDirectory: cacheDirectory, logger: logger) }
            }
            var found: [(Sample, (Trace, String)?)] = []
            for await result in group { if let result { found.append(result) } }
            return found
        }
        for (sample, loaded) in found where samples[sample.record.id] == nil {
            samples[sample.record.id] = sample
            if let (trace, id) = loaded { await models.adopt(LoadedTrace(id: id, trace: trace, memory: memory.claimNow(0)), id: id) }
        }
    }

    /// A sample's list entry, and the trace when it had to be read (the first time).
    nonisolated static func indexSample(_ file: URL, name: String, cacheDirectory: URL, logger: Logger) -> (Sample, (Trace, String)?)? {
        do {
            let (id, size) = try contentID(of: file)
            let cached = cacheDirectory.appendingPathComponent("\(id).json")
            if let data = FileManager.default.contents(atPath: cached.path),
               let record = try? JSONDecoder().decode(TraceRecord.self, from: data) {
                return (Sample(record: record, file: file), nil)
            }
            let trace = try TraceImporter.importTrace(at: file, displayName: name)
            let record = TraceRecord.sample(id: id, trace: trace, sizeBytes: size)
            try? Data(encodeJSON(record)).write(to: cached, options: .atomic)
            return (Sample(record: record, file: file), (trace, id))
        } catch {
            logger.error("skipping sample \(file.path): \(error)")
            return nil
        }
    }
}

/// The server's read-only samples by id, listed once at start: read without the store's actor
/// (the model cache looks a trace up here before the catalog).
final class SampleShelf: Sendable {
    private let byID = Mutex<[String: TraceStore.Sample]>([:])

    var all: [TraceStore.Sample] { byID.withLock { Array($0.values) } }

    subscript(id: String) -> TraceStore.Sample? {
        get { byID.withLock { $0[id] } }
        set { byID.withLock { $0[id] = newValue } }
    }
}
