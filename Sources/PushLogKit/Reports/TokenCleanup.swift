/// The tokens a provider should remove from (or fix in) its own database, with the evidence:
/// `pushlog tokens --gone --superseded --bad --mismatched`. Each kind is one statement of each
/// engine (SQLiteCommandQueries, Queries/clickhouse/tokens.sql: readable and copyable like the
/// reports); the rows of the kinds asked for are merged into one row per token whose `why` names
/// every kind that applies.
public struct TokenCleanup {
    /// The kinds of token to act on, in the order `why` lists them.
    public enum Kind: String, CaseIterable, Sendable {
        case gone, superseded, bad, mismatched
    }

    let engine: CommandEngine
    public init(engine: CommandEngine) { self.engine = engine }

    /// Columns every row has, then each kind's evidence columns.
    static let commonColumns = ["token", "why", "device", "user", "topic"]
    static let evidenceColumns: [Kind: [String]] = [
        .gone: ["first_410", "latest_410", "apns_timestamp", "reason", "last_accepted", "sends_since_410"],
        .superseded: ["replaced_by", "replaced_at", "sends_since_replaced"],
        .bad: ["first_bad", "latest_bad", "bad_responses", "bad_reason", "last_accepted"],
        .mismatched: ["registered_env", "sent_env", "mismatched_sends", "latest_mismatched", "bad_device_token"],
    ]

    // MARK: - Running

    /// The tokens of the given kinds whose evidence is at or after `since` (epoch ms), one row
    /// per token in section `tokens`. Tokens are in full: the caller masks them for output.
    public func run(_ kinds: Set<Kind>, since: Int64? = nil) throws -> ResultDocument {
        try TokenCleanup.document(kinds, since: since) { kind in
            try engine.statement("tokens", kind.rawValue, ["since": .int(since ?? Int64.min)])
        }
    }

    /// The document of `run` from each kind's rows as `found(kind)` gives them (the columns of
    /// that kind's statement): one row per token, `why` naming each kind.
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
