import Foundation

/// The facts the reports read on ClickHouse (the `kept_*` tables of facts.sql): built from the
/// records after deduplication, so rebuilding them is always safe, and out of date as soon as
/// rows arrive. `kept_state` holds the raw row count and the newest `sources` row they were built
/// from, and the fingerprint of the facts.sql that built them; a report on facts older than the
/// records, or built by another version of facts.sql, rebuilds them first, so it never reads a
/// state that misses rows (a killed ingest, rows loaded by hand) or tables.
public enum ClickHouseFacts {
    /// What a command on the kept facts reads besides its own queries, in one request: whether
    /// the facts were built from the records as they are now, the data's span and the tokens the
    /// hex-run mask would not catch.
    public struct State: Sendable {
        /// True when the kept facts were built from the records as they are now, by this facts.sql.
        public let fresh: Bool
        /// The first and last record time (ms) of kept_data_span, nil when it holds no record.
        public let span: (Int64, Int64)?
        /// The kept irregular tokens (malformed, masked or short), longest first.
        public let irregular: [String]

        /// The mask for output from these facts, as `TokenMask(db:)` reads it from SQLite.
        public var mask: TokenMask { TokenMask(irregular: irregular.filter { !TokenMask.hasHexRun($0) }) }
    }

    /// Reads the state of the kept facts; facts never built (no kept_state, or one without
    /// facts_sql) are not fresh.
    public static func state(_ client: ClickHouseClient) throws -> State {
        let db = client.url.database
        let t: ResultTable
        do {
            t = try client.table(
                "kept",
                sql: """
                    SELECT fresh, lo, hi, n, token FROM (
                      SELECT (SELECT count() FROM `\(db)`.kept_state) = 1
                             AND (SELECT any(records_rows) FROM `\(db)`.kept_state) = (SELECT count() FROM `\(db)`.records)
                             AND (SELECT any(sources_version) FROM `\(db)`.kept_state) >= (SELECT max(version) FROM `\(db)`.sources)
                             AND (SELECT any(facts_sql) FROM `\(db)`.kept_state) = {facts:String} AS fresh, lo, hi, n,
                             (SELECT groupArray(token) FROM (SELECT token FROM `\(db)`.kept_irregular_tokens
                                                             ORDER BY length(token) DESC, token LIMIT 20000)) AS irregular
                      FROM `\(db)`.kept_data_span)
                    LEFT ARRAY JOIN irregular AS token
                    """, params: ["facts": fingerprint])
        } catch let e as ClickHouseError where e.code == unknownTable || e.code == unknownIdentifier {
            return State(fresh: false, span: nil, irregular: [])
        }
        guard let first = t.rows.first, case .int(let ok) = first[0] else { return State(fresh: false, span: nil, irregular: []) }
        var span: (Int64, Int64)?
        if case .int(let lo) = first[1], case .int(let hi) = first[2], case .int(let n) = first[3], n > 0 { span = (lo, hi) }
        var irregular: [String] = []
        for row in t.rows { if case .text(let s) = row[4], !s.isEmpty { irregular.append(s) } }
        return State(fresh: ok == 1, span: span, irregular: irregular)
    }

    /// ClickHouse's error codes for a table, and a column, that do not exist.
    static let unknownTable = 60
    static let unknownIdentifier = 47

    /// Rebuilds every kept table from the records (each replaced atomically), then kept_state
    /// with this binary's facts.sql fingerprint instead of the file's own ''.
    public static func refresh(_ client: ClickHouseClient) throws {
        let db = client.url.database
        for statement in ClickHouseQueries.factsStatements(database: db).dropLast() {
            _ = try client.execute(statement)
        }
        _ = try client.execute(
            "CREATE OR REPLACE TABLE `\(db)`.kept_state ENGINE = MergeTree ORDER BY tuple() AS "
                + "SELECT *, {facts:String} AS facts_sql FROM `\(db)`.kept_pending", params: ["facts": fingerprint])
    }

    /// Which facts.sql this binary builds with (a hash of the file).
    static let fingerprint: String = {
        let (a, b) = ClickHouseQueries.facts.withUnsafeBufferPointer { LineHash.hash($0) }
        return ClickHouseIngest.hex(UInt64(bitPattern: a)) + ClickHouseIngest.hex(UInt64(bitPattern: b))
    }()

    /// Rebuilds the facts when the records changed since they were built; their state after.
    @discardableResult
    public static func ensure(_ client: ClickHouseClient) throws -> State {
        let s = try state(client)
        if s.fresh { return s }
        try refresh(client)
        return try state(client)
    }
}
