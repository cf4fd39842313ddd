/// A record table clustered by what its readers look records up by (a token, an apns-id) rather
/// than by time, and the staging table a load into it goes through.
///
/// Rows that arrive in time order land at random places of such a table: each costs a page
/// written to the WAL at its batch's commit (on the benchmark corpus, the load took 2.5 times as
/// long). So a load into the empty table writes to `<name>_load`, keyed by the identity like the
/// time-ordered tables (rows are appended, duplicates caught as they come), and `moveStaged`
/// copies it into the table sorted by the table's key when the load ends, in the finalizing
/// transaction. A staging table exists only while its table is empty, so the identity check
/// against it is the whole check; a run killed mid-load leaves it for the next run to continue.
struct ClusteredTable: Sendable {
    let name: String
    /// The column definitions, identity first.
    let columns: String
    /// The primary key: the lookup column, then the identity.
    let key: String

    var ddl: String { "CREATE TABLE \(name)(\n\(columns),\nPRIMARY KEY(\(key))\n) WITHOUT ROWID;" }
    var stagingName: String { name + "_load" }
    var stagingDDL: String {
        "CREATE TABLE IF NOT EXISTS \(stagingName)(\n\(columns),\nPRIMARY KEY(time_ms, line_hash)\n) WITHOUT ROWID;"
    }

    static var all: [ClusteredTable] { [Schema.registers, Schema.receipts] }

    /// True when staging tables exist (a load is running, or ended before finalizing).
    static func staged(_ db: Database) throws -> Bool {
        let names = all.map { "'\($0.stagingName)'" }.joined(separator: ", ")
        return try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (\(names))") ?? 0 > 0
    }

    /// True when rows wait in staging tables: the tables readers use lack them.
    static func unfinished(_ db: Database) throws -> Bool {
        guard try staged(db) else { return false }
        return try all.contains { try db.scalarInt("SELECT 1 FROM \($0.stagingName) LIMIT 1") != nil }
    }

    /// Whether this run's writer stages: it continues a staged load, or it is a bulk load and the
    /// tables are all empty (small runs insert in place: their rows are few). Creates the staging
    /// tables when it starts one.
    static func prepareStaging(_ db: Database, bulk: Bool) throws -> Bool {
        if try !staged(db) {
            guard bulk else { return false }
            for t in all where try db.scalarInt("SELECT 1 FROM \(t.name) LIMIT 1") != nil { return false }
        }
        for t in all { try db.exec(t.stagingDDL) }
        return true
    }

    /// Moves staged rows into their tables in key order and drops the staging tables; inside
    /// the caller's transaction.
    static func moveStaged(_ db: Database) throws {
        guard try staged(db) else { return }
        for t in all {
            try PhaseTimer.measure("\(t.name) in key order") {
                try db.exec(
                    """
                    INSERT INTO \(t.name) SELECT * FROM \(t.stagingName) ORDER BY \(t.key);
                    DROP TABLE \(t.stagingName);
                    """)
            }
        }
    }
}
