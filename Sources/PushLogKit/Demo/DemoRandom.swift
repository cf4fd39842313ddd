/// SplitMix64: a small deterministic generator, seeded per device and day so output does not
/// depend on generation order.
struct DemoRandom {
    var state: UInt64

    init(seed: UInt64, _ a: UInt64 = 0, _ b: UInt64 = 0) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 ^ a &* 0xBF58_476D_1CE4_E5B9 ^ b &* 0x94D0_49BB_1331_11EB
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    /// Uniform integer in [0, n).
    mutating func int(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    mutating func range(_ lo: Int64, _ hi: Int64) -> Int64 { lo + Int64(next() % UInt64(max(1, hi - lo))) }
    mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }

    /// Poisson-distributed count (Knuth), for small means.
    mutating func poisson(_ mean: Double) -> Int {
        let l = exp(-mean)
        var k = 0
        var p = 1.0
        repeat { k += 1; p *= unit() } while p > l && k < 100
        return k - 1
    }

    mutating func hex(_ bytes: Int) -> String {
        var s = ""
        s.reserveCapacity(bytes * 2)
        var left = bytes
        while left > 0 {
            let v = next()
            for k in 0..<min(8, left) {
                let b = UInt8(truncatingIfNeeded: v >> (UInt64(k) * 8))
                s.append(DemoRandom.digits[Int(b >> 4)])
                s.append(DemoRandom.digits[Int(b & 15)])
            }
            left -= 8
        }
        return s
    }

    mutating func uuid() -> String {
        let h = hex(16)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-4" + String(c[13..<16]) + "-8" + String(c[17..<20]) + "-" + String(c[20..<32])
    }

    static let digits: [Character] = Array("0123456789abcdef")
}

import Foundation
