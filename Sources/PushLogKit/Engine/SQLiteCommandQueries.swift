/// The SQLite SQL of the commands besides `report`: each command's named statements, with the
/// columns, order and meaning of the same statements in Queries/clickhouse (tokens.sql, trace.sql,
/// metrics.sql, listings.sql). Values are bound by name (`:key`); a list arrives as a JSON array of
/// text, read through `json_each`. Every ORDER BY is a total order, so both engines list ties alike.
enum SQLiteCommandQueries {
    static let statements: [String: [String: String]] = [
        "trace": trace, "tokens": tokens, "metrics": metrics, "listings": listings,
    ]

    // MARK: - trace

    /// A timeline's scope as ids, from the names the statement is given.
    static let traceScope = """
        WITH tok(id) AS (SELECT id FROM tokens WHERE token IN (SELECT value FROM json_each(:tokens))),
             dev(id) AS (SELECT id FROM devices WHERE name IN (SELECT value FROM json_each(:devices))),
             excl(id) AS (SELECT id FROM tokens WHERE token IN (SELECT value FROM json_each(:excluding)))
        """

    static let trace: [String: String] = [
        // Records of this apns-id: a send, request, response or receipt (sends through sends_apns).
        "apns_id": """
        SELECT count(*) AS n FROM (
          SELECT 1 FROM sends WHERE \(Schema.apnsMatch("apns_id", "apns_key(:key)"))
          UNION ALL SELECT 1 FROM receipts WHERE apns_id = apns_key(:key) LIMIT 1)
        """,
        // A device that registered or reported its settings.
        "device": """
        SELECT count(*) AS n FROM devices d
        WHERE d.name = :key AND (EXISTS (SELECT 1 FROM registers WHERE device_id = d.id) OR EXISTS (SELECT 1 FROM settings WHERE device_id = d.id))
        """,
        // A user of a device, or named by a registration or settings without a device.
        "user": """
        SELECT count(*) AS n FROM users u
        WHERE u.name = :key AND (EXISTS (SELECT 1 FROM device_facts WHERE user_id = u.id)
          OR EXISTS (SELECT 1 FROM registers WHERE device_id IS NULL AND user_id = u.id)
          OR EXISTS (SELECT 1 FROM settings WHERE device_id IS NULL AND user_id = u.id))
        """,
        // Tokens starting with the prefix and ending with the suffix (LIKE: ASCII letters in any case).
        "tokens": """
        SELECT token FROM tokens WHERE token >= :prefix AND token < :prefix || x'ff' AND token LIKE '%' || :suffix
        ORDER BY token LIMIT 3
        """,
        // apns-ids of sends starting with the key: a UUID (stored as 16 bytes) by the range of keys
        // [:lo, :hi) its hex digits give (:hi NULL: no upper end), any other id by its text; through
        // sends_apns, whose 8-byte prefixes a range of keys has its range of.
        "apns_prefix": """
        SELECT DISTINCT apns_text(apns_id) AS apns_id FROM sends
        WHERE (substr(apns_id, 1, 8) >= substr(apns_key(:lo), 1, 8)
               AND substr(apns_id, 1, 8) <= coalesce(substr(apns_key(:hi), 1, 8), x'ffffffffffffffff')
               AND apns_id >= apns_key(:lo) AND (:hi IS NULL OR apns_id < apns_key(:hi)))
           OR (substr(apns_id, 1, 8) BETWEEN substr(:key, 1, 8) AND substr(:key || x'ff', 1, 8) AND apns_id >= :key AND apns_id < :key || x'ff')
        ORDER BY 1 LIMIT 3
        """,
        // The devices that registered these tokens.
        "token_devices": """
        SELECT DISTINCT d.name AS device FROM registers r JOIN devices d ON d.id = r.device_id
        WHERE r.token_id IN (SELECT id FROM tokens WHERE token IN (SELECT value FROM json_each(:tokens)))
        ORDER BY 1
        """,
        // The tokens these devices registered.
        "device_tokens": """
        SELECT DISTINCT k.token FROM registers r JOIN tokens k ON k.id = r.token_id
        WHERE r.device_id IN (SELECT id FROM devices WHERE name IN (SELECT value FROM json_each(:devices)))
        ORDER BY 1
        """,
        // The tokens of this apns-id's sends.
        "apns_tokens": """
        SELECT DISTINCT k.token FROM sends s JOIN tokens k ON k.id = s.token_id
        WHERE \(Schema.apnsMatch("s.apns_id", "apns_key(:key)"))
        ORDER BY 1
        """,
        // The devices whose user is this user (device_facts).
        "user_devices": """
        SELECT d.name AS device FROM device_facts f JOIN devices d ON d.name = f.unit
        WHERE f.user_id = (SELECT id FROM users WHERE name = :key)
        ORDER BY 1
        """,
        // The tokens registered on those devices, or by the user without a device.
        "user_tokens": """
        SELECT DISTINCT k.token FROM registers r JOIN tokens k ON k.id = r.token_id
        WHERE r.device_id IN (SELECT id FROM devices WHERE name IN (
                SELECT unit FROM device_facts WHERE user_id = (SELECT id FROM users WHERE name = :key)))
           OR (r.device_id IS NULL AND r.user_id = (SELECT id FROM users WHERE name = :key))
        ORDER BY 1
        """,
        "timeline": timeline,
    ]

