/// The columns of `sends`, declared once: the table's DDL, the `sends_v` view and the
/// documentation of both (`pushlog schema`) are made from this list.
extension Schema {
    /// One column of `sends`: its SQL type and meaning, and what `sends_v` shows for it.
    struct SendsColumn: Sendable {
        let name: String
        let type: String
        let meaning: String
        /// sends_v's columns for it (name, SQL over `s`, meaning); empty: the stored value as is.
        var view: [(name: String, sql: String, meaning: String)] = []
        /// A field of the request: a response logged apart from its request takes it from there
        /// (Derived.joinSplitResponses).
        var fromRequest = false
    }

    static func dimension(_ table: String, _ column: String) -> String { "(SELECT name FROM \(table) WHERE id = s.\(column))" }

    static let sendsColumnList: [SendsColumn] = [
        SendsColumn(name: "id", type: "INTEGER PRIMARY KEY", meaning: "row id"),
        SendsColumn(
            name: "time_ms", type: "INTEGER NOT NULL", meaning: "record time, epoch ms UTC (rfc3339(time_ms) to read it)",
            view: [("time_ms", "s.time_ms", "record time, epoch ms"), ("time", isoTime("s"), "the same as RFC 3339 text")]),
        SendsColumn(
            name: "line_hash", type: "INTEGER NOT NULL",
            meaning: "64-bit hash of the record's line: (time_ms, line_hash) is the record's identity"),
        SendsColumn(name: "source_id", type: "INTEGER", meaning: "sources.id of the file it came from"),
        SendsColumn(name: "line", type: "INTEGER", meaning: "line number in that file"),
        SendsColumn(
            name: "kind", type: "INTEGER NOT NULL", meaning: "0 send (request and response in one), 1 request only, 2 response only"),
        SendsColumn(
            name: "token_id", type: "INTEGER", meaning: "tokens.id of the device token",
            view: [("token_id", "s.token_id", "tokens.id"), ("token", "(SELECT token FROM tokens WHERE id = s.token_id)", "the token")],
            fromRequest: true),
        SendsColumn(
            name: "apns_id", type: "BLOB",
            meaning:
                "apns-id header: 16 bytes for a UUID (any case), else the text as logged; compare with apns_key('…') (through the index: substr(apns_id, 1, 8) = substr(apns_key('…'), 1, 8) AND apns_id = apns_key('…')), read with apns_text(apns_id)",
            view: [("apns_id", apnsText("s.apns_id"), "apns-id as logged")]),
        SendsColumn(
            name: "env_id", type: "INTEGER", meaning: "envs.id: production or sandbox", view: [("env", dimension("envs", "env_id"), "env")],
            fromRequest: true),
        SendsColumn(
            name: "topic_id", type: "INTEGER", meaning: "topics.id: apns-topic (bundle id)",
            view: [("topic", dimension("topics", "topic_id"), "topic")], fromRequest: true),
        SendsColumn(
            name: "push_type_id", type: "INTEGER", meaning: "push_types.id: apns-push-type",
            view: [("push_type", dimension("push_types", "push_type_id"), "push type")], fromRequest: true),
        SendsColumn(name: "priority", type: "INTEGER", meaning: "apns-priority (NULL: APNs' default 10)", fromRequest: true),
        SendsColumn(name: "collapse_id", type: "TEXT", meaning: "apns-collapse-id", fromRequest: true),
        SendsColumn(name: "expiration", type: "INTEGER", meaning: "apns-expiration, epoch seconds", fromRequest: true),
        SendsColumn(name: "payload_bytes", type: "INTEGER", meaning: "payload size in bytes", fromRequest: true),
        SendsColumn(name: "content_available", type: "INTEGER", meaning: "aps.content-available = 1", fromRequest: true),
        SendsColumn(name: "mutable_content", type: "INTEGER", meaning: "aps.mutable-content = 1", fromRequest: true),
        SendsColumn(name: "has_alert", type: "INTEGER", meaning: "aps.alert present", fromRequest: true),
        SendsColumn(name: "has_sound", type: "INTEGER", meaning: "aps.sound present", fromRequest: true),
        SendsColumn(name: "has_badge", type: "INTEGER", meaning: "aps.badge present", fromRequest: true),
        SendsColumn(name: "aps_category", type: "TEXT", meaning: "aps.category", fromRequest: true),
        SendsColumn(name: "thread_id", type: "TEXT", meaning: "aps.thread-id", fromRequest: true),
        SendsColumn(name: "interruption_level", type: "TEXT", meaning: "aps.interruption-level", fromRequest: true),
        SendsColumn(name: "relevance", type: "REAL", meaning: "aps.relevance-score", fromRequest: true),
        SendsColumn(name: "custom_keys", type: "TEXT", meaning: "custom top-level payload keys, comma-separated", fromRequest: true),
        SendsColumn(
            name: "status", type: "INTEGER", meaning: "HTTP status of the APNs response (NULL: no response, e.g. a transport error)"),
        SendsColumn(
            name: "reason_id", type: "INTEGER", meaning: "reasons.id: APNs reason (Unregistered, BadDeviceToken, …)",
            view: [("reason", dimension("reasons", "reason_id"), "APNs reason")]),
        SendsColumn(
            name: "category_id", type: "INTEGER", meaning: "categories.id of the reason's category (docs/reports.md: APNs reasons)",
            view: [("category", dimension("categories", "category_id"), "reason category")]),
        SendsColumn(name: "apns_ts", type: "INTEGER", meaning: "timestamp of a 410 body, epoch ms"),
        SendsColumn(name: "apns_unique_id", type: "TEXT", meaning: "apns-unique-id header (sandbox)"),
        SendsColumn(name: "latency_ms", type: "REAL", meaning: "response latency in ms"),
        SendsColumn(name: "attempt", type: "INTEGER", meaning: "attempt number as logged (2 = first retry)", fromRequest: true),
        SendsColumn(name: "error", type: "TEXT", meaning: "transport error text when there was no APNs response"),
    ]

