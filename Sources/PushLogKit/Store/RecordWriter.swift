import CSQLite

/// Writes normalised events into the record tables with reused prepared statements,
/// interning tokens and repeated strings (Dimension) into integer ids. Duplicates (same time
/// and line hash) are ignored by the unique keys and counted.
final class RecordWriter {
    struct ReasonKey: Hashable { let reason: Int64, status: Int64 }

    let db: Database
    /// One multi-row insert per record kind (EventKind order), so stored rows are counted per kind.
    private var batches: [RowBatch]
    private let insReject, findReject, insToken, findToken, insMetric: Statement
    /// Per source: which rejects keep their text.
    private var rejectTexts: [Int64: RejectTextBound] = [:]
    private var tokenIDs = TokenCache()
    /// Looks a stored record up by its identity, per table (`storedSource`), prepared on first use.
    private var probes: [String: Statement] = [:]
    private var staged = false
    private let topics, envs, pushTypes, reasons, appVersions, osVersions, devices, users, labels: Dimension
    private var dimensions: [Dimension] { [topics, envs, pushTypes, reasons, appVersions, osVersions, devices, users, labels] }
    /// Categories of the reasons seen (a few dozen in practice; emptied if hostile input makes it grow).
    private var reasonCategory: [ReasonKey: ReasonCategory] = [:]
    /// Tokens and devices whose derived facts this writer's records may change (incremental refresh);
    /// collection stops, and `touchedAll` is set, once they grow past what an incremental refresh helps with.
    private(set) var touchedTokens = Set<Int64>()
    private(set) var touchedDevices = Set<Int64>()
    private(set) var touchedAll = false
    /// The apns-ids (as logged) of the receipts written: the receipt times of their pushes are
    /// re-derived (receipts are keyed by their identity, so a run's own rows have no row ids).
    private(set) var touchedReceipts = Set<String>()
    static let touchLimit = 100_000
    /// Category ids are fixed: ReasonCategory order, from 1 (Schema.seed).
    private static let categoryID: [ReasonCategory: Int64] = Dictionary(
        uniqueKeysWithValues:
            ReasonCategory.allCases.enumerated().map { ($1, Int64($0 + 1)) })
    init(db: Database) throws {
        self.db = db
        let head = "INSERT OR IGNORE INTO"
        var b: [RowBatch] = []
        for kind in EventKind.allCases {
            switch kind {
            case .send, .request, .response: b.append(try RowBatch(db, SendColumn.self))
            case .register: b.append(try RowBatch(db, RegisterColumn.self))
            case .settings: b.append(try RowBatch(db, SettingsColumn.self))
            case .receipt: b.append(try RowBatch(db, ReceiptColumn.self))
            case .unregister: b.append(try RowBatch(db, UnregisterColumn.self))
            }
        }
        batches = b
        topics = try Dimension(db, table: "topics"); envs = try Dimension(db, table: "envs")
        pushTypes = try Dimension(db, table: "push_types"); reasons = try Dimension(db, table: "reasons")
        appVersions = try Dimension(db, table: "app_versions"); osVersions = try Dimension(db, table: "os_versions")
        devices = try Dimension(db, table: "devices"); users = try Dimension(db, table: "users")
        labels = try Dimension(db, table: "labels")
        insReject = try db.prepare("\(head) rejects(source_id, line, reason, text, line_hash) VALUES (?1,?2,?3,?4,?5)")
        findReject = try db.prepare("SELECT 1 FROM rejects WHERE line_hash = ?1")
        insMetric = try db.prepare("INSERT OR REPLACE INTO apple_metrics(day, push_type, status, count, source_id) VALUES (?1,?2,?3,?4,?5)")
        insToken = try db.prepare("INSERT INTO tokens(token, malformed, masked) VALUES (?1, ?2, ?3)")
        findToken = try db.prepare("SELECT id FROM tokens WHERE token = ?1")
    }

    /// Sends registrations and receipts to their staging tables (ClusteredTable), or back to
    /// their tables; between runs, before any row is bound.
    func useStaging(_ staged: Bool) throws {
        batches[EventKind.register.rawValue] = try RowBatch(db, RegisterColumn.self, into: staged ? Schema.registers.stagingName : nil)
        batches[EventKind.receipt.rawValue] = try RowBatch(db, ReceiptColumn.self, into: staged ? Schema.receipts.stagingName : nil)
        self.staged = staged
        probes = [:]
    }

