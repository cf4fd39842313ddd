/// Bytes of a record that spans lines, in memory this object owns, so slices of it stay valid
/// until the next `reset` (Swift arrays cannot lend a pointer beyond a closure).
final class RecordBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 4096) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }
    func reset() { count = 0 }

    func append(_ b: UInt8) {
        reserve(count + 1)
        base[count] = b
        count += 1
    }

    func append(_ s: ByteSlice) {
        guard let p = s.baseAddress, s.count > 0 else { return }
        reserve(count + s.count)
        (base + count).update(from: p, count: s.count)
        count += s.count
    }

    /// The bytes so far, valid until the next append or reset.
    var slice: ByteSlice { ByteSlice(start: base, count: count) }

    private func reserve(_ n: Int) {
        guard n > capacity else { return }
        var c = capacity
        while c < n { c *= 2 }
        let nb = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        nb.update(from: base, count: count)
        base.deallocate()
        base = nb
        capacity = c
    }
}
