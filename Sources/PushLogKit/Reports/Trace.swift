/// The timeline of one token (or unambiguous prefix, or masked form), device, user or apns-id
/// across every record kind, with the source file and line of each record.
public struct Trace {
    let db: Database
    public init(db: Database) { self.db = db }

    /// What a key names: tokens (ids), a device or user (id and name), an apns-id (as logged).
    enum Subject {
        case tokens([Int64])
        case device(Int64, String)
        case user(Int64, String)
        case apnsID(String)
    }

    /// Works out what KEY names. Throws with a clear message when it is ambiguous or unknown.
    func resolve(_ key: String) throws -> (Subject, String) {
        let k = key.trimmingCharacters(in: .whitespaces)
        if try exists(
            "SELECT 1 FROM sends WHERE \(Schema.apnsMatch("apns_id", "apns_key(?1)")) UNION ALL SELECT 1 FROM receipts WHERE apns_id = apns_key(?1) LIMIT 1",
            k)
        {
            return (.apnsID(k), "apns-id \(k)")
        }
        if let d = try id(
            """
            SELECT d.id FROM devices d WHERE d.name = ?1 AND (EXISTS (SELECT 1 FROM registers WHERE device_id = d.id)
                                                             OR EXISTS (SELECT 1 FROM settings WHERE device_id = d.id))
            """, k)
        {
            return (.device(d, k), "device \(k)")
        }
        if let u = try id(
            """
            SELECT u.id FROM users u WHERE u.name = ?1 AND (EXISTS (SELECT 1 FROM device_facts WHERE user_id = u.id)
              OR EXISTS (SELECT 1 FROM registers WHERE device_id IS NULL AND user_id = u.id)
              OR EXISTS (SELECT 1 FROM settings WHERE device_id IS NULL AND user_id = u.id))
            """, k)
        {
            return (.user(u, k), "user \(k)")
        }
        let (prefix, suffix) = Trace.tokenKey(k)
        let s = try db.prepare("SELECT id, token FROM tokens WHERE token >= ?1 AND token < ?1 || x'ff' AND token LIKE '%' || ?2 LIMIT 3")
        s.bind(1, prefix)
        s.bind(2, suffix)
        var found: [(Int64, String)] = []
        while try s.step() { found.append((s.int(0), s.string(1) ?? "")) }
        if found.isEmpty && k.count >= 4 {
            // An apns-id prefix (the first block of a UUID is what people copy from a log line).
            // Stored UUIDs are 16 bytes (ApnsIDKey): a hex prefix is a range of keys; other ids are text.
            let a = try db.prepare(
                """
                SELECT DISTINCT apns_text(apns_id) FROM sends
                -- through sends_apns: a range of keys has its range of 8-byte prefixes
                WHERE (substr(apns_id, 1, 8) BETWEEN substr(?1, 1, 8) AND substr(?2, 1, 8) AND apns_id >= ?1 AND apns_id < ?2)
                   OR (substr(apns_id, 1, 8) BETWEEN substr(?3, 1, 8) AND substr(?3 || x'ff', 1, 8) AND apns_id >= ?3 AND apns_id < ?3 || x'ff')
                LIMIT 3
                """)
            let (lo, hi) = Trace.keyRange(hexPrefix: k)
            if let lo, let hi {
                lo.withUnsafeBytes { a.bindBlob(1, $0.baseAddress!, lo.count) }
                hi.withUnsafeBytes { a.bindBlob(2, $0.baseAddress!, hi.count) }
            } else {
                a.bindNull(1); a.bindNull(2)
            }
            a.bind(3, k)
            var ids: [String] = []
            while try a.step() { if let v = a.string(0) { ids.append(v) } }
            if ids.count == 1 { return (.apnsID(ids[0]), "apns-id \(ids[0])") }
            if ids.count > 1 { throw TraceError.severalApnsIDs(key, ids) }
        }
        guard !found.isEmpty else { throw TraceError.nothing(key) }
        guard found.count == 1 else { throw TraceError.severalTokens(key, found.map(\.1)) }
        return (.tokens([found[0].0]), "token \(found[0].1)")
    }

