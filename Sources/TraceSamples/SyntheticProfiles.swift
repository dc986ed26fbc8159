import TraceModel

/// A synthetic CPU profile of any size for the CPU benchmarks: samples every millisecond on the
/// main thread and two others, each from one of `paths` call paths about `depth` frames deep
/// (±8), drawn from a random call tree (a few hot paths, a long tail) over a few thousand
/// functions of the app, SwiftUI and system libraries, some of them recursive. Same arguments,
/// same trace.
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
        // Each path descends the call tree: at every level it mostly takes the hot child
        // (0), sometimes another; the child's frame follows from its parent stack and choice.
        var leaves: [UInt32] = []
        leaves.reserveCapacity(pathCount)
        for _ in 0..<pathCount {
            var stack = sketch.graphUpdateStack
            let length = max(1, depth - 11 + random.int(0..<17))
            for level in 0..<length {
                let choice = random.chance(85) ? 0 : random.int(1..<6)
                let frame: UInt32
                if level > 20 && level % 17 == 0 && choice == 0 {
                    frame = recursive
                } else {
                    var hash = UInt64(UInt32(bitPattern: stack)) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(choice) &* 0xBF58_476D_1CE4_E5B9
                    hash ^= hash >> 31
                    frame = frames[Int(hash % UInt64(frames.count))]
                }
                stack = Int32(sketch.builder.addStack(parent: stack, frame: frame))
            }
            leaves.append(UInt32(stack))
        }
        let threads: [Int32] = [sketch.mainThread, sketch.mainThread + 1, sketch.mainThread + 2]
        var time: Nanoseconds = 100_000_000
        var made = 0
        while made < sampleCount {
            // The main thread every millisecond, the others some of them.
            for (thread, percent) in zip(threads, [100, 30, 15]) where made < sampleCount && random.chance(percent) {
                // A hot few paths, then a long tail (the square of a uniform draw).
                let draw = Double(random.int(0..<1_000_000)) / 1_000_000
                let leaf = leaves[min(leaves.count - 1, Int(draw * draw * Double(leaves.count)))]
                sketch.builder.addSample(time: time, thread: thread, weight: 1_000_000, stack: leaf)
                made += 1
            }
            time += 1_000_000
        }
        sketch.builder.metadata.end = time + 1_000_000
        sketch.random = random
        return sketch.build()
    }
}
