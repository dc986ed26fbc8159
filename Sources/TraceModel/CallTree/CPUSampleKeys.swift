// The samples' (thread, stack) pairs, numbered when the trace loads: a query sums its samples'
// weights per pair in one pass over the sample table, and its trees read the pairs, not the
// samples (a million samples of a profile come from tens of thousands of pairs).

/// Every (thread, stack) pair the samples are of, each with a number: the pairs of one thread
/// are consecutive, threads in the order a query's slices take (the thread table's, then any
/// other thread value, ascending).
struct CPUSampleKeys: Sendable {
    /// Per sample: its pair.
    private(set) var keyOfSample: [UInt32] = []
    /// Per pair: its stack.
    private(set) var stack: [UInt32] = []
    /// The pairs of each thread that has samples, in slice order.
    private(set) var threads: [(thread: Int32, keys: Range<Int>)] = []

    var count: Int { stack.count }
    var memoryFootprint: Int { (keyOfSample.capacity + stack.capacity) * 4 + threads.capacity * MemoryLayout<(Int32, Range<Int>)>.stride }

    init() {}

    init(samples: SampleTable, stackCount: Int, threadCount: Int) {
        let sampleCount = samples.count
        // Pairs in order of first sample: a stack's first pair in an array, the rest (a stack
        // sampled on several threads, or out of the stack table) in a table.
        var firstKeyOfStack = [Int32](repeating: -1, count: stackCount)
        var otherKeys: [UInt64: UInt32] = [:]
        var keyStack: [UInt32] = [], keyThread: [Int32] = []
        var keyOfSample = [UInt32](repeating: 0, count: sampleCount)
        for i in 0..<sampleCount {
            let (stack, thread) = (samples.stack[i], samples.thread[i])
            let first = Int(stack) < stackCount ? Int(firstKeyOfStack[Int(stack)]) : -2
            if first >= 0, keyThread[first] == thread {
                keyOfSample[i] = UInt32(first)
                continue
            }
            let key: UInt32
            if first == -1 {
                key = UInt32(keyStack.count)
                firstKeyOfStack[Int(stack)] = Int32(key)
            } else {
                let pair = UInt64(UInt32(bitPattern: thread)) << 32 | UInt64(stack)
                if let known = otherKeys[pair] { keyOfSample[i] = known; continue }
                key = UInt32(keyStack.count)
                otherKeys[pair] = key
            }
            keyStack.append(stack)
            keyThread.append(thread)
            keyOfSample[i] = key
        }
        // Renumbered thread by thread (a counting sort): the thread table's by index, then the others ascending.
        let others = Array(Set(keyThread.lazy.filter { $0 < 0 || Int($0) >= threadCount })).sorted()
        let otherRank = Dictionary(uniqueKeysWithValues: others.enumerated().map { ($0.element, threadCount + $0.offset) })
        func rank(_ thread: Int32) -> Int { thread >= 0 && Int(thread) < threadCount ? Int(thread) : otherRank[thread]! }
        var start = [Int](repeating: 0, count: threadCount + others.count + 1)
        for thread in keyThread { start[rank(thread) + 1] += 1 }
        for index in 1..<start.count { start[index] += start[index - 1] }
        for rank in 0..<start.count - 1 where start[rank] < start[rank + 1] {
            threads.append((rank < threadCount ? Int32(rank) : others[rank - threadCount], start[rank]..<start[rank + 1]))
        }
        var next = start
        var newKey = [UInt32](repeating: 0, count: keyStack.count)
        stack = [UInt32](repeating: 0, count: keyStack.count)
        for key in keyStack.indices {
            let place = next[rank(keyThread[key])]
            next[rank(keyThread[key])] += 1
            newKey[key] = UInt32(place)
            stack[place] = keyStack[key]
        }
        for i in 0..<sampleCount { keyOfSample[i] = newKey[Int(keyOfSample[i])] }
        self.keyOfSample = keyOfSample
    }
}