    /// The source of the stored record of `e`'s kind whose identity is (`e.time`, `lineHash`), if
    /// one is stored (rows still bound and not flushed are not seen).
    func storedSource(of e: Event, lineHash: Int64) throws -> Int64? {
        let kind = e.kind!
        let (table, lead): (String, (column: String, staging: String)?)
        switch kind {
        case .send, .request, .response: (table, lead) = ("sends", nil)
        case .register: (table, lead) = (Schema.registers.name, ("token_id", Schema.registers.stagingName))
        case .settings: (table, lead) = ("settings", nil)
        case .receipt: (table, lead) = (Schema.receipts.name, ("apns_id", Schema.receipts.stagingName))
        case .unregister: (table, lead) = ("unregisters", nil)
        }
        let s: Statement
        if let p = probes[table] {
            s = p
        } else {
            // Registrations and receipts are keyed by token or apns-id first, and staged during a first load.
            var sql = "SELECT source_id FROM \(table) WHERE \(lead.map { "\($0.column) = ?3 AND " } ?? "")time_ms = ?1 AND line_hash = ?2"
            if staged, let lead { sql += " UNION ALL SELECT source_id FROM \(lead.staging) WHERE time_ms = ?1 AND line_hash = ?2" }
            s = try db.prepare(sql)
            probes[table] = s
        }
        s.reset()
        defer { s.reset() }
        s.bind(1, e.time!)
        s.bind(2, lineHash)
        switch kind {
        case .register:
            guard let t = e.token else { return nil }
            s.bind(3, try tokenID(t, malformed: e.tokenMalformed, masked: e.tokenMasked))
        case .receipt:
            guard let a = e.apnsID else { return nil }
            ApnsIDKey.bind(s, 3, a)
        default:
            break
        }
        return try s.step() ? s.int(0) : nil
    }

    // MARK: binding

    @inline(__always) func bind(_ s: Statement, _ i: Int32, _ v: ByteSlice?) {
        if let v, let p = v.baseAddress {
            s.bindStatic(i, p, v.count)
        } else if v != nil {
            s.bindStatic(i, StaticString("").utf8Start, 0)
        } else {
            s.bindNull(i)
        }
    }
    @inline(__always) func bind(_ s: Statement, _ i: Int32, _ v: Int64?) { if let v { s.bind(i, v) } else { s.bindNull(i) } }
    @inline(__always) func bind(_ s: Statement, _ i: Int32, _ v: Double?) { if let v { s.bind(i, v) } else { s.bindNull(i) } }
    @inline(__always) func bind(_ s: Statement, _ i: Int32, _ v: Bool?) { if let v { s.bind(i, Int64(v ? 1 : 0)) } else { s.bindNull(i) } }
    @inline(__always) func bind(_ s: Statement, _ i: Int32, _ v: StaticString) { s.bindStatic(i, v.utf8Start, v.utf8CodeUnitCount) }
    /// Binds a value to column `c` of the row whose parameters start after `o` (RowBatch.base).
    @inline(__always) func bind<C: RecordColumns>(_ s: Statement, _ o: Int32, _ c: C, _ v: ByteSlice?) { bind(s, o + c.rawValue, v) }
    @inline(__always) func bind<C: RecordColumns>(_ s: Statement, _ o: Int32, _ c: C, _ v: Int64?) { bind(s, o + c.rawValue, v) }
    @inline(__always) func bind<C: RecordColumns>(_ s: Statement, _ o: Int32, _ c: C, _ v: Double?) { bind(s, o + c.rawValue, v) }
    @inline(__always) func bind<C: RecordColumns>(_ s: Statement, _ o: Int32, _ c: C, _ v: Bool?) { bind(s, o + c.rawValue, v) }
    @inline(__always) func bind<C: RecordColumns>(_ s: Statement, _ o: Int32, _ c: C, _ v: StaticString) { bind(s, o + c.rawValue, v) }

    // MARK: writing

    /// The id of a (normalised) token, inserting it on first sight.
    @inline(__always) func tokenID(_ t: ByteSlice, malformed: Bool, masked: Bool) throws -> Int64 {
        let h = LineHash.hash(t)
        let key = TokenCache.Key(a: h.0, b: h.1)
        if let id = tokenIDs.get(key) { return id }
        bind(findToken, 1, t)
        let found = try findToken.step() ? findToken.int(0) : nil
        findToken.reset()
        if let found {
            tokenIDs.put(key, found)
            return found
        }
        bind(insToken, 1, t)
        insToken.bind(2, Int64(malformed ? 1 : 0))
        insToken.bind(3, Int64(masked ? 1 : 0))
        try insToken.run()
        let id = db.lastInsertRowID
        tokenIDs.put(key, id)
        touchToken(id)
        return id
    }

    func category(status: Int64?, reason: ByteSlice?) -> ReasonCategory {
        guard let reason, reason.count > 0 else {
            return ReasonTaxonomy.category(status: status.map { Int($0) }, reason: nil)
        }
        let h = LineHash.hash(reason)
        let key = ReasonKey(reason: h.0, status: status ?? -1)
        if let c = reasonCategory[key] { return c }
        let c = ReasonTaxonomy.category(status: status.map { Int($0) }, reason: reason.string)
        if reasonCategory.count >= 4096 { reasonCategory.removeAll() }
        reasonCategory[key] = c
        return c
    }

