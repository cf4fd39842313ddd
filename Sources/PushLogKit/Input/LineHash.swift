/// A 128-bit hash of a line's bytes: with the record time, a record's identity (duplicates are dropped by it).
/// Two 64-bit lanes of multiply-rotate mixing over 16-byte blocks, finalised with xor-shift-multiply.
enum LineHash {
    @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always) static func fmix(_ k0: UInt64) -> UInt64 {
        var k = k0
        k ^= k >> 33; k &*= 0xff51_afd7_ed55_8ccd
        k ^= k >> 33; k &*= 0xc4ce_b9fe_1a85_ec53
        k ^= k >> 33
        return k
    }

    static let c1: UInt64 = 0x87c3_7b91_1142_53d5
    static let c2: UInt64 = 0x4cf5_ad43_2745_937f

    static func hash(_ b: UnsafeBufferPointer<UInt8>) -> (Int64, Int64) {
        guard let base = b.baseAddress else { return (0, 0) }
        let raw = UnsafeRawPointer(base)
        let n = b.count
        var h1: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(n)
        var h2: UInt64 = 0x6a09_e667_f3bc_c908
        var i = 0
        while i + 16 <= n {
            var k1 = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            var k2 = raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            k1 &*= c1; k1 = rotl(k1, 31); k1 &*= c2; h1 ^= k1
            h1 = rotl(h1, 27) &+ h2; h1 = h1 &* 5 &+ 0x52dc_e729
            k2 &*= c2; k2 = rotl(k2, 33); k2 &*= c1; h2 ^= k2
            h2 = rotl(h2, 31) &+ h1; h2 = h2 &* 5 &+ 0x3849_5ab5
            i += 16
        }
        var k1: UInt64 = 0, k2: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            if shift < 64 { k1 |= UInt64(base[i]) << shift } else { k2 |= UInt64(base[i]) << (shift - 64) }
            shift += 8
            i += 1
        }
        k1 &*= c1; k1 = rotl(k1, 31); k1 &*= c2; h1 ^= k1
        k2 &*= c2; k2 = rotl(k2, 33); k2 &*= c1; h2 ^= k2
        h1 ^= UInt64(n); h2 ^= UInt64(n)
        h1 &+= h2; h2 &+= h1
        h1 = fmix(h1); h2 = fmix(h2)
        h1 &+= h2; h2 &+= h1
        return (Int64(bitPattern: h1), Int64(bitPattern: h2))
    }
}
