/// The tokens a provider should remove from (or fix in) its own database, with the evidence:
/// `pushlog tokens --gone --superseded --bad --mismatched`. Each kind is one SQL statement
/// below (readable and copyable like the reports); the rows of the kinds asked for are merged
/// into one row per token whose `why` names every kind that applies.
public struct TokenCleanup {
    /// The kinds of token to act on, in the order `why` lists them.
    public enum Kind: String, CaseIterable, Sendable {
        case gone, superseded, bad, mismatched
    }

    let db: Database
    public init(db: Database) { self.db = db }

    /// Columns every row has, then each kind's evidence columns.
    static let commonColumns = ["token", "why", "device", "user", "topic"]
    static let evidenceColumns: [Kind: [String]] = [
        .gone: ["first_410", "latest_410", "apns_timestamp", "reason", "last_accepted", "sends_since_410"],
        .superseded: ["replaced_by", "replaced_at", "sends_since_replaced"],
        .bad: ["first_bad", "latest_bad", "bad_responses", "bad_reason", "last_accepted"],
        .mismatched: ["registered_env", "sent_env", "mismatched_sends", "latest_mismatched", "bad_device_token"],
    ]

    // MARK: - The definitions

    /// A response: a send or response record with a status. Every statement selects token,
    /// device, user, topic, its evidence columns, and `evidence_t` (epoch ms, for `--since`).
    static let sql: [Kind: String] = [
        // gone: the token's latest token-gone response (status 410, or ExpiredToken/Unregistered
        // under another status: the reason wins) and no registration of the token after that
        // response's APNs timestamp (its own time when APNs gave none). first_410 is the first
        // token-gone response whose timestamp is not followed by a registration either (the start
        // of the token's current gone spell); sends_since_410 counts responses after it.
        .gone: """
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
        .superseded: """
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
        ORDER BY r.superseded_at, k.token
        """,
        // bad: at least two BadDeviceToken / DeviceTokenNotForTopic responses after the token's
        // last accepted (200) response, or ever when it had none.
        .bad: """
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
        .mismatched: """
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
        ORDER BY max(s.time_ms), k.token
        """,
    ]

    // MARK: - Running

    /// The tokens of the given kinds whose evidence is at or after `since` (epoch ms), one row
    /// per token in section `tokens`. Tokens are in full: the caller masks them for output.
    public func run(_ kinds: Set<Kind>, since: Int64? = nil) throws -> ResultDocument {
        try TokenCleanup.document(kinds, since: since) { kind in
            let s = try db.prepare(TokenCleanup.sql[kind]!)
            s.bind(s.index(of: ":since"), since ?? Int64.min)
            return try ResultTable.from(s, name: kind.rawValue)
        }
    }

    /// The document of `run` from each kind's rows as `found(kind)` gives them (the columns of
    /// that kind's statement, whichever engine ran it): one row per token, `why` naming each kind.
    static func document(_ kinds: Set<Kind>, since: Int64?, found: (Kind) throws -> ResultTable) throws -> ResultDocument {
        let chosen = Kind.allCases.filter { kinds.contains($0) }
        var columns = TokenCleanup.commonColumns
        for k in chosen {
            for c in TokenCleanup.evidenceColumns[k]! where !columns.contains(c) { columns.append(c) }
        }
        var rows: [[SQLValue]] = []
        var rowOfToken: [String: Int] = [:]
        for kind in chosen {
            let t = try found(kind)
            for r in t.rows {
                guard case .text(let token) = r[0] else { continue }
                let i: Int
                if let existing = rowOfToken[token] {
                    i = existing
                    if case .text(let why) = rows[i][1] { rows[i][1] = .text(why + "," + kind.rawValue) }
                } else {
                    i = rows.count
                    rowOfToken[token] = i
                    var row = [SQLValue](repeating: .null, count: columns.count)
                    row[0] = .text(token)
                    row[1] = .text(kind.rawValue)
                    rows.append(row)
                }
                // Fill what this kind knows; an earlier kind's value of a shared column stays.
                for (c, name) in t.columns.enumerated() where name != "token" && name != "evidence_t" {
                    if let j = columns.firstIndex(of: name), rows[i][j] == .null { rows[i][j] = r[c] }
                }
            }
        }
        var params: [(String, SQLValue)] = [("kinds", .text(chosen.map(\.rawValue).joined(separator: ",")))]
        params.append(("since", since.map { .text(TimeFormat.rfc3339(ms: $0)) } ?? .null))
        return ResultDocument(
            report: "tokens", title: "", params: params,
            sections: [ResultTable(name: "tokens", columns: columns, rows: rows)])
    }

    /// The document with every token value masked (first 8 … last 4): `token` and `replaced_by`.
    public static func masked(_ doc: ResultDocument) -> ResultDocument {
        var d = doc
        for si in d.sections.indices {
            let idx = d.sections[si].columns.indices.filter { ["token", "replaced_by"].contains(d.sections[si].columns[$0]) }
            for ri in d.sections[si].rows.indices {
                for c in idx {
                    if case .text(let s) = d.sections[si].rows[ri][c] { d.sections[si].rows[ri][c] = .text(TokenMask.mask(s)) }
                }
            }
        }
        return d
    }

    /// One token per line (for `xargs`), in the order of the rows. A token from a log could hold
    /// control characters (a broken client's malformed token): they are written as `\xNN`.
    public static func lines(_ doc: ResultDocument) -> String {
        var out = ""
        for t in doc.sections {
            guard let c = t.column("token") else { continue }
            for r in t.rows {
                for u in CellFormat.plain(r[c]).unicodeScalars {
                    if u.value < 0x20 || u.value == 0x7f {
                        let h = String(u.value, radix: 16)
                        out += "\\x" + (h.count < 2 ? "0" : "") + h
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
                out += "\n"
            }
        }
        return out
    }
}
