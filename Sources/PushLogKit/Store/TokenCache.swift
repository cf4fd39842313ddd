/// Token ids by the 128-bit hash of the token, for the writer. Two generations of bounded size:
/// a hit in the old one is promoted, and when the young one fills it becomes the old one. Tokens
/// in use stay cached, memory stays flat (at most 2 × `generation` entries, ~10 MB) whatever the
/// number of distinct tokens, and a miss costs one lookup in the tokens table.
struct TokenCache {
    struct Key: Hashable { let a: Int64, b: Int64 }

    static let generation = 131_072
    private var young: [Key: Int64] = [:]
    private var old: [Key: Int64] = [:]

    var count: Int { young.count + old.count }

    @inline(__always) mutating func get(_ k: Key) -> Int64? {
        if let v = young[k] { return v }
        if let v = old[k] { put(k, v); return v }
        return nil
    }

    @inline(__always) mutating func put(_ k: Key, _ v: Int64) {
        young[k] = v
        if young.count >= TokenCache.generation {
            old = young
            young = Dictionary(minimumCapacity: TokenCache.generation)
        }
    }
}
