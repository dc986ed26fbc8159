/// Int64 keys (event ids) to Int32 values, for the maps the importer fills once per row: open
/// addressing with Fibonacci hashing, where `[Int64: Int]` spends most of its time in SipHash
/// and in chasing a bucket array that is twice the size. Keys are never removed.
struct Int64Map {
    private struct Slot {
        var key: Int64 = 0
        var value: Int32 = 0
        var used = false
    }

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
            slots.withUnsafeBufferPointer { slots in
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
        for slot in old where slot.used { set(slot.value, for: slot.key) }
    }
}
