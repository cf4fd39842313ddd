import CSQLite

extension Database {
    /// Runs `body` in one read transaction: every statement sees the same committed state (a
    /// report's sections and its KPIs agree while an ingest commits), and a first load whose rows
    /// are still staged (ClusteredTable) is refused in that same state; a check made once at opening
    /// would pass a `--watch` loop that started before the load.
    ///
    /// With `lanes`, a second read-only connection is opened first, and both read transactions
    /// begin together (`companion`, for ReportLanes). SQLite here has no snapshot API, so they
    /// begin while a shared lock on `DB.lock` shows that no pushlog writer runs: no commit can
    /// fall between them. Without that lock (a writer holds it, or there is no `DB.lock`) there is
    /// no companion, and a report runs on this connection alone.
    public func readSnapshot<T>(lanes: Bool = false, _ body: () throws -> T) throws -> T {
        // Opened before the lock, so the lock is held only while the two transactions begin. Not
        // while a statement of this connection is still stepping: its read stays open and BEGIN
        // keeps that older snapshot.
        let other =
            lanes && companion == nil && !hasStatementInProgress
            ? try? Store.openForReading(path: path, unfinished: true, immutable: immutable) : nil
        try withoutReadOnlyGuard { try exec("BEGIN") }
        do {
            if let other {
                companion =
                    try WriterLock.whileNoWriter(databasePath: path) { () throws -> Database? in
                        try startReading()
                        return try? other.withoutReadOnlyGuard { () throws -> Database in
                            try other.exec("BEGIN")
                            try other.startReading()
                            return other
                        }
                    } ?? nil
            }
            defer { endCompanion() }
            if try ClusteredTable.unfinished(self) { throw StoreError.unfinishedIngest(path: path) }
            let result = try body()
            try withoutReadOnlyGuard { try exec("COMMIT") }
            return result
        } catch {
            try? withoutReadOnlyGuard { try exec("ROLLBACK") }
            throw error
        }
    }

    /// Whether a statement of this connection has stepped and not been reset or finalized.
    private var hasStatementInProgress: Bool {
        var s = sqlite3_next_stmt(handle, nil)
        while let stmt = s {
            if sqlite3_stmt_busy(stmt) != 0 { return true }
            s = sqlite3_next_stmt(handle, stmt)
        }
        return false
    }

    /// A read transaction takes its snapshot at its first read, not at BEGIN.
    private func startReading() throws {
        _ = try scalarInt("SELECT count(*) FROM sqlite_master")
    }

    private func endCompanion() {
        guard let other = companion else { return }
        try? other.withoutReadOnlyGuard { try other.exec("COMMIT") }
        companion = nil
    }
}