    /// A token key's parts: the prefix and suffix around the '…' (or '...') of the masked form
    /// outputs print (first 8 … last 4), or the whole key as a prefix; hex ones in lower case.
    static func tokenKey(_ k: String) -> (prefix: String, suffix: String) {
        var prefix = k, suffix = ""
        for sep in ["…", "..."] where k.contains(sep) {
            let parts = k.components(separatedBy: sep)
            prefix = parts.first ?? ""
            suffix = parts.last ?? ""
        }
        let isHex = prefix.allSatisfy { $0.isHexDigit } && suffix.allSatisfy { $0.isHexDigit }
        if isHex { prefix = prefix.lowercased(); suffix = suffix.lowercased() }
        return (prefix, suffix)
    }

    /// The trace document of `key`: its timeline sections under a title naming what the key
    /// resolved to (`label`, e.g. "device d1"). The title never carries a full token: outputs
    /// mask tokens in columns, not in titles.
    static func document(key: String, label: String, token: String?, sections: [ResultTable]) -> ResultDocument {
        var doc = ResultDocument(report: "trace", title: "Trace of \(label)", params: [("key", .text(key))], sections: sections)
        if let token { doc.title = "Trace of token " + TokenMask.mask(token) }
        return doc
    }

    /// The range of 16-byte keys whose UUID starts with `hexPrefix` (dashes ignored), or nils when
    /// it is not hex.
    static func keyRange(hexPrefix: String) -> ([UInt8]?, [UInt8]?) {
        let digits = hexPrefix.filter { $0 != "-" }
        guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else { return (nil, nil) }
        let nibbles = digits.map { UInt8($0.hexDigitValue!) }
        var lo: [UInt8] = []
        var i = 0
        while i + 1 < nibbles.count { lo.append(nibbles[i] << 4 | nibbles[i + 1]); i += 2 }
        var hi = lo
        if i < nibbles.count {
            lo.append(nibbles[i] << 4)
            hi.append(nibbles[i] << 4)
            hi[hi.count - 1] &+= 16
            if nibbles[i] < 15 { return (lo, hi) }
            hi.removeLast()
        }
        // Increment the last byte that can be (a prefix of all f's has no upper bound: 17 x ff).
        while let last = hi.last, last == 0xFF { hi.removeLast() }
        if hi.isEmpty { return (lo, [UInt8](repeating: 0xFF, count: 18)) }
        hi[hi.count - 1] += 1
        return (lo, hi)
    }

    func id(_ sql: String, _ k: String) throws -> Int64? {
        let s = try db.prepare(sql)
        s.bind(1, k)
        return try s.step() ? s.int(0) : nil
    }

    func exists(_ sql: String, _ k: String) throws -> Bool {
        let s = try db.prepare(sql)
        s.bind(1, k)
        return try s.step()
    }

    /// Tokens the subject involves: a token's devices' other tokens too, so a rotation shows its next token.
    func tokenIDs(_ subject: Subject) throws -> [Int64] {
        let sql: String
        let arg: SQLValue
        switch subject {
        case .tokens(let ids):
            arg = .text("[" + ids.map(String.init).joined(separator: ",") + "]")
            sql = """
                SELECT value FROM json_each(?1) UNION
                SELECT token_id FROM registers WHERE device_id IN (SELECT device_id FROM registers WHERE token_id IN (SELECT value FROM json_each(?1)))
                """
        case .device(let d, _): sql = "SELECT DISTINCT token_id FROM registers WHERE device_id = ?1"; arg = .int(d)
        case .user(let u, _):
            sql = """
                SELECT DISTINCT token_id FROM registers
                WHERE device_id IN (SELECT id FROM devices WHERE name IN (SELECT unit FROM device_facts WHERE user_id = ?1))
                   OR (device_id IS NULL AND user_id = ?1)
                """
            arg = .int(u)
        case .apnsID(let a):
            sql = "SELECT DISTINCT token_id FROM sends WHERE \(Schema.apnsMatch("apns_id", "apns_key(?1)")) AND token_id IS NOT NULL"
            arg = .text(a)
        }
        let s = try db.prepare(sql)
        switch arg {
        case .int(let v): s.bind(1, v)
        case .text(let v): s.bind(1, v)
        default: break
        }
        var out: [Int64] = []
        while try s.step() { if !s.isNull(0) { out.append(s.int(0)) } }
        return out
    }