    /// Every record of the scope in time order, with the source file and line of each: sends of
    /// the tokens or of the apns-id; registrations and unregistrations of the tokens or devices
    /// (registrations without a device: of the user); settings of the devices or the user; receipts
    /// of the apns-id or of the sends. Records of the excluded tokens are left out; `:kinds`: only
    /// these ('[]' = all).
    static var timeline: String {
        func name(_ table: String, _ column: String) -> String { "(SELECT name FROM \(table) WHERE id = \(column))" }
        let user = "(SELECT id FROM users WHERE name = :user)"
        let sendsWhere = "(s.token_id IN tok OR \(Schema.apnsMatch("s.apns_id", "apns_key(:apns)")))"
        return """
            \(traceScope)
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
              FROM registers r WHERE r.token_id IN tok OR r.device_id IN dev OR (r.device_id IS NULL AND r.user_id = \(user))
              UNION ALL
              SELECT u.time_ms, 'unregister', u.token_id, 'device ' || coalesce(\(name("devices", "u.device_id")), '?'), u.source_id, u.line
              FROM unregisters u WHERE u.token_id IN tok OR u.device_id IN dev
              UNION ALL
              SELECT g.time_ms, 'settings', NULL, 'auth ' || \(name("labels", "g.auth_id")) || ' alert ' || coalesce(\(name("labels", "g.alert_setting_id")), '?') ||
                     ' device ' || coalesce(\(name("devices", "g.device_id")), '?'), g.source_id, g.line
              FROM settings g
              WHERE g.device_id IN dev OR (g.device_id IS NULL AND g.user_id = \(user))
              UNION ALL
              SELECT c.time_ms, 'receipt', c.token_id, coalesce(\(name("labels", "c.receipt_id")), '?') || ' ' || coalesce(\(name("labels", "c.result_id")), '') ||
                     ' apns-id ' || apns_text(c.apns_id), c.source_id, c.line
              FROM receipts c
              -- by apns-id only (indexed): every receipt names the push it belongs to
              WHERE c.apns_id = apns_key(:apns) OR c.apns_id IN (SELECT s.apns_id FROM sends s WHERE \(sendsWhere))
            ) x
            LEFT JOIN tokens k ON k.id = x.token_id
            LEFT JOIN sources src ON src.id = x.source_id
            WHERE (x.token_id IS NULL OR x.token_id NOT IN excl)
              AND (:kinds = '[]' OR x.kind IN (SELECT value FROM json_each(:kinds)))
            ORDER BY x.t, x.kind, src.path, x.line, k.token, x.detail
            """
    }

