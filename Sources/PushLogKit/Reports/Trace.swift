/// The timeline of one token (or unambiguous prefix, or masked form), device, user or apns-id
/// across every record kind, with the source file and line of each record.
public struct Trace {
    let db: Database
    public init(db: Database) { self.db = db }

    public enum Subject { case tokens([Int64]), device(String), user(String), apnsID(String) }

    /// Works out what KEY names. Throws with a clear message when it is ambiguous or unknown.
    public func resolve(_ key: String) throws -> (Subject, String) {
        let k = key.trimmingCharacters(in: .whitespaces)
        if try exists("SELECT 1 FROM sends WHERE apns_id = ?1 UNION ALL SELECT 1 FROM receipts WHERE apns_id = ?1 LIMIT 1", k) {
            return (.apnsID(k), "apns-id \(k)")
        }
        if try exists("SELECT 1 FROM registers WHERE device = ?1 UNION ALL SELECT 1 FROM settings WHERE device = ?1 LIMIT 1", k) {
            return (.device(k), "device \(k)")
        }
        if try exists("""
            SELECT 1 FROM device_facts WHERE user = ?1 UNION ALL
            SELECT 1 FROM registers WHERE device IS NULL AND user = ?1 UNION ALL
            SELECT 1 FROM settings WHERE device IS NULL AND user = ?1 LIMIT 1
            """, k) {
            return (.user(k), "user \(k)")
        }
        // A token: exact, a prefix, or the masked form outputs print (first 8 … last 4).
        var prefix = k, suffix = ""
        for sep in ["…", "..."] where k.contains(sep) {
            let parts = k.components(separatedBy: sep)
            prefix = parts.first ?? ""
            suffix = parts.last ?? ""
        }
        let isHex = prefix.allSatisfy { $0.isHexDigit } && suffix.allSatisfy { $0.isHexDigit }
        if isHex { prefix = prefix.lowercased(); suffix = suffix.lowercased() }
        let s = try db.prepare("SELECT id, token FROM tokens WHERE token >= ?1 AND token < ?1 || x'ff' AND token LIKE '%' || ?2 LIMIT 3")
        s.bind(1, prefix)
        s.bind(2, suffix)
        var found: [(Int64, String)] = []
        while try s.step() { found.append((s.int(0), s.string(1) ?? "")) }
        if found.isEmpty && k.count >= 4 {
            // An apns-id prefix (the first block of a UUID is what people copy from a log line).
            let a = try db.prepare("SELECT DISTINCT apns_id FROM sends WHERE apns_id >= ?1 AND apns_id < ?1 || x'ff' LIMIT 3")
            a.bind(1, k)
            var ids: [String] = []
            while try a.step() { if let v = a.string(0) { ids.append(v) } }
            if ids.count == 1 { return (.apnsID(ids[0]), "apns-id \(ids[0])") }
            if ids.count > 1 {
                throw TraceError.ambiguous("'\(key)' is the start of several apns-ids (\(ids.joined(separator: ", "))…); give more characters")
            }
        }
        guard !found.isEmpty else {
            throw TraceError.notFound("nothing matches '\(key)': not an apns-id, device, user or token (prefix) in this database")
        }
        guard found.count == 1 else {
            throw TraceError.ambiguous("'\(key)' matches several tokens (\(found.map { TokenMask.mask($0.1) }.joined(separator: ", "))…); give more characters")
        }
        return (.tokens([found[0].0]), "token \(found[0].1)")
    }

    func exists(_ sql: String, _ k: String) throws -> Bool {
        let s = try db.prepare(sql)
        s.bind(1, k)
        return try s.step()
    }

    /// Tokens the subject involves: a token's devices' other tokens too, so a rotation shows its next token.
    func tokenIDs(_ subject: Subject) throws -> [Int64] {
        var sql: String
        var arg = ""
        switch subject {
        case .tokens(let ids):
            arg = "[" + ids.map(String.init).joined(separator: ",") + "]"
            sql = """
                SELECT value FROM json_each(?1) UNION
                SELECT token_id FROM registers WHERE device IN (SELECT device FROM registers WHERE token_id IN (SELECT value FROM json_each(?1)))
                """
        case .device(let d): sql = "SELECT DISTINCT token_id FROM registers WHERE device = ?1"; arg = d
        case .user(let u):
            sql = """
                SELECT DISTINCT token_id FROM registers
                WHERE device IN (SELECT dkey FROM device_facts WHERE user = ?1) OR (device IS NULL AND user = ?1)
                """
            arg = u
        case .apnsID(let a): sql = "SELECT DISTINCT token_id FROM sends WHERE apns_id = ?1 AND token_id IS NOT NULL"; arg = a
        }
        let s = try db.prepare(sql)
        if !arg.isEmpty { s.bind(1, arg) }
        var out: [Int64] = []
        while try s.step() { if !s.isNull(0) { out.append(s.int(0)) } }
        return out
    }

