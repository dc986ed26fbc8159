import Foundation
import TraceFormats
import TraceModel
import TraceStorage

/// An upload's import started while it arrives (`TraceStore.beginImport`).
struct UploadImport: Sendable {
    let task: Task<ImportedUpload, any Error>

    /// Stops it (its file was abandoned) and waits until it has let go of its memory.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

struct ImportedUpload: Sendable {
    let trace: Trace
    let memory: MemoryBudget.Claim
    let started: ContinuousClock.Instant
}

/// Named intervals, each ended by the next, said in milliseconds (for a debug log line).
struct UploadPhases: CustomStringConvertible {
    var last = ContinuousClock.now
    var ended: [(name: String, duration: Duration)] = []

    mutating func end(_ name: String) {
        let now = ContinuousClock.now
        ended.append((name, now - last))
        last = now
    }

    var description: String {
        ended.map { "\($0.name) \($0.duration.wholeMilliseconds) ms" }.joined(separator: ", ")
    }
}