    public func run(_ key: String) throws -> ResultDocument {
        let (subject, label) = try resolve(key)
        var sections: [ResultTable] = []
        switch subject {
        case .tokens(let own):
            // The token's own records first; its devices' settings and other tokens after, as context.
            sections.append(try timeline("timeline", Scope(tokens: own)))
            let others = try tokenIDs(subject).filter { !own.contains($0) }
            let devices = try ids("SELECT DISTINCT device_id FROM registers WHERE token_id IN (SELECT value FROM json_each(?1))", own)
            sections.append(try timeline("device_context", Scope(tokens: others, devices: devices, excluding: own)))
        case .apnsID(let a):
            sections.append(try timeline("timeline", Scope(apns: a)))
            let tokens = try tokenIDs(subject)
            sections.append(try timeline("token_context", Scope(tokens: tokens, kinds: ["register", "unregister"])))
        case .device(let d, _):
            sections.append(try timeline("timeline", Scope(tokens: try tokenIDs(subject), devices: [d])))
        case .user(let u, _):
            let devices = try ids(
                "SELECT d.id FROM device_facts f JOIN devices d ON d.name = f.unit WHERE f.user_id = ?1 AND ?1 IS NOT NULL", [u])
            sections.append(try timeline("timeline", Scope(tokens: try tokenIDs(subject), devices: devices, user: u)))
        }
        var token: String?
        if case .tokens = subject { token = String(label.dropFirst("token ".count)) }
        return Trace.document(key: key, label: label, token: token, sections: sections)
    }

    /// Which records a timeline holds: of these tokens, devices, user or apns-id.
    struct Scope {
        var tokens: [Int64] = []
        var devices: [Int64] = []
        var user: Int64? = nil
        var apns: String? = nil
        /// Records of these tokens are left out (they are another section's).
        var excluding: [Int64] = []
        /// Only these kinds, or all.
        var kinds: [String]? = nil
    }

    /// Ids the first column of `sql` gives, `?1` bound to `values` as a JSON array (or the one value).
    func ids(_ sql: String, _ values: [Int64]) throws -> [Int64] {
        let s = try db.prepare(sql)
        if sql.contains("json_each") { s.bind(1, Trace.json(values)) } else { s.bind(1, values[0]) }
        var out: [Int64] = []
        while try s.step() { if !s.isNull(0) { out.append(s.int(0)) } }
        return out
    }

    static func json(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }

