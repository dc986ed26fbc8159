import Foundation
import Logging
import NIOCore
import Testing
import TraceFormats
import TraceStorage
@testable import TraceServer

/// What the first timeline answer needs is built before an upload (or a load) answers; the rest
/// right after, off the request path, and a request that needs one of those waits only for it.
@Suite struct FirstPictureTests {
    @Test func aLoadedTraceBuildsOnlyWhatTheFirstPictureNeedsThenTheRestOnce() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.root.appendingPathComponent("pantry.json")
        try Data(nativeTrace(updates: 5_000, app: "Pantry").utf8).write(to: file)
        let trace = try TraceImporter.importTrace(at: file, displayName: "pantry.json")
        let loaded = LoadedTrace(id: "pantry", trace: trace, memory: MemoryBudget(limit: 1 << 30).claimNow(0))
        #expect(loaded.findingsIfBuilt == nil, "findings wait until after the first picture")
        #expect(trace.indexes.lists.memoryFootprint == 0, "so do the summary rows and update lists")
        loaded.prepareExtras()
        let findings = try #require(loaded.findingsIfBuilt)
        #expect(!findings.isEmpty && findings.count == trace.findings().count)
        #expect(trace.indexes.lists.memoryFootprint > 0)
    }

    @Test func theHistoryRightAfterAnUploadWaitsForItsFiguresOnly() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30), logger: Logger(label: "test")
        )
        var ids: [String] = []
        for build in 1...3 {
            let file = try IncomingFile(in: store.incomingDirectory)
            try file.write(ByteBuffer(string: nativeTrace(updates: 20_000 + build, app: "Pantry")))
            let sha256 = try file.finish()
            let added = try await store.add(ReceivedUpload(file: file.url, id: String(sha256.prefix(32)), sha256: sha256, size: file.written, name: "b\(build).json"))
            ids.append(added.record.id)
            // Asked at once: the figures stored right after the answer are waited for, not missing.
            let history = try await store.history(HistoryRequest())
            #expect(history.pending == 0 && history.shown == build, "build \(build): \(history.shown) shown, \(history.pending) pending")
        }
        try await store.waitForExtras(of: ids)
        #expect(await !store.models.isBuildingExtras)
    }

    /// A load of a new upload (the background measuring asks for traces without figures) may
    /// start its extras between the upload's row and its own extras: the upload's figures are
    /// still stored, after those, and the history waits for them.
    @Test func aNewUploadsFiguresFollowExtrasThatALoadStartedFirst() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = try await TraceStore.open(
            .init(dataDirectory: scratch.dataDirectory, samplesDirectory: nil, memoryBudgetBytes: 1 << 30, maxConcurrentLoads: 1),
            logger: Logger(label: "test")
        )
        let file = scratch.root.appendingPathComponent("larder.json")
        try Data(nativeTrace(updates: 3_000, app: "Larder").utf8).write(to: file)
        let trace = try TraceImporter.importTrace(at: file, displayName: "larder.json")
        let (hex, size) = try sha256OfFile(file)
        let id = String(hex.prefix(32))
        _ = try await store.commit(CatalogEntry(
            id: id, name: "larder", app: "Larder", device: "iPhone", durationNs: trace.metadata.duration, sizeBytes: size, sha256: hex,
            sourceFormat: trace.metadata.sourceFormat, updateCount: trace.updates.count, run: nil, uploadedAtMicros: 1, tags: [],
            parserVersion: TraceImporter.parserVersion
        ), file: file)
        let loaded = LoadedTrace(id: id, trace: trace, memory: MemoryBudget(limit: 1 << 30).claimNow(0))
        // The one load slot is taken, so the load's extras are surely still waiting when the upload's are asked for.
        try await store.loadGate.enter()
        await store.prepareExtras(of: loaded, id: id, measure: false)
        await store.prepareExtras(of: loaded, id: id, measure: true)
        await store.loadGate.leave()
        let history = try await store.history(HistoryRequest())
        #expect(history.pending == 0 && history.shown == 1, "\(history.shown) shown, \(history.pending) pending")
        #expect(await !store.models.isBuildingExtras)
    }
}
