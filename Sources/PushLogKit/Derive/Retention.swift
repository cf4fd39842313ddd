/// Deletes old records (retention) and keeps the derived facts consistent.
public enum Retention {
    /// How many records of each table have a time before `t` (what `prune` would delete).
    public static func count(_ db: Database, before t: Int64) throws -> [(String, Int64)] {
        try ["sends", "registers", "settings", "receipts", "unregisters"].map { table in
            let s = try db.prepare("SELECT count(*) FROM \(table) WHERE time_ms < ?1")
            s.bind(1, t)
            _ = try s.step()
            return (table, s.int(0))
        }
    }

    /// Deletes records with a time before `t`; returns how many went.
    public static func prune(_ db: Database, before t: Int64, vacuum: Bool) throws -> Int {
        var n = 0
        try db.exec("BEGIN IMMEDIATE")
        do {
            // Checked under the writer's lock: staged rows would escape the prune and come back.
            if try ClusteredTable.unfinished(db) { throw StoreError.unfinishedIngest(path: db.path) }
            for table in ["sends", "registers", "settings", "receipts", "unregisters"] {
                let s = try db.prepare("DELETE FROM \(table) WHERE time_ms < ?1")
                s.bind(1, t)
                try s.run()
                n += db.changes
            }
            try db.exec(
                "DELETE FROM tokens WHERE id NOT IN (SELECT token_id FROM sends WHERE token_id IS NOT NULL UNION SELECT token_id FROM registers UNION SELECT token_id FROM unregisters UNION SELECT token_id FROM receipts WHERE token_id IS NOT NULL)"
            )
            try Derived.refresh(db)
            try db.exec("COMMIT")
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
        if vacuum { try db.exec("VACUUM") }
        return n
    }
}
