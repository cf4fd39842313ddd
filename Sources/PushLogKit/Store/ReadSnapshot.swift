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