    @inline(__always) func touchToken(_ id: Int64) {
        guard !touchedAll else { return }
        touchedTokens.insert(id)
        if touchedTokens.count > RecordWriter.touchLimit { giveUpTouching() }
    }

    @inline(__always) func touchDevice(_ d: Int64?) {
        guard !touchedAll, let d else { return }
        touchedDevices.insert(d)
        if touchedDevices.count > RecordWriter.touchLimit { giveUpTouching() }
    }

    /// Stops collecting (a bulk load rebuilds every derived fact anyway).
    func giveUpTouching() {
        touchedAll = true
        touchedTokens = []
        touchedDevices = []
        touchedReceipts = []
    }

    /// Notes what a record may change in the derived facts.
    @inline(__always) func touch(_ e: Event, token: Int64?, device: Int64?) {
        switch e.kind! {
        case .register:
            if let token { touchToken(token) }
            touchDevice(device)  // registrations without a device only touch user-only facts, always rebuilt
        case .settings:
            touchDevice(device)
        case .send, .response:
            if e.status == 410, let token { touchToken(token) }
        case .receipt:
            guard !touchedAll, let a = e.apnsID else { break }
            touchedReceipts.insert(String(decoding: a, as: UTF8.self))
            if touchedReceipts.count > RecordWriter.touchLimit { giveUpTouching() }
        case .request, .unregister:
            break
        }
    }

    /// Binds one event into its kind's batch (stored by `flush` at the latest). The derived facts
    /// it may change are noted whether or not it turns out to be a duplicate.
    @inline(__always)
    func write(_ e: Event, hash: (Int64, Int64), src: Int64, line: Int) throws {
        let t = e.time!
        let tok = try e.token.map { try tokenID($0, malformed: e.tokenMalformed, masked: e.tokenMasked) }
        let kind = e.kind!
        let b = batches[kind.rawValue]
        let s = b.statement, o = b.base
        var device: Int64?
        switch kind {
        case .send, .request, .response:
            typealias C = SendColumn
            s.bind(o + C.kind.rawValue, Int64(kind.rawValue))
            bind(s, o, C.tokenID, tok)
            if let a = e.apnsID { ApnsIDKey.bind(s, o + C.apnsID.rawValue, a) } else { s.bindNull(o + C.apnsID.rawValue) }
            bind(s, o, C.envID, try envs.id(e.env)); bind(s, o, C.topicID, try topics.id(e.topic))
            bind(s, o, C.pushTypeID, try pushTypes.id(e.pushType)); bind(s, o, C.priority, e.priority);
            bind(s, o, C.collapseID, e.collapseID)
            bind(s, o, C.expiration, e.expiration); bind(s, o, C.payloadBytes, e.payloadBytes)
            bind(s, o, C.contentAvailable, e.contentAvailable); bind(s, o, C.mutableContent, e.mutableContent)
            bind(s, o, C.hasAlert, e.hasAlert); bind(s, o, C.hasSound, e.hasSound); bind(s, o, C.hasBadge, e.hasBadge)
            bind(s, o, C.apsCategory, e.category); bind(s, o, C.threadID, e.threadID)
            bind(s, o, C.interruptionLevel, e.interruptionLevel); bind(s, o, C.relevance, e.relevance)
            bind(s, o, C.customKeys, e.customKeys); bind(s, o, C.status, e.status); bind(s, o, C.reasonID, try reasons.id(e.reason))
            if e.status != nil || e.reason != nil {
                bind(s, o, C.categoryID, RecordWriter.categoryID[category(status: e.status, reason: e.reason)])
            } else if e.error != nil {
                bind(s, o, C.categoryID, RecordWriter.categoryID[.transport])
            } else {
                s.bindNull(o + C.categoryID.rawValue)
            }
            bind(s, o, C.apnsTs, e.apnsTimestamp); bind(s, o, C.apnsUniqueID, e.apnsUniqueID); bind(s, o, C.latencyMs, e.latencyMs)
            bind(s, o, C.attempt, e.attempt); bind(s, o, C.error, e.error)
        case .register:
            typealias C = RegisterColumn
            device = try devices.id(e.device)
            bind(s, o, C.tokenID, tok); bind(s, o, C.deviceID, device); bind(s, o, C.userID, try users.id(e.user))
            bind(s, o, C.envID, try envs.id(e.env)); bind(s, o, C.appVersionID, try appVersions.id(e.appVersion))
            bind(s, o, C.osVersionID, try osVersions.id(e.osVersion)); bind(s, o, C.authID, try labels.id(e.auth))
            bind(s, o, C.topicID, try topics.id(e.topic))
        case .settings:
            typealias C = SettingsColumn
            device = try devices.id(e.device)
            bind(s, o, C.deviceID, device); bind(s, o, C.userID, try users.id(e.user)); bind(s, o, C.authID, try labels.id(e.auth))
            bind(s, o, C.alertSettingID, try labels.id(e.alertSetting)); bind(s, o, C.soundSettingID, try labels.id(e.soundSetting))
            bind(s, o, C.badgeSettingID, try labels.id(e.badgeSetting)); bind(s, o, C.lockScreenID, try labels.id(e.lockScreen))
            bind(s, o, C.notificationCenterID, try labels.id(e.notificationCenter))
        case .receipt:
            typealias C = ReceiptColumn
            if let a = e.apnsID { ApnsIDKey.bind(s, o + C.apnsID.rawValue, a) } else { s.bindNull(o + C.apnsID.rawValue) }
            bind(s, o, C.deviceID, try devices.id(e.device)); bind(s, o, C.tokenID, tok)
            bind(s, o, C.receiptID, try labels.id(e.receipt)); bind(s, o, C.resultID, try labels.id(e.result))
        case .unregister:
            typealias C = UnregisterColumn
            bind(s, o, C.tokenID, tok); bind(s, o, C.deviceID, try devices.id(e.device)); bind(s, o, C.userID, try users.id(e.user))
        }
        typealias I = IdentityColumn
        s.bind(o + I.timeMs.rawValue, t); s.bind(o + I.lineHash.rawValue, RecordWriter.lineHash(hash))
        s.bind(o + I.sourceID.rawValue, src); s.bind(o + I.line.rawValue, Int64(line))
        try b.rowDone()
        touch(e, token: tok, device: device)
    }

