import Foundation

/// The facts the reports read on ClickHouse (the `kept_*` tables of facts.sql): built from the
/// records after deduplication, so rebuilding them is always safe, and out of date as soon as
/// rows arrive. `kept_state` holds the raw row count and the newest `sources` row they were built
/// from, and the fingerprint of the facts.sql that built them; a report on facts older than the
/// records, or built by another version of facts.sql, rebuilds them first, so it never reads a
/// state that misses rows (a killed ingest, rows loaded by hand) or tables.
public enum ClickHouseFacts {
    /// True when the kept facts were built from the records as they are now.
    public static func fresh(_ client: ClickHouseClient) throws -> Bool {
        let db = client.url.database
        let exists = try client.table(
            "kept", sql: "SELECT count() FROM system.columns WHERE database = {db:String} AND table = 'kept_state' AND name = 'facts_sql'",
            params: ["db": db])
        guard case .int(1)? = exists.rows.first?.first else { return false }
        let t = try client.table(
            "kept",
            sql: """
                SELECT (SELECT count() FROM `\(db)`.kept_state) = 1
                   AND (SELECT any(records_rows) FROM `\(db)`.kept_state) = (SELECT count() FROM `\(db)`.records)
                   AND (SELECT any(sources_version) FROM `\(db)`.kept_state) >= (SELECT max(version) FROM `\(db)`.sources)
                   AND (SELECT any(facts_sql) FROM `\(db)`.kept_state) = {facts:String}
                """, params: ["facts": fingerprint])
        guard case .int(let ok)? = t.rows.first?.first else { return false }
        return ok == 1
    }

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

    /// Rebuilds the facts when the records changed since they were built.
    public static func ensure(_ client: ClickHouseClient) throws {
        if try !fresh(client) { try refresh(client) }
    }
}