    // MARK: - tokens

    /// One statement per kind of token to act on (TokenCleanup.Kind). A response: a send or
    /// response record with a status. Every statement selects token, device, user, topic, its
    /// evidence columns, and `evidence_t` (epoch ms, for `--since`).
    static let tokens: [String: String] = [
        // gone: the token's latest token-gone response (status 410, or ExpiredToken/Unregistered
        // under another status: the reason wins) and no registration of the token after that
        // response's APNs timestamp (its own time when APNs gave none). first_410 is the first
        // token-gone response whose timestamp is not followed by a registration either (the start
        // of the token's current gone spell); sends_since_410 counts responses after it.
        "gone": """
        WITH g AS (
          SELECT s.token_id, s.time_ms AS t, coalesce(s.apns_ts, s.time_ms) AS ts, s.reason_id, s.topic_id
          FROM responses s
          WHERE s.status <> 200 AND s.token_id IS NOT NULL
            AND (s.status = 410 OR s.category_id = (SELECT id FROM categories WHERE name = 'token-gone'))
        ), latest AS (
          -- SQLite takes the bare columns from the row holding max(t).
          SELECT token_id, max(t) AS t, ts, reason_id, topic_id FROM g GROUP BY token_id
        ), gone AS (
          SELECT l.*, f.last_reg, f.reg_device_id, f.reg_user_id
          FROM latest l LEFT JOIN token_facts f ON f.token_id = l.token_id
          WHERE f.last_reg IS NULL OR f.last_reg <= l.ts
        ), spell AS (
          SELECT gone.*, (SELECT min(g.t) FROM g WHERE g.token_id = gone.token_id
                            AND (gone.last_reg IS NULL OR g.ts >= gone.last_reg)) AS first_t
          FROM gone
        )
        SELECT k.token, (SELECT name FROM devices WHERE id = reg_device_id) AS device, (SELECT name FROM users WHERE id = reg_user_id) AS user,
               (SELECT name FROM topics WHERE id = spell.topic_id) AS topic,
               rfc3339(first_t) AS first_410, rfc3339(spell.t) AS latest_410, rfc3339(spell.ts) AS apns_timestamp,
               (SELECT name FROM reasons WHERE id = spell.reason_id) AS reason,
               (SELECT rfc3339(max(s.time_ms)) FROM responses s WHERE s.token_id = spell.token_id AND s.status = 200) AS last_accepted,
               (SELECT count(*) FROM responses s WHERE s.token_id = spell.token_id AND s.time_ms > first_t) AS sends_since_410,
               spell.t AS evidence_t
        FROM spell JOIN tokens k ON k.id = spell.token_id
        WHERE spell.t >= :since
        ORDER BY spell.t, k.token
        """,
        // superseded: the device of the token's latest registration registered a different token
        // later (token_runs: the run holding that registration ended with the device's next token).
        // topic: of the token's latest registration.
        "superseded": """
        SELECT k.token, (SELECT name FROM devices WHERE id = r.device_id) AS device, (SELECT name FROM users WHERE id = f.reg_user_id) AS user,
               (SELECT (SELECT name FROM topics WHERE id = x.topic_id) FROM registers x WHERE x.token_id = f.token_id ORDER BY x.time_ms DESC LIMIT 1) AS topic,
               nk.token AS replaced_by, rfc3339(r.superseded_at) AS replaced_at,
               (SELECT count(*) FROM responses s WHERE s.token_id = r.token_id AND s.time_ms > r.superseded_at) AS sends_since_replaced,
               r.superseded_at AS evidence_t
        FROM token_facts f
        JOIN token_runs r ON r.token_id = f.token_id AND r.device_id = f.reg_device_id AND r.last = f.last_reg
        JOIN token_runs n ON n.device_id = r.device_id AND n.start = r.superseded_at AND n.token_id <> r.token_id
        JOIN tokens k ON k.id = f.token_id
        JOIN tokens nk ON nk.id = n.token_id
        WHERE r.superseded_at IS NOT NULL AND r.superseded_at >= :since
        ORDER BY r.superseded_at, k.token, nk.token
        """,
        // bad: at least two BadDeviceToken / DeviceTokenNotForTopic responses after the token's
        // last accepted (200) response, or ever when it had none.
        "bad": """
        WITH e AS (
          SELECT s.token_id, s.time_ms AS t, s.reason_id, s.topic_id
          FROM responses s
          WHERE s.status <> 200 AND s.token_id IS NOT NULL
            AND s.reason_id IN (SELECT id FROM reasons WHERE name COLLATE NOCASE IN ('BadDeviceToken', 'DeviceTokenNotForTopic'))
        ), ok AS (
          SELECT token_id, (SELECT max(s.time_ms) FROM responses s WHERE s.token_id = x.token_id AND s.status = 200) AS t
          FROM (SELECT DISTINCT token_id FROM e) x
        ), since_ok AS (
          SELECT e.token_id, count(*) AS n, min(e.t) AS first_t, max(e.t) AS t, e.reason_id, e.topic_id, ok.t AS ok_t
          FROM e JOIN ok ON ok.token_id = e.token_id
          WHERE ok.t IS NULL OR e.t > ok.t
          GROUP BY e.token_id HAVING count(*) >= 2
        )
        SELECT k.token, (SELECT name FROM devices WHERE id = f.reg_device_id) AS device, (SELECT name FROM users WHERE id = f.reg_user_id) AS user,
               (SELECT name FROM topics WHERE id = b.topic_id) AS topic,
               rfc3339(b.first_t) AS first_bad, rfc3339(b.t) AS latest_bad, b.n AS bad_responses,
               (SELECT name FROM reasons WHERE id = b.reason_id) AS bad_reason, rfc3339(b.ok_t) AS last_accepted, b.t AS evidence_t
        FROM since_ok b JOIN tokens k ON k.id = b.token_id LEFT JOIN token_facts f ON f.token_id = b.token_id
        WHERE b.t >= :since
        ORDER BY b.t, k.token
        """,
        // mismatched: responses sent to the env other than the token's registered env (the env of
        // its latest registration), as in the env-mismatch report.
        "mismatched": """
        SELECT k.token, (SELECT name FROM devices WHERE id = f.reg_device_id) AS device, (SELECT name FROM users WHERE id = f.reg_user_id) AS user,
               (SELECT name FROM topics WHERE id = s.topic_id) AS topic,  -- of the latest: every max() is max(s.time_ms)
               (SELECT name FROM envs WHERE id = f.reg_env_id) AS registered_env, (SELECT name FROM envs WHERE id = s.env_id) AS sent_env, count(*) AS mismatched_sends,
               rfc3339(max(s.time_ms)) AS latest_mismatched,
               sum(s.reason_id = (SELECT id FROM reasons WHERE name = 'BadDeviceToken')) AS bad_device_token,
               max(s.time_ms) AS evidence_t
        FROM token_facts f
        JOIN responses s ON s.token_id = f.token_id AND s.env_id IS NOT NULL AND s.env_id <> f.reg_env_id
        JOIN tokens k ON k.id = f.token_id
        WHERE f.reg_env_id IS NOT NULL
        GROUP BY f.token_id, s.env_id
        HAVING max(s.time_ms) >= :since
        ORDER BY max(s.time_ms), k.token, sent_env
        """,
    ]

