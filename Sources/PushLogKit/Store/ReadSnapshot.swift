import CSQLite

extension Database {
    /// Runs `body` in one read transaction: every statement sees the same committed state (a
    /// report's sections and its KPIs agree while an ingest commits), and a first load whose rows
    /// are still staged (ClusteredTable) is refused in that same state; a check made once at opening
    /// would pass a `--watch` loop that started before the load.
    public func readSnapshot<T>(_ body: () throws -> T) throws -> T {
        try withoutReadOnlyGuard { try exec("BEGIN") }
        do {
            if try ClusteredTable.unfinished(self) { throw StoreError.unfinishedIngest(path: path) }
            let result = try body()
            try withoutReadOnlyGuard { try exec("COMMIT") }
            return result
        } catch {
            try? withoutReadOnlyGuard { try exec("ROLLBACK") }
            throw error
        }
    }
}

extension Database {
    /// A second read-only connection that sees the same committed state as this one, so a
    /// report's independent sections can run on the other core; nil when that cannot be
    /// guaranteed (a pushlog writer is running: the sections then run here, one after another).
    /// Without SQLite's snapshot API, both read transactions start again while no writer can
    /// commit: call inside `readSnapshot`, before reading anything whose result must agree.
    func companionReader() throws -> Database? {
        guard sqlite3_get_autocommit(handle) == 0 else { return nil }  // no snapshot to share
        let pair = try WriterLock.whileNoWriter(databasePath: path) { () throws -> Database in
            let other = try Store.openForReading(path: path)
            try withoutReadOnlyGuard { try exec("COMMIT; BEGIN") }
            try other.withoutReadOnlyGuard { try other.exec("BEGIN") }
            // A read transaction takes its snapshot at its first read, not at BEGIN.
            _ = try scalarInt("SELECT count(*) FROM sqlite_master")
            _ = try other.scalarInt("SELECT count(*) FROM sqlite_master")
            return other
        }
        if try ClusteredTable.unfinished(self) { throw StoreError.unfinishedIngest(path: path) }
        return pair
    }

    /// Ends a companion's read transaction (its connection closes when released).
    func endCompanion() {
        try? withoutReadOnlyGuard { try exec("COMMIT") }
    }
}
