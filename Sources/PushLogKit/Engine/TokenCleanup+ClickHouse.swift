extension TokenCleanup {
    /// `tokens` on a ClickHouse server: each kind's statement of Queries/clickhouse/tokens.sql
    /// (the kept facts), merged as on SQLite. Tokens are in full: the caller masks them.
    public static func run(on client: ClickHouseClient, _ kinds: Set<Kind>, since: Int64? = nil) throws -> ResultDocument {
        let statements = try ClickHouseStatements(client, command: "tokens")
        return try document(kinds, since: since) { try statements.run($0.rawValue, ["since": .int(since ?? Int64.min)]) }
    }
}