    /// Every record of `scope` in time order, with the source file and line of each.
    func timeline(_ section: String, _ scope: Scope) throws -> ResultTable {
        // Every value is bound: the lists as JSON arrays read through json_each.
        let inTokens = "(SELECT value FROM json_each(:tokens))"
        let inDevices = "(SELECT value FROM json_each(:devices))"
        let userFilter = ":user", apnsFilter = ":apns"
        let sendsWhere = "(s.token_id IN \(inTokens) OR \(Schema.apnsMatch("s.apns_id", "apns_key(:apns)")))"
        func name(_ table: String, _ column: String) -> String { "(SELECT name FROM \(table) WHERE id = \(column))" }
        let sql = """
            SELECT rfc3339(x.t) AS time, x.kind, k.token, x.detail, src.path AS source, x.line
            FROM (
              SELECT s.time_ms AS t, CASE s.kind WHEN 0 THEN 'send' WHEN 1 THEN 'request' ELSE 'response' END AS kind, s.token_id,
                     trim(coalesce(s.status, '') || ' ' || coalesce(\(name("reasons", "s.reason_id")), '') ||
                          CASE WHEN s.apns_ts IS NOT NULL THEN ' (APNs timestamp ' || rfc3339(s.apns_ts) || ')' ELSE '' END ||
                          ' apns-id ' || coalesce(apns_text(s.apns_id), '?') || ' env ' || coalesce(\(name("envs", "s.env_id")), '?') ||
                          ' ' || coalesce(\(name("push_types", "s.push_type_id")), '') || coalesce(' attempt ' || s.attempt, '')) AS detail,
                     s.source_id, s.line
              FROM sends s WHERE \(sendsWhere)
              UNION ALL
              SELECT r.time_ms, 'register', r.token_id,
                     'device ' || coalesce(\(name("devices", "r.device_id")), '?') || ' user ' || coalesce(\(name("users", "r.user_id")), '?') ||
                     ' env ' || coalesce(\(name("envs", "r.env_id")), '?') || ' app ' || coalesce(\(name("app_versions", "r.app_version_id")), '?') ||
                     ' auth ' || coalesce(\(name("labels", "r.auth_id")), '?'), r.source_id, r.line
              FROM registers r WHERE r.token_id IN \(inTokens) OR r.device_id IN \(inDevices) OR (r.device_id IS NULL AND r.user_id = \(userFilter))
              UNION ALL
              SELECT u.time_ms, 'unregister', u.token_id, 'device ' || coalesce(\(name("devices", "u.device_id")), '?'), u.source_id, u.line
              FROM unregisters u WHERE u.token_id IN \(inTokens) OR u.device_id IN \(inDevices)
              UNION ALL
              SELECT g.time_ms, 'settings', NULL, 'auth ' || \(name("labels", "g.auth_id")) || ' alert ' || coalesce(\(name("labels", "g.alert_setting_id")), '?') ||
                     ' device ' || coalesce(\(name("devices", "g.device_id")), '?'), g.source_id, g.line
              FROM settings g
              WHERE g.device_id IN \(inDevices) OR (g.device_id IS NULL AND g.user_id = \(userFilter))
              UNION ALL
              SELECT c.time_ms, 'receipt', c.token_id, coalesce(\(name("labels", "c.receipt_id")), '?') || ' ' || coalesce(\(name("labels", "c.result_id")), '') ||
                     ' apns-id ' || apns_text(c.apns_id), c.source_id, c.line
              FROM receipts c
              -- by apns-id only (indexed): every receipt names the push it belongs to
              WHERE c.apns_id = apns_key(\(apnsFilter)) OR c.apns_id IN (SELECT s.apns_id FROM sends s WHERE \(sendsWhere))
            ) x
            LEFT JOIN tokens k ON k.id = x.token_id
            LEFT JOIN sources src ON src.id = x.source_id
            WHERE (x.token_id IS NULL OR x.token_id NOT IN (SELECT value FROM json_each(:excluding)))
              AND (:kinds IS NULL OR x.kind IN (SELECT value FROM json_each(:kinds)))
            ORDER BY x.t, x.kind
            """
        let s = try db.prepare(sql)
        s.bind(s.index(of: ":tokens"), Trace.json(scope.tokens))
        s.bind(s.index(of: ":devices"), Trace.json(scope.devices))
        s.bindInt(s.index(of: ":user"), scope.user)
        s.bind(s.index(of: ":apns"), scope.apns)
        s.bind(s.index(of: ":excluding"), Trace.json(scope.excluding))
        let kinds: String? = scope.kinds.map { list in "[" + list.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]" }
        s.bind(s.index(of: ":kinds"), kinds)
        return try ResultTable.from(s, name: section)
    }

}

/// Why a trace key found no timeline: nothing matched it, or several things did (give more of it).
public enum TraceError: Error, CustomStringConvertible {
    case notFound(String)
    case ambiguous(String)

    static func nothing(_ key: String) -> TraceError {
        .notFound("nothing matches '\(key)': not an apns-id, device, user or token (prefix) in this database")
    }

    static func severalTokens(_ key: String, _ tokens: [String]) -> TraceError {
        .ambiguous("'\(key)' matches several tokens (\(tokens.map { TokenMask.mask($0) }.joined(separator: ", "))…); give more characters")
    }

    static func severalApnsIDs(_ key: String, _ ids: [String]) -> TraceError {
        .ambiguous("'\(key)' is the start of several apns-ids (\(ids.joined(separator: ", "))…); give more characters")
    }
    public var description: String {
        switch self {
        case .notFound(let m), .ambiguous(let m): return m
        }
    }
}
