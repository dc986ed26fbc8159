/// Int64 keys (event ids) to Int32 values >= 0, for the maps the importer fills once per row.
/// Event ids are dense and nearly sequential, so small ones index an array directly (no hash,
/// and neighbouring ids share cache lines: a hashed table of millions of ids costs a cache
/// miss per lookup). Others (a stray huge or negative id must not make the array gigabytes)
/// go to open addressing with Fibonacci hashing. Keys are never removed.
struct Int64Map {
    private struct Slot {
        var key: Int64 = 0
        var value: Int32 = 0
        var used = false
    }

    /// Value of key `i`, or -1.
    private var dense: [Int32] = []
    private var denseCount = 0
    private var slots: [Slot]
    private var shift: UInt64
    private(set) var count = 0

    init(capacity: Int = 0) {
        var bits: UInt64 = 4
        while (1 << bits) < capacity * 2 { bits += 1 }
        slots = Array(repeating: Slot(), count: 1 << bits)
        shift = 64 - bits
    }

    @inline(__always) private func home(_ key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    subscript(_ key: Int64) -> Int32? {
        get {
            if key >= 0, key < Int64(dense.count) {
                let value = dense[Int(key)]
                if value >= 0 { return value }
            }
            if count == 0 { return nil }
            return slots.withUnsafeBufferPointer { slots in
                let mask = slots.count - 1
                var slot = home(key)
                while slots[slot].used {
                    if slots[slot].key == key { return slots[slot].value }
                    slot = (slot + 1) & mask
                }
                return nil
            }
        }
    }

    /// Sets the value of `key` (replacing an earlier one, as a dictionary would).
    mutating func set(_ value: Int32, for key: Int64) {
        precondition(value >= 0, "Int64Map holds indices")
        if key >= 0, key < Int64(dense.count) {
            if dense[Int(key)] < 0 { denseCount += 1 }
            dense[Int(key)] = value
            return
        }
        // Grow the array only while it stays within a few times the keys it holds, so that
        // memory follows the number of keys, whatever their values.
        if key >= 0, key < Int64(max(4096, denseCount * 4)) {
            let newCount = max(4096, dense.count * 2, Int(key) + 1)
            dense.append(contentsOf: repeatElement(-1, count: newCount - dense.count))
            dense[Int(key)] = value
            denseCount += 1
            return
        }
        setHashed(value, for: key)
    }

    private mutating func setHashed(_ value: Int32, for key: Int64) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = home(key)
        while slots[slot].used {
            if slots[slot].key == key {
                slots[slot].value = value
                return
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = Slot(key: key, value: value, used: true)
        count += 1
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: old.count * 2)
        shift -= 1
        count = 0
        for slot in old where slot.used { setHashed(slot.value, for: slot.key) }
    }
}