    // MARK: - metrics

    static let metrics: [String: String] = [
        // Responses by topic and env ('(none)' when the record has none).
        "responses": """
        SELECT coalesce((SELECT name FROM topics WHERE id = topic_id), '(none)') AS t, coalesce((SELECT name FROM envs WHERE id = env_id), '(none)') AS e,
               count(*) AS responses, coalesce(sum(status = 200), 0) AS accepted, coalesce(sum(status = 410), 0) AS gone
        FROM responses WHERE time_ms >= :since AND time_ms < :until
        GROUP BY topic_id, env_id ORDER BY 1, 2
        """,
        // Every topic and env that ever had a response (hourly_responses: one small row per hour, topic and env).
        "pairs": """
        SELECT DISTINCT coalesce((SELECT name FROM topics WHERE id = topic_id), '(none)') AS t,
                        coalesce((SELECT name FROM envs WHERE id = env_id), '(none)') AS e
        FROM hourly_responses
        """,
        "errors": """
        SELECT coalesce((SELECT name FROM topics WHERE id = topic_id), '(none)') AS t, coalesce((SELECT name FROM envs WHERE id = env_id), '(none)') AS e,
               coalesce((SELECT name FROM categories WHERE id = category_id), 'unknown') AS c, count(*) AS responses
        FROM responses WHERE status <> 200 AND time_ms >= :since AND time_ms < :until
        GROUP BY topic_id, env_id, category_id ORDER BY 1, 2, 3
        """,
        "rejected": "SELECT coalesce(sum(rejects), 0) AS rejected FROM sources",
        // The newest record of each kind (NULL when there is none). sends, settings and unregisters
        // are keyed by time first (a probe from the end of the key); registers are keyed by token,
        // so their newest is token_facts' (one small row per token); receipts are keyed by
        // apns-id, so theirs is a scan.
        "newest": """
        SELECT (SELECT time_ms FROM sends WHERE kind = 0 ORDER BY time_ms DESC LIMIT 1) AS send,
               (SELECT time_ms FROM sends WHERE kind = 1 ORDER BY time_ms DESC LIMIT 1) AS request,
               (SELECT time_ms FROM sends WHERE kind = 2 ORDER BY time_ms DESC LIMIT 1) AS response,
               (SELECT max(last_reg) FROM token_facts) AS register,
               (SELECT max(time_ms) FROM settings) AS settings,
               (SELECT max(time_ms) FROM receipts) AS receipt,
               (SELECT max(time_ms) FROM unregisters) AS unregister
        """,
    ]

