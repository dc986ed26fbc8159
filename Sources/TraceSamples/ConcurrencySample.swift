import TraceFormats
import TraceModel

/// Writes a task's states one after another, each starting where the previous one ended,
/// with the narratives Instruments prints.
private struct TaskSketch {
    let row: UInt32
    var time: Nanoseconds
    let priority: StringRef

    mutating func state(
        _ state: SwiftTaskState, for duration: Nanoseconds, in sketch: inout TraceSketch, actor: String = "",
        resume: String = "", thread: Int32 = noRow, waitingFor: UInt32? = nil, suspendBacktrace: Int32 = noRow
    ) {
        var row = SwiftTaskStateRow(start: time, duration: duration, task: self.row, state: state)
        let builder = sketch.builder
        row.actor = sketch.builder.intern(actor)
        row.isMainActor = TraceBuilder.isMainActorName(actor)
        row.priority = priority
        row.resumeFunction = sketch.builder.intern(resume)
        row.waitingFor = waitingFor.map { Int32($0) } ?? noRow
        row.suspendBacktrace = suspendBacktrace
        row.thread = thread
        let length = XCTraceWriter.duration(duration)
        let narrative = switch state {
        case .creating: "Creating for \(length)"
        case .enqueued: "Was enqueued on actor \(actor) for \(length)"
        case .running: "Ran for \(length) on actor \(actor) on thread \(Self.threadText(builder, thread)) with priority \(sketch.builder.stringOf(priority)) resuming in \(resume)"
        case .suspended: waitingFor.map { "Suspended for \(length) waiting for Task \(builder.taskID($0))" } ?? "Suspended for \(length)"
        case .continuation: "Ran continuation for \(length) that ended without any errors"
        case .waiting: "Waiting for \(length)"
        case .ending: "Ending for \(length)"
        case .unknown: "Was in unknown state for \(length)"
        }
        row.narrative = sketch.builder.intern(narrative)
        sketch.builder.addTaskState(row)
        time += duration
    }

    static func threadText(_ builder: TraceBuilder, _ thread: Int32) -> String {
        guard let described = builder.threadDescription(thread) else { return "" }
        let hex = "0x" + String(described.tid, radix: 16)
        let process = "(\(builder.metadata.app), pid: \(described.pid))"
        return described.name.isEmpty ? "\(hex) \(process)" : "\(described.name) (\(hex)) \(process)"
    }
}

extension SampleTraces {
    static let mainActor = "Main Actor (0x600001f04000)"
    static let globalExecutor = "Global Concurrent Executor"