    /// The stored identity hash: the two halves of the 128-bit line hash folded into 64 bits (a
    /// record packed with others in one line differs from them in the second half). SQL writes
    /// it as `(h1 | h2) & ~(h1 & h2)` (SchemaMigration).
    @inline(__always) static func lineHash(_ h: (Int64, Int64)) -> Int64 { h.0 ^ h.1 }

    /// Stores every bound row; call before the bound bytes are reused and before a commit.
    func flush() throws {
        for b in batches { try b.flush() }
    }

    /// Forgets bound rows whose transaction was rolled back, and the token ids it may have
    /// assigned (a rolled-back id can be given to another token later).
    func discard() {
        for b in batches { b.discard() }
        tokenIDs = TokenCache()
        for d in dimensions { d.discard() }
    }

    /// Rows stored per kind since the last call; the rest of what was written were duplicates.
    func takeInserted() -> KindCounts {
        var c = KindCounts()
        for k in EventKind.allCases { c[k] = batches[k.rawValue].takeInserted() }
        return c
    }

    /// Stores one day's Apple delivery-metrics count (a re-import replaces it).
    func appleMetric(day: String, pushType: String, status: String, count: Int64, src: Int64) throws {
        insMetric.bind(1, day); insMetric.bind(2, pushType); insMetric.bind(3, status); insMetric.bind(4, count); insMetric.bind(5, src)
        try insMetric.run()
    }

    /// Stores a rejected line (already redacted and cut to 512 bytes); false when the same line was
    /// rejected before: under its identity, or under its `legacy` one (a reject stored before file
    /// context was part of the identity, which is taken for the same file to keep old figures).
    /// Past its file's `RejectTextBound`, or without `text` (the parser's own bound), a new
    /// reject is counted (true) but not stored.
    func reject(src: Int64, line: Int, reason: RejectReason, text: String?, hash: (Int64, Int64), legacy: Int64) throws -> Bool {
        let key = RecordWriter.lineHash(hash)
        for identity in legacy == key ? [key] : [legacy, key] {
            findReject.reset()
            findReject.bind(1, identity)
            let storedBefore = try findReject.step()
            findReject.reset()
            if storedBefore { return false }
        }
        let why = reason.description
        if rejectTexts[src] == nil { rejectTexts[src] = RejectTextBound(stored: try storedRejects(src)) }
        guard let text, rejectTexts[src]!.keep(why) else { return true }
        insReject.bind(1, src); insReject.bind(2, Int64(line)); insReject.bind(3, why); insReject.bind(4, text)
        insReject.bind(5, key)
        try insReject.run()
        return db.changes > 0
    }

    /// The rejected lines of `src` stored by earlier runs, by reason.
    private func storedRejects(_ src: Int64) throws -> [String: Int] {
        let s = try db.prepare("SELECT reason, count(*) FROM rejects WHERE source_id = ?1 GROUP BY reason")
        s.bind(1, src)
        var out: [String: Int] = [:]
        while try s.step() { out[s.string(0) ?? ""] = Int(s.int(1)) }
        return out
    }
}