    // MARK: - sources and rejects

    static let listings: [String: String] = [
        // The files read, in the order they were first read.
        "sources": """
        SELECT path, format, substr(head_hash, 1, 16) || ':' || size AS fingerprint,
               n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister AS records,
               n_send AS send, n_request AS request, n_response AS response, n_register AS register,
               n_settings AS settings, n_receipt AS receipt, n_unregister AS unregister,
               duplicates, ambiguous, rejects, skipped, ignored, lines,
               CASE WHEN complete THEN 'yes' ELSE 'no' END AS complete, error,
               rfc3339(last_ingest) AS ingested_at
        FROM sources ORDER BY id
        """,
        // The files whose path is the key or ends in '/' and the key, the exact one first.
        "match": """
        SELECT path FROM sources WHERE path = :key OR path LIKE '%/' || :key ORDER BY path = :key DESC, id LIMIT 3
        """,
        // Rejected lines of one file (or all, :source NULL), files in the order they were read.
        "rejects": """
        SELECT s.path AS file, r.line, r.reason, r.text
        FROM rejects r JOIN sources s ON s.id = r.source_id
        WHERE :source IS NULL OR s.path = :source
        ORDER BY r.source_id, r.line, r.reason, r.text
        LIMIT :limit
        """,
        "count": "SELECT count(*) AS n FROM rejects r JOIN sources s ON s.id = r.source_id WHERE :source IS NULL OR s.path = :source",
        // Rejected lines counted but not stored (`RejectTextBound`).
        "counted_only": """
        SELECT coalesce(sum(max(0, s.rejects - (SELECT count(*) FROM rejects r WHERE r.source_id = s.id))), 0) AS n
        FROM sources s WHERE :source IS NULL OR s.path = :source
        """,
    ]
}
