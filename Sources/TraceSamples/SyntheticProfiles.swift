import TraceModel

/// A synthetic CPU profile of any size for the CPU benchmarks: samples every millisecond on the
/// main thread and, some of the time, two worker threads, each sample from one of `paths` call
/// paths about `depth` frames deep (±8). The paths descend a random call tree as code does: most
/// calls have one callee, some two or four (one of them hot), over a few thousand functions of the
/// app, SwiftUI and system libraries, some of them recursive; the workers' stacks start at their
/// own root. A few hot paths take most samples, then a long tail. Same arguments, same trace.
public enum SyntheticProfiles {
    public static func trace(samples sampleCount: Int, depth: Int = 120, paths pathCount: Int = 20_000, seed: UInt64 = 42) -> Trace {
        var sketch = TraceSketch(name: "profile-\(sampleCount)x\(depth)-\(seed)", app: "Synthetic", pid: 4200, seed: seed, end: 0)
        var random = sketch.random
        let binaries = ["Synthetic", "SwiftUICore", "SwiftUI", "AttributeGraph", "Foundation", "CoreFoundation", "libsystem_malloc.dylib", "UIKitCore"]
        var frames: [UInt32] = []
        for index in 0..<3000 {
            let binary = binaries[index % binaries.count]
            let name = binary == "Synthetic" ? "Module\(index % 40).Type\(index).work(_:)" : "\(binary).function\(index)(_:)"
            frames.append(sketch.builder.addFrame(name: sketch.builder.intern(name), binary: sketch.builder.intern(binary), isAppCode: binary == "Synthetic"))
        }
        let recursive = frames[7]
        let workerRoot = sketch.stack(parent: noRow, [("start_wqthread", "libsystem_pthread.dylib"), ("_pthread_wqthread", "libsystem_pthread.dylib"),
                                                      ("_dispatch_worker_thread2", "libdispatch.dylib")])
        func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
            var hash = a &* 0x9E37_79B9_7F4A_7C15 &+ b &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            return hash &* 0x94D0_49BB_1331_11EB
        }
        // Each path descends from its thread's root: how many callees a call has and which frame
        // each one is follow from the stack so far (a fixed tree); which callee a path takes is random.
        var leaves: [[UInt32]] = [[], []]
        for path in 0..<pathCount {
            let onWorker = path % 5 == 4
            var stack = onWorker ? workerRoot : sketch.graphUpdateStack
            let length = max(1, depth - 8 + random.int(0..<17))
            for level in 0..<length {
                let node = mix(UInt64(UInt32(bitPattern: stack)), 1)
                let callees = node % 100 < 86 ? 1 : node % 100 < 96 ? 2 : 4
                let choice = callees == 1 || random.chance(70) ? 0 : random.int(1..<callees)
                let frame = level > 20 && level % 17 == 0 && choice == 0 ? recursive : frames[Int(mix(node, UInt64(choice) + 2) % UInt64(frames.count))]
                stack = Int32(sketch.builder.addStack(parent: stack, frame: frame))
            }
            leaves[onWorker ? 1 : 0].append(UInt32(stack))
        }
        let threads: [Int32] = [sketch.mainThread, sketch.mainThread + 1, sketch.mainThread + 2]
        var time: Nanoseconds = 100_000_000
        var made = 0
        while made < sampleCount {
            // The main thread every millisecond, the others some of them.
            for (thread, percent) in zip(threads, [100, 30, 15]) where made < sampleCount && random.chance(percent) {
                // A hot few paths, then a long tail (the square of a uniform draw).
                let list = leaves[thread == threads[0] || leaves[1].isEmpty ? 0 : 1]
                let draw = Double(random.int(0..<1_000_000)) / 1_000_000
                sketch.builder.addSample(time: time, thread: thread, weight: 1_000_000, stack: list[min(list.count - 1, Int(draw * draw * Double(list.count)))])
                made += 1
            }
            time += 1_000_000
        }
        sketch.builder.metadata.end = time + 1_000_000
        sketch.random = random
        return sketch.build()
    }
}
