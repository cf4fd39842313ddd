/// One dimension table (topics, envs, devices, …): the writer turns a repeated string into its
/// id, inserting it on first sight. Ids are cached by the string's 128-bit hash, and a hit is
/// confirmed by comparing the bytes: the hash is fast, not cryptographic, and a crafted string
/// in a log must not take another's id. The cache is emptied when it reaches `limit` entries,
/// so memory stays flat however many devices or users there are.
final class Dimension {
    let table: String
    private let db: Database
    private let find, insert: Statement
    var cached: [TokenCache.Key: (id: Int64, name: [UInt8])] = [:]  // internal: a test plants a collision
    static let limit = 131_072

    init(_ db: Database, table: String) throws {
        self.db = db
        self.table = table
        find = try db.prepare("SELECT id FROM \(table) WHERE name = ?1")
        insert = try db.prepare("INSERT INTO \(table)(name) VALUES (?1)")
    }

    /// The id of `name` (nil stays nil).
    @inline(__always) func id(_ name: ByteSlice?) throws -> Int64? {
        guard let name else { return nil }
        let h = LineHash.hash(name)
        let key = TokenCache.Key(a: h.0, b: h.1)
        if let hit = cached[key], hit.name.elementsEqual(name) { return hit.id }
        bindName(find, name)
        let found = try find.step() ? find.int(0) : nil
        find.reset()
        let id: Int64
        if let found {
            id = found
        } else {
            bindName(insert, name)
            try insert.run()
            id = db.lastInsertRowID
        }
        if cached.count >= Dimension.limit { cached.removeAll(keepingCapacity: true) }
        cached[key] = (id, Array(name))
        return id
    }

    @inline(__always) private func bindName(_ s: Statement, _ name: ByteSlice) {
        if let p = name.baseAddress { s.bindStatic(1, p, name.count) } else { s.bindStatic(1, StaticString("").utf8Start, 0) }
    }

    /// Forgets the cached ids (their transaction was rolled back: an id may be given again).
    func discard() { cached = [:] }
}