    /// `CREATE TABLE sends(...)`, with the identity unique.
    static var sendsDDL: String {
        "CREATE TABLE sends(\n"
            + sendsColumnList.map { "    \($0.name) \($0.type),\n" }.joined() + "    UNIQUE(time_ms, line_hash)\n);"
    }

    /// sends_v's select list (over `sends s`).
    static var sendsViewSelect: String {
        sendsColumnList.flatMap { c in
            c.view.isEmpty ? ["s.\(c.name)"] : c.view.map { $0.sql == "s.\($0.name)" ? $0.sql : "\($0.sql) AS \($0.name)" }
        }.joined(separator: ", ")
    }

    /// The request's columns, which a split response takes from its request.
    static var sendsRequestColumns: [String] { sendsColumnList.filter(\.fromRequest).map(\.name) }

    /// The columns of `sends`, which the `responses` view has too.
    static var sendsColumns: [(String, String)] { sendsColumnList.map { ($0.name, $0.meaning) } }

    /// The columns of `sends_v`, which `responses_v` has too.
    static var sendsViewColumns: [(String, String)] {
        sendsColumnList.flatMap { c in c.view.isEmpty ? [(c.name, c.meaning)] : c.view.map { ($0.name, $0.meaning) } }
    }

    /// RFC 3339 as rfc3339() writes it (milliseconds only when there are some), in plain SQL.
    static func isoTime(_ alias: String) -> String {
        "strftime(CASE WHEN \(alias).time_ms % 1000 = 0 THEN '%Y-%m-%dT%H:%M:%SZ' ELSE '%Y-%m-%dT%H:%M:%fZ' END, \(alias).time_ms / 1000.0, 'unixepoch')"
    }
}