    public func run(_ key: String) throws -> ResultDocument {
        let (subject, label) = try resolve(key)
        let ids = try tokenIDs(subject)
        var devices: [String] = [], user: String?, apns: String?
        switch subject {
        case .device(let d): devices = [d]
        case .user(let u):
            user = u
            let s = try db.prepare("SELECT dkey FROM device_facts WHERE user = ?1")
            s.bind(1, u)
            while try s.step() { devices.append(s.string(0) ?? "") }
        case .apnsID(let a): apns = a
        case .tokens: break
        }
        // Every value is bound: the lists as JSON arrays read through json_each.
        let inTokens = "(SELECT value FROM json_each(:tokens))"
        let inDevices = "(SELECT value FROM json_each(:devices))"
        let userFilter = ":user", apnsFilter = ":apns"
        let sendsWhere = apns != nil ? "s.apns_id = :apns" : "s.token_id IN \(inTokens)"
        let sql = """
            SELECT rfc3339(x.t) AS time, x.kind, k.token, x.detail, src.path AS source, x.line
            FROM (
              SELECT s.t, CASE s.kind WHEN 0 THEN 'send' WHEN 1 THEN 'request' ELSE 'response' END AS kind, s.token_id,
                     trim(coalesce(s.status, '') || ' ' || coalesce(s.reason, '') ||
                          CASE WHEN s.apns_ts IS NOT NULL THEN ' (APNs timestamp ' || rfc3339(s.apns_ts) || ')' ELSE '' END ||
                          ' apns-id ' || coalesce(s.apns_id, '?') || ' env ' || coalesce(s.env, '?') ||
                          ' ' || coalesce(s.push_type, '') || coalesce(' attempt ' || s.attempt, '')) AS detail,
                     s.src, s.line
              FROM sends s WHERE \(sendsWhere)
              UNION ALL
              SELECT r.t, 'register', r.token_id,
                     'device ' || coalesce(r.device, '?') || ' user ' || coalesce(r.user, '?') || ' env ' || coalesce(r.env, '?') ||
                     ' app ' || coalesce(r.app_version, '?') || ' auth ' || coalesce(r.auth, '?'), r.src, r.line
              FROM registers r WHERE r.token_id IN \(inTokens) OR r.device IN \(inDevices) OR (r.device IS NULL AND r.user = \(userFilter))
              UNION ALL
              SELECT u.t, 'unregister', u.token_id, 'device ' || coalesce(u.device, '?'), u.src, u.line
              FROM unregisters u WHERE u.token_id IN \(inTokens) OR u.device IN \(inDevices)
              UNION ALL
              SELECT g.t, 'settings', NULL, 'auth ' || g.auth || ' alert ' || coalesce(g.alert_setting, '?') || ' device ' || coalesce(g.device, '?'), g.src, g.line
              FROM settings g
              WHERE g.device IN \(inDevices) OR (g.device IS NULL AND g.user = \(userFilter))
                 OR g.device IN (SELECT device FROM registers WHERE token_id IN \(inTokens))
              UNION ALL
              SELECT c.t, 'receipt', c.token_id, coalesce(c.receipt, '?') || ' ' || coalesce(c.result, '') || ' apns-id ' || c.apns_id, c.src, c.line
              FROM receipts c
              -- by apns-id only (indexed): every receipt names the push it belongs to
              WHERE c.apns_id = \(apnsFilter) OR c.apns_id IN (SELECT s.apns_id FROM sends s WHERE \(sendsWhere))
            ) x
            LEFT JOIN tokens k ON k.id = x.token_id
            LEFT JOIN sources src ON src.id = x.src
            ORDER BY x.t, x.kind
            """
        let s = try db.prepare(sql)
        s.bind(s.index(of: ":tokens"), "[" + ids.map(String.init).joined(separator: ",") + "]")
        s.bind(s.index(of: ":devices"), "[" + devices.map { JSONRenderer.quote($0) }.joined(separator: ",") + "]")
        s.bind(s.index(of: ":user"), user)
        s.bind(s.index(of: ":apns"), apns)
        var doc = ResultDocument(report: "trace", title: "Trace of \(label)", params: [("key", .text(key))],
                                 sections: [try ResultTable.from(s, name: "timeline")])
        // The title never carries a full token: outputs mask tokens in columns, not in titles.
        if case .tokens = subject { doc.title = "Trace of token " + TokenMask.mask(String(label.dropFirst("token ".count))) }
        return doc
    }

}

/// Why a trace key found no timeline: nothing matched it, or several things did (give more of it).
public enum TraceError: Error, CustomStringConvertible {
    case notFound(String), ambiguous(String)
    public var description: String {
        switch self { case .notFound(let m), .ambiguous(let m): return m }
    }
}
