import Testing
import TraceModel
import TraceSamples

/// The concurrency samples tell their story: the slow one waits on the Main Actor and hitches.
@Suite struct ConcurrencySampleTests {
    @Test func slowSampleWaitsOnTheMainActorAndHitchesFixedDoesNot() throws {
        let slow = SampleTraces.trace(named: "landmarks-concurrency-slow")
        let fixed = SampleTraces.trace(named: "landmarks-concurrency-fixed")
        func longestWait(_ trace: Trace) -> Nanoseconds {
            trace.indexes.mainActorWaits.map { trace.taskStates.duration[Int($0)] }.max() ?? 0
        }
        #expect(longestWait(slow) > MainActorWait.redThreshold)
        #expect(longestWait(fixed) < MainActorWait.orangeThreshold)
        let slowWait = try #require(slow.indexes.mainActorWaits.max { slow.taskStates.duration[Int($0)] < slow.taskStates.duration[Int($1)] })
        #expect(slow.taskStateDetail(Int(slowWait))?.task.title == "View.task @ Landmarks/MapView.swift:31")
        let loader = try #require(slow.taskSummary().first)
        #expect(loader.resumeFunction == "LandmarkImageLoader.loadImages(for:)")
        #expect(loader.isMainActor && loader.running == 120_000_000)
        #expect(!slow.hitches.isEmpty && slow.hitches.allSatisfy { $0.start > 1_000_000_000 })
        #expect(fixed.hitches.isEmpty)
        #expect(fixed.taskSummary().first { $0.resumeFunction == "LandmarkImageLoader.loadImages(for:)" }?.isMainActor == false)
    }
}
