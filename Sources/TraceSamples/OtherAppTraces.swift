import TraceFormats
import TraceModel

/// Traces of apps other than Landmarks, for tests: a rule that only holds for the samples' names
/// fails on them. Not listed among the samples.
public enum OtherAppTraces {
    /// How the Harbor trace records the write of `@State messages`.
    public enum MessagesWrite: Sendable {
        /// On the main thread, as SwiftUI's change table usually says.
        case mainThread
        /// With no thread, and a backtrace that holds the writing task's resume function.
        case backtraceOnly
        /// With no thread and no backtrace: only the time ties it to a task.
        case timeOnly
    }

    /// "Harbor", a chat app at 60 Hz (the recording states no refresh rate) opening a
    /// conversation: `ConversationView`'s `.task` starts an unnamed task that decodes the message
    /// history (`MessageStore.decodeHistory()`) for 45 ms on the Main Actor (`decodeOnMainActor`)
    /// or on the global executor, then assigns `@State messages`; `ComposerView`'s `.task` waits
    /// for the Main Actor meanwhile; an `AttachmentStore` actor prefetches off the main actor.
    /// A tap writes `@State isComposing` outside any task.
    public static func harbor(decodeOnMainActor: Bool = true, cpuSamples: Bool = true, messagesWrite: MessagesWrite = .mainThread) -> Trace {
        let app = "Harbor"
        var sketch = TraceSketch(name: "harbor-conversation", app: app, pid: 5120, seed: 7, end: 1_500_000_000)
        sketch.builder.metadata.device = "iPhone 13"
        sketch.builder.metadata.refreshRate = nil
        let frame: Nanoseconds = 16_666_667
        let process = sketch.builder.threadProcess(sketch.mainThread)
        let main = sketch.mainThread
        let worker = sketch.builder.addThread(TraceThread(tid: 0x3B2F7, name: "", process: process, isMain: false))
        let actorThread = sketch.builder.addThread(TraceThread(tid: 0x3B311, name: "", process: process, isMain: false))
        let mainActor = "Main Actor (0x600003b08000)"
        let store = "AttachmentStore (0x600002a1c000)"
        let global = "Global Concurrent Executor"
        let high = sketch.builder.intern("High/User Initiated (25)")
        let medium = sketch.builder.intern("Medium (21)")

        let conversationStack = sketch.stack(parent: sketch.graphUpdateStack, [
            ("ViewBodyAccessor.updateBody(of:changed:)", "SwiftUICore"), ("ConversationView.body.getter", app),
            ("View.task(priority:_:)", "SwiftUI"), ("Task.init(priority:operation:)", "libswift_Concurrency.dylib"),
        ])
        let decodeTaskStack = sketch.stack(parent: noRow, [
            ("closure #1 in ConversationView.body.getter", app), ("Task.init(priority:operation:)", "libswift_Concurrency.dylib"),
        ])
        let composerStack = sketch.stack(parent: sketch.graphUpdateStack, [
            ("ComposerView.body.getter", app), ("View.task(priority:_:)", "SwiftUI"),
        ])
        let decodeStack = sketch.stack(parent: noRow, [
            ("swift::runJobInEstablishedExecutorContext(swift::Job*)", "libswift_Concurrency.dylib"),
            ("MessageStore.decodeHistory()", app), ("JSONDecoder.decode(_:from:)", "Foundation"),
            ("JSONDecoderImpl.unwrap(_:as:for:_:)", "Foundation"),
        ])
        let writeStack = sketch.stack(parent: noRow, [
            ("swift::runJobInEstablishedExecutorContext(swift::Job*)", "libswift_Concurrency.dylib"),
            ("MessageStore.decodeHistory()", app), ("ConversationView.messages.setter", app),
        ])
        let tapStack = sketch.stack(parent: noRow, [
            ("closure #2 in ComposerView.body.getter", app), ("ComposerView.isComposing.setter", app),
        ])

        let open: Nanoseconds = 400_000_000
        let conversationTask = sketch.builder.addTask(
            taskID: 7001, process: Int32(process), name: sketch.builder.intern("View.task @ Harbor/ConversationView.swift:44"),
            creationBacktrace: conversationStack
        )
        let decodeTask = sketch.builder.addTask(taskID: 7002, process: Int32(process), creationBacktrace: decodeTaskStack)
        let composerTask = sketch.builder.addTask(
            taskID: 7003, process: Int32(process), name: sketch.builder.intern("View.task @ Harbor/ComposerView.swift:19"),
            creationBacktrace: composerStack
        )
        let prefetchTask = sketch.builder.addTask(taskID: 7004, process: Int32(process))

        func state(_ task: UInt32, _ state: SwiftTaskState, _ start: Nanoseconds, _ duration: Nanoseconds, actor: String = "",
                   resume: String = "", thread: Int32 = noRow, priority: StringRef, waitingFor: UInt32? = nil) {
            var row = SwiftTaskStateRow(start: start, duration: duration, task: task, state: state)
            row.actor = sketch.builder.intern(actor)
            row.isMainActor = TraceBuilder.isMainActorName(actor)
            row.resumeFunction = sketch.builder.intern(resume)
            row.thread = thread
            row.priority = priority
            row.waitingFor = waitingFor.map { Int32($0) } ?? noRow
            sketch.builder.addTaskState(row)
        }
        let decoding: Nanoseconds = 45_000_000
        // ConversationView's task: a short run that creates the decode task, then awaits it.
        state(conversationTask, .creating, open, 30_000, priority: high)
        state(conversationTask, .enqueued, open + 30_000, 50_000, actor: mainActor, priority: high)
        state(conversationTask, .running, open + 80_000, 120_000, actor: mainActor, resume: "closure #1 in ConversationView.body.getter", thread: main, priority: high)
        state(decodeTask, .creating, open + 150_000, 20_000, priority: high)
        let decodeStart = open + 230_000
        state(decodeTask, .enqueued, open + 170_000, 60_000, actor: decodeOnMainActor ? mainActor : global, priority: high)
        let decodeThread = decodeOnMainActor ? main : worker
        state(decodeTask, .running, decodeStart, decoding, actor: decodeOnMainActor ? mainActor : global,
              resume: "MessageStore.decodeHistory()", thread: decodeThread, priority: high)
        var decodeEnd = decodeStart + decoding
        let written: Nanoseconds
        if decodeOnMainActor {
            written = decodeEnd - 100_000
        } else {
            state(decodeTask, .enqueued, decodeEnd, 25_000, actor: mainActor, priority: high)
            state(decodeTask, .running, decodeEnd + 25_000, 90_000, actor: mainActor, resume: "MessageStore.decodeHistory()", thread: main, priority: high)
            written = decodeEnd + 60_000
            decodeEnd += 115_000
        }
        if cpuSamples { sketch.sample(start: decodeStart, duration: decoding, stacks: [decodeStack], thread: decodeThread) }
        state(conversationTask, .suspended, open + 200_000, decodeEnd - open - 200_000, priority: high, waitingFor: decodeTask)
        state(conversationTask, .enqueued, decodeEnd, 20_000, actor: mainActor, priority: high)
        state(conversationTask, .running, decodeEnd + 20_000, 60_000, actor: mainActor, resume: "closure #1 in ConversationView.body.getter", thread: main, priority: high)
        // ComposerView's task needs the Main Actor too: it waits behind the decoding.
        state(composerTask, .creating, open + 5_200_000, 30_000, priority: medium)
        let composerReady = open + 5_230_000
        let composerRuns = decodeOnMainActor ? decodeEnd : composerReady + 40_000
        state(composerTask, .enqueued, composerReady, composerRuns - composerReady, actor: mainActor, priority: medium)
        state(composerTask, .running, composerRuns, 400_000, actor: mainActor, resume: "ComposerView.loadDraft()", thread: main, priority: medium)
        // An actor of the app's own, off the main actor: no finding of its own.
        state(prefetchTask, .enqueued, open + 1_000_000, 200_000, actor: store, priority: medium)
        state(prefetchTask, .running, open + 1_200_000, 8_000_000, actor: store, resume: "AttachmentStore.prefetch(_:)", thread: actorThread, priority: medium)

        let messages = sketch.node(.state, "@State messages", owner: "ConversationView", isAppCode: true, at: written)
        let (writeThread, writeBacktrace): (Int32, Int32) = switch messagesWrite {
        case .mainThread: (main, writeStack)
        case .backtraceOnly: (noRow, writeStack)
        case .timeOnly: (noRow, noRow)
        }
        sketch.builder.addStateChange(
            timestamp: written, node: messages, description: sketch.builder.intern("messages: 0 → 3 elements"),
            backtrace: writeBacktrace, thread: writeThread
        )

        // 60 Hz frames; none is drawn while the main thread decodes.
        let busy = decodeOnMainActor ? decodeStart..<decodeStart + decoding : decodeStart..<decodeStart
        var missedFrom: Nanoseconds?
        var shown = false
        for index in 0..<40 {
            let frameStart = open - 200_000_000 + Nanoseconds(index) * frame
            if busy.contains(frameStart) || busy.contains(frameStart + frame - 2_000_000) {
                missedFrom = missedFrom ?? frameStart
                continue
            }
            if let from = missedFrom {
                sketch.builder.addHitch(TimelineInterval(
                    start: from + frame, duration: frameStart - from, kind: "Hitch", detail: "Potentially expensive app update(s)", thread: main
                ))
                missedFrom = nil
            }
            let group = sketch.nextGroup
            let start = frameStart + sketch.random.int(400_000...900_000)
            let duration = sketch.random.int(80_000...160_000)
            sketch.update(.other, view: "ScrollView", module: "SwiftUI", start: start, duration: duration, group: group, nodeKind: nil)
            var end = start + duration
            if !shown, frameStart > written {
                shown = true
                let conversation = sketch.update(.viewBody, view: "ConversationView", start: end + 10_000, duration: 300_000, group: group)
                sketch.edge(messages, conversation.node!, .update, property: "messages", at: end + 10_000, group: group)
                let list = sketch.update(.viewBody, view: "MessageList", start: end + 330_000, duration: 200_000, group: group)
                sketch.edge(conversation.node!, list.node!, .update, at: end + 330_000, group: group)
                for row in 0..<3 {
                    let start = end + 550_000 + Nanoseconds(row) * 120_000
                    let bubble = sketch.update(.viewBody, view: "MessageBubble", start: start, duration: 100_000, group: group)
                    sketch.edge(list.node!, bubble.node!, .creation, at: start, group: group)
                }
                end += 920_000
            }
            sketch.addGroup(group, start: start, end: end, label: "Frame Update")
            if cpuSamples { sketch.sample(start: end, duration: 300_000, stacks: [sketch.commitStack]) }
        }

        // A tap writes @State isComposing in a button action: no task wrote it.
        let tap: Nanoseconds = 1_100_000_000
        let group = sketch.nextGroup
        let gesture = sketch.node(.gesture, "Gesture: Tap", isAppCode: false, at: tap)
        let composing = sketch.node(.state, "@State isComposing", owner: "ComposerView", isAppCode: true, at: tap + 50_000)
        sketch.builder.addStateChange(
            timestamp: tap + 50_000, node: composing, description: sketch.builder.intern("isComposing: false → true"),
            backtrace: tapStack, thread: main
        )
        sketch.edge(gesture, composing, .update, at: tap + 50_000, group: group)
        let composer = sketch.update(.viewBody, view: "ComposerView", start: tap + 200_000, duration: 240_000, group: group)
        sketch.edge(composing, composer.node!, .update, property: "isComposing", at: tap + 200_000, group: group)
        sketch.addGroup(group, start: tap, end: tap + 500_000, label: "Tap")
        return sketch.build()
    }
}
