import Foundation

/// The facts the reports read on ClickHouse (the `kept_*` tables of facts.sql): built from the
/// records after deduplication, so rebuilding them is always safe, and out of date as soon as
/// rows arrive. `kept_state` holds the raw row count and the newest `sources` row they were built
/// from; a report on facts older than the records rebuilds them first, so it never reads a
/// state that misses rows (a killed ingest, rows loaded by hand).
public enum ClickHouseFacts {
    /// True when the kept facts were built from the records as they are now.
    public static func fresh(_ client: ClickHouseClient) throws -> Bool {
        let db = client.url.database
        let exists = try client.table(
            "kept", sql: "SELECT count() FROM system.tables WHERE database = {db:String} AND name = 'kept_state'", params: ["db": db])
        guard case .int(1)? = exists.rows.first?.first else { return false }
        let t = try client.table(
            "kept",
            sql: """
                SELECT (SELECT count() FROM `\(db)`.kept_state) = 1
                   AND (SELECT any(records_rows) FROM `\(db)`.kept_state) = (SELECT count() FROM `\(db)`.records)
                   AND (SELECT any(sources_version) FROM `\(db)`.kept_state) >= (SELECT max(version) FROM `\(db)`.sources)
                """)
        guard case .int(let ok)? = t.rows.first?.first else { return false }
        return ok == 1
    }

    /// Rebuilds every kept table from the records (each replaced atomically).
    public static func refresh(_ client: ClickHouseClient) throws {
        for statement in ClickHouseQueries.factsStatements(database: client.url.database) {
            _ = try client.execute(statement)
        }
    }

    /// Rebuilds the facts when the records changed since they were built.
    public static func ensure(_ client: ClickHouseClient) throws {
        if try !fresh(client) { try refresh(client) }
    }
}
