/// The stored records as rows of one flat schema (ClickHouse's `pushlog.records`): the record's
/// kind, its identity (time and line hash), every field of the event schema it has, in full
/// (tokens are not masked: export is a data pipe, not a display). Fields a record lacks are NULL.
public enum RecordDump {
    /// Column names in output order; every row has them all (TSV) or omits its NULLs (JSON).
    static let columns = [
        "kind", "time_ms", "line_hash", "source", "line",
        "token", "token_malformed", "token_masked", "apns_id", "env", "topic", "push_type", "priority",
        "collapse_id", "expiration", "payload_bytes", "content_available", "mutable_content",
        "has_alert", "has_sound", "has_badge", "aps_category", "thread_id", "interruption_level",
        "relevance", "custom_keys", "status", "reason", "category", "apns_timestamp", "apns_unique_id",
        "latency_ms", "attempt", "error",
        "device", "user", "app_version", "os_version", "auth",
        "alert_setting", "sound_setting", "badge_setting", "lock_screen", "notification_center",
        "receipt", "result",
    ]

    /// One SELECT per record table, for records in [since, until) (`?1`/`?2`). Its columns are
    /// `columns` in order, the strings joined back from their dimensions, except that the source
    /// comes as its id and `RowEncoder` writes its path and the line hash as 16 hex digits.
    static func selects(ordered: Bool) -> [String] {
        func select(_ table: String, _ kind: String, _ fields: [String: String], tokenJoin: Bool) -> String {
            var exprs: [String] = []
            for c in columns {
                switch c {
                case "kind": exprs.append(kind)
                case "time_ms": exprs.append("r.time_ms")
                case "line_hash": exprs.append("r.line_hash")
                case "source": exprs.append("r.source_id")
                case "line": exprs.append("r.line")
                case "token" where tokenJoin: exprs.append("k.token")
                case "token_malformed" where tokenJoin: exprs.append("k.malformed")
                case "token_masked" where tokenJoin: exprs.append("k.masked")
                default: exprs.append(fields[c] ?? "NULL")
                }
            }
            let join = tokenJoin ? " LEFT JOIN tokens k ON k.id = r.token_id" : ""
            return "SELECT \(exprs.joined(separator: ", ")) FROM \(table) r\(join) WHERE r.time_ms >= ?1 AND r.time_ms < ?2"
                + (ordered ? " ORDER BY r.time_ms, r.line_hash" : "")
        }
        func same(_ names: [String]) -> [String: String] { Dictionary(uniqueKeysWithValues: names.map { ($0, "r.\($0)") }) }
        /// Columns held as dimension ids: field -> (dimension table, id column).
        let dimensions: [String: (String, String)] = [
            "env": ("envs", "env_id"), "topic": ("topics", "topic_id"), "push_type": ("push_types", "push_type_id"),
            "reason": ("reasons", "reason_id"), "category": ("categories", "category_id"), "device": ("devices", "device_id"),
            "user": ("users", "user_id"), "app_version": ("app_versions", "app_version_id"),
            "os_version": ("os_versions", "os_version_id"), "auth": ("labels", "auth_id"),
            "alert_setting": ("labels", "alert_setting_id"), "sound_setting": ("labels", "sound_setting_id"),
            "badge_setting": ("labels", "badge_setting_id"), "lock_screen": ("labels", "lock_screen_id"),
            "notification_center": ("labels", "notification_center_id"), "receipt": ("labels", "receipt_id"),
            "result": ("labels", "result_id"),
        ]
        func fields(_ names: [String]) -> [String: String] {
            var f = same(names.filter { dimensions[$0] == nil })
            for n in names { if let (table, column) = dimensions[n] { f[n] = "(SELECT name FROM \(table) WHERE id = r.\(column))" } }
            if names.contains("apns_id") { f["apns_id"] = "apns_text(r.apns_id)" }
            return f
        }
        var sends = fields([
            "apns_id", "env", "topic", "push_type", "priority", "collapse_id", "expiration", "payload_bytes",
            "content_available", "mutable_content", "has_alert", "has_sound", "has_badge", "aps_category",
            "thread_id", "interruption_level", "relevance", "custom_keys", "status", "reason", "category",
            "apns_unique_id", "latency_ms", "attempt", "error",
        ])
        sends["apns_timestamp"] = "r.apns_ts"
        let sendKind = "CASE r.kind WHEN 0 THEN 'send' WHEN 1 THEN 'request' ELSE 'response' END"
        return [
            select("sends", sendKind, sends, tokenJoin: true),
            select(
                "registers", "'register'", fields(["device", "user", "env", "app_version", "os_version", "auth", "topic"]), tokenJoin: true),
            select(
                "settings", "'settings'",
                fields([
                    "device", "user", "auth", "alert_setting", "sound_setting", "badge_setting",
                    "lock_screen", "notification_center",
                ]), tokenJoin: false),
            select("receipts", "'receipt'", fields(["apns_id", "device", "receipt", "result"]), tokenJoin: true),
            select("unregisters", "'unregister'", fields(["device", "user"]), tokenJoin: true),
        ]
    }

    /// Streams every record in [since, until) to `sink`; returns the number of rows written.
    /// `ordered` merges the tables by time (each read in (time_ms, line_hash) order: the key of most
    /// tables, a sort for registers and receipts, which are keyed by token and apns-id), so a day-partitioned
    /// sink meets each day once; otherwise the tables are dumped one after another (faster).
    @discardableResult
    public static func run(_ db: Database, since: Int64?, until: Int64?, ordered: Bool = false, into sink: ExportSink) throws -> Int {
        var paths: [Int64: String] = [:]
        let src = try db.prepare("SELECT id, path FROM sources")
        while try src.step() { paths[src.int(0)] = src.string(1) ?? "" }
        sink.encoder.sources = paths
        var n = 0
        var cursors: [(Statement, Bool)] = []
        for sql in selects(ordered: ordered) {
            let s = try db.prepare(sql)
            s.bind(1, since ?? Int64.min)
            s.bind(2, until ?? Int64.max)
            if !ordered {
                while try s.step() {
                    try sink.write(s)
                    n += 1
                }
            } else {
                cursors.append((s, try s.step()))
            }
        }
        // The merge: five cursors, so a linear pick of the earliest is enough.
        while true {
            var best = -1
            for (i, c) in cursors.enumerated() where c.1 && (best < 0 || c.0.int(1) < cursors[best].0.int(1)) { best = i }
            guard best >= 0 else { break }
            try sink.write(cursors[best].0)
            n += 1
            cursors[best].1 = try cursors[best].0.step()
        }
        try sink.finish()
        return n
    }
}