    /// Opening a landmark's detail page. Its `.task` starts an image loader; a map `.task`
    /// needs the main actor too. With `loadOnMainActor` the loader decodes four images on the
    /// main actor for 120 ms: the map's task waits behind it and frames are missed. Fixed,
    /// decoding runs on the global executor and the main actor stays free. Either way the loader
    /// ends by assigning `images` on the main actor, which runs LandmarkDetail's body and the
    /// gallery's: the cause chain from the task to the bodies.
    static func concurrency(name: String, loadOnMainActor: Bool) -> Trace {
        var sketch = TraceSketch(name: name, app: "Landmarks", pid: 2741, seed: loadOnMainActor ? 50 : 51, end: 2_400_000_000)
        let app = "Landmarks"
        let process = sketch.builder.threadProcess(sketch.mainThread)
        let worker = sketch.builder.addThread(TraceThread(tid: 0x2A2F7, name: "", process: process, isMain: false))
        let detailStack = sketch.stack(parent: sketch.graphUpdateStack, [
            ("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore"), ("LandmarkDetail.body.getter", app),
            ("View.task(priority:_:)", "SwiftUI"), ("Task.init(priority:operation:)", "libswift_Concurrency.dylib"),
        ])
        let loaderStack = sketch.stack(parent: noRow, [
            ("closure #1 in LandmarkDetail.body.getter", app), ("LandmarkImageLoader.loadImages(for:)", app),
            ("Task.init(priority:operation:)", "libswift_Concurrency.dylib"),
        ])
        let mapStack = sketch.stack(parent: sketch.graphUpdateStack, [
            ("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore"), ("MapView.body.getter", app),
            ("View.task(priority:_:)", "SwiftUI"), ("Task.init(priority:operation:)", "libswift_Concurrency.dylib"),
        ])
        let awaitStack = sketch.stack(parent: noRow, [
            ("closure #1 in LandmarkDetail.body.getter", app), ("Task.value.getter", "libswift_Concurrency.dylib"),
            ("swift_task_switch", "libswift_Concurrency.dylib"),
        ])
        let galleryStack = sketch.stack(parent: sketch.graphUpdateStack, [
            ("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore"), ("LandmarkGallery.body.getter", app),
            ("ForEach.init(_:content:)", "SwiftUICore"),
        ])
        let assignStack = sketch.stack(parent: noRow, [
            ("swift::runJobInEstablishedExecutorContext(swift::Job*)", "libswift_Concurrency.dylib"),
            ("LandmarkImageLoader.loadImages(for:)", app), ("LandmarkImageLoader.images.setter", app),
            ("ObservationRegistrar.withMutation(of:keyPath:_:)", "Observation"),
        ])
        let decodeStack = sketch.stack(parent: noRow, [
            ("swift::runJobInEstablishedExecutorContext(swift::Job*)", "libswift_Concurrency.dylib"),
            ("LandmarkImageLoader.loadImages(for:)", app), ("LandmarkImageLoader.decode(_:)", app),
            ("UIImage.init(contentsOfFile:)", "UIKitCore"), ("CGImageSourceCreateImageAtIndex", "ImageIO"),
            ("ImageIO_JPEG::decodeImage", "ImageIO"),
        ])

        let high = sketch.builder.intern("High/User Initiated (25)")
        let medium = sketch.builder.intern("Medium (21)")
        let open: Nanoseconds = 1_000_000_000
        let main = sketch.mainThread
        let decoding: Nanoseconds = 120_000_000

        // The detail page's body runs and starts the .task.
        let group = sketch.nextGroup
        let detailBody = sketch.update(.viewBody, view: "LandmarkDetail", start: open, duration: 420_000, group: group)
        sketch.sample(start: open, duration: 420_000, stacks: [detailStack])
        let mapBody = sketch.update(.viewBody, view: "MapView", start: open + 440_000, duration: 180_000, group: group)
        sketch.edge(detailBody.node!, mapBody.node!, .creation, at: open + 440_000, group: group)
        sketch.addGroup(group, start: open, end: open + 620_000, label: "Navigation Push")

        let detailTaskRow = sketch.builder.addTask(
            taskID: 501, process: Int32(process), name: sketch.builder.intern("View.task @ Landmarks/LandmarkDetail.swift:58"),
            creationBacktrace: detailStack, start: open + 300_000, end: open + 300_000
        )
        let loaderRow = sketch.builder.addTask(taskID: 502, process: Int32(process), creationBacktrace: loaderStack)
        let mapRow = sketch.builder.addTask(
            taskID: 503, process: Int32(process), name: sketch.builder.intern("View.task @ Landmarks/MapView.swift:31"), creationBacktrace: mapStack
        )
        var detailTask = TaskSketch(row: detailTaskRow, time: open + 300_000, priority: high)
        detailTask.state(.creating, for: 26_000, in: &sketch)
        detailTask.state(.enqueued, for: 48_000, in: &sketch, actor: mainActor)
        // Main-actor work can only start once the body (on the main thread) has returned.
        detailTask.time = open + 640_000
        detailTask.state(.running, for: 95_000, in: &sketch, actor: mainActor, resume: "closure #1 in LandmarkDetail.body.getter", thread: main)
        let afterFirstRun = detailTask.time

        var loader = TaskSketch(row: loaderRow, time: detailTask.time - 60_000, priority: high)
        loader.state(.creating, for: 22_000, in: &sketch)
        loader.time = detailTask.time
        let loaderActor = loadOnMainActor ? mainActor : globalExecutor
        loader.state(.enqueued, for: loadOnMainActor ? 35_000 : 41_000, in: &sketch, actor: loaderActor)
        let decodeStart = loader.time
        let loaderResume = "LandmarkImageLoader.loadImages(for:)"
        loader.state(.running, for: decoding, in: &sketch, actor: loaderActor, resume: loaderResume, thread: loadOnMainActor ? main : worker)
        sketch.sample(start: decodeStart, duration: decoding, stacks: [decodeStack], thread: loadOnMainActor ? main : worker)
        // The result is assigned on the main actor: at the end of the long run, or (fixed) in a
        // short hop back to it.
        let assigned: Nanoseconds
        if loadOnMainActor {
            assigned = loader.time - 150_000
        } else {
            loader.state(.enqueued, for: 18_000, in: &sketch, actor: mainActor)
            assigned = loader.time + 100_000
            loader.state(.running, for: 140_000, in: &sketch, actor: mainActor, resume: loaderResume, thread: main)
        }
        let images = sketch.node(.observable, "@Observable LandmarkImageLoader.images", owner: "LandmarkImageLoader", isAppCode: true, at: assigned)
        sketch.builder.addStateChange(
            timestamp: assigned, node: images, description: sketch.builder.intern("images: 0 → 4 elements"),
            backtrace: assignStack, thread: main
        )

        detailTask.state(
            .suspended, for: loader.time - detailTask.time, in: &sketch, waitingFor: loaderRow, suspendBacktrace: awaitStack
        )
        // The map's task was created with the map's body; it needs the main actor to run.
        var map = TaskSketch(row: mapRow, time: open + 540_000, priority: medium)
        map.state(.creating, for: 31_000, in: &sketch)
        let mainActorFree = loadOnMainActor ? loader.time : afterFirstRun + 12_000
        map.state(.enqueued, for: max(mainActorFree, map.time + 64_000) - map.time, in: &sketch, actor: mainActor)
        map.state(.running, for: 780_000, in: &sketch, actor: mainActor, resume: "MapView.updateRegion()", thread: main)

        detailTask.state(.enqueued, for: max(map.time, detailTask.time) - detailTask.time + 15_000, in: &sketch, actor: mainActor)
        detailTask.state(.running, for: 310_000, in: &sketch, actor: mainActor, resume: "closure #1 in LandmarkDetail.body.getter", thread: main)
        sketch.builder.describeTask(detailTaskRow, lifetime: (open + 300_000, detailTask.time))
        sketch.builder.describeTask(loaderRow, lifetime: (decodeStart - 60_000 - 35_000, loader.time))
        sketch.builder.describeTask(mapRow, lifetime: (open + 540_000, map.time))

        // Frames at 120 Hz around the navigation: none can be drawn while the main thread decodes.
        let busy = loadOnMainActor ? decodeStart..<loader.time : decodeStart..<decodeStart
        var missedFrom: Nanoseconds?
        var imagesShown = false
        for frame in 0..<72 {
            let frameStart = open - 200_000_000 + Nanoseconds(frame) * TraceSketch.frameInterval
            if busy.contains(frameStart) || busy.contains(frameStart + TraceSketch.frameInterval - 1_500_000) {
                missedFrom = missedFrom ?? frameStart
                continue
            }
            if let from = missedFrom {
                sketch.hitch(start: from + TraceSketch.frameInterval, duration: frameStart - from)
                missedFrom = nil
            }
            guard frameStart > open + 620_000 || frameStart + 1_000_000 < open else { continue }
            let frameGroup = sketch.nextGroup
            let start = frameStart + sketch.random.int(300_000...600_000)
            let duration = sketch.random.int(60_000...140_000)
            sketch.update(.other, view: "NavigationStack", module: "SwiftUI", start: start, duration: duration, group: frameGroup, nodeKind: nil)
            var end = start + duration
            // The first frame after the images were assigned runs the bodies that read them.
            if !imagesShown, frameStart > assigned {
                imagesShown = true
                let detail = sketch.update(.viewBody, view: "LandmarkDetail", start: end + 20_000, duration: 380_000, group: frameGroup)
                sketch.edge(images, detail.node!, .update, property: "images", at: end + 20_000, group: frameGroup)
                let gallery = sketch.update(.viewBody, view: "LandmarkGallery", start: end + 420_000, duration: 260_000, group: frameGroup)
                sketch.edge(detail.node!, gallery.node!, .update, at: end + 420_000, group: frameGroup)
                sketch.sample(start: end, duration: 700_000, stacks: [galleryStack])
                end += 700_000
            }
            sketch.addGroup(frameGroup, start: start, end: end, label: "Frame Update")
            sketch.sample(start: end, duration: 400_000, stacks: [sketch.commitStack])
        }
        return sketch.build()
    }
}
