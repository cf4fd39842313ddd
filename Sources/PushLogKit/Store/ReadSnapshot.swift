import CSQLite

extension Database {
    /// Runs `body` in one read transaction: every statement sees the same committed state (a
    /// report's sections and its KPIs agree while an ingest commits), and a first load whose rows
    /// are still staged (ClusteredTable) is refused in that same state; a check made once at opening
    /// would pass a `--watch` loop that started before the load.
    ///
    /// With `lanes`, a second read-only connection (`companion`, for ReportLanes) begins its read
    /// transaction on the same committed state as this one (`beginTogether`), whether or not a
    /// writer runs. When it cannot (a statement of this connection is still stepping, or commits
    /// kept falling between the two), there is no companion and a report runs on this connection
    /// alone, with the same figures.
    public func readSnapshot<T>(lanes: Bool = false, _ body: () throws -> T) throws -> T {
        // Not while a statement of this connection is still stepping: its read stays open and
        // BEGIN keeps that older snapshot, which a new connection could not share.
        let other =
            lanes && companion == nil && !hasStatementInProgress
            ? try? Store.openForReading(path: path, unfinished: true, immutable: immutable) : nil
        if let other {
            companion = try beginTogether(with: other)
        } else {
            try withoutReadOnlyGuard { try exec("BEGIN") }
        }
        do {
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

    /// How many times `beginTogether` lets a commit fall between its two reads before it gives up
    /// the second lane: an ingest commits about once a second, and the window is microseconds.
    static let snapshotTries = 8

    /// Begins this connection's read transaction and `other`'s on one committed state, and returns
    /// `other` (nil when they could not be made to agree; this one's transaction is open either
    /// way). SQLite here has no snapshot API, so the proof is its data version: `other` reads it
    /// before this connection's snapshot is taken and again inside its own, taken after. SQLite
    /// changes a connection's data version whenever another connection committed since its last
    /// read, so an equal value means no commit fell between the two snapshots: they are one state.
    /// No lock file is involved, so a copied database and one a writer is filling get both lanes.
    private func beginTogether(with other: Database) throws -> Database? {
        for _ in 0..<Database.snapshotTries {
            guard let before = try? other.dataVersion() else { break }
            try withoutReadOnlyGuard { try exec("BEGIN") }
            try startReading()
            betweenSnapshots?()
            let agreed = try? other.withoutReadOnlyGuard { () throws -> Bool in
                try other.exec("BEGIN")
                try other.startReading()
                if try other.dataVersion() == before { return true }
                try other.exec("ROLLBACK")
                return false
            }
            if agreed == true { return other }
            if agreed == nil { try? other.withoutReadOnlyGuard { try other.exec("ROLLBACK") } }
            try withoutReadOnlyGuard { try exec("ROLLBACK") }
        }
        try withoutReadOnlyGuard { try exec("BEGIN") }
        return nil
    }

    /// SQLite's `PRAGMA data_version`: inside a read transaction, the value as of its snapshot.
    private func dataVersion() throws -> Int64? {
        try withoutReadOnlyGuard { try scalarInt("PRAGMA data_version") }
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
