extension TokenMask {
    /// The mask for output from a ClickHouse server read from its records: the tokens there that
    /// the hex-run rule would not catch (malformed, masked or short ones), as `init(db:)` reads
    /// them from SQLite, so rows newer than the kept facts are masked too. (Commands on the kept
    /// facts take the kept list: `ClickHouseFacts.State.mask`.)
    public init(clickhouse client: ClickHouseClient) throws {
        let db = client.url.database
        let t = try client.table(
            "irregular",
            sql: """
                SELECT DISTINCT token FROM `\(db)`.records
                WHERE (token_malformed = 1 OR token_masked = 1 OR length(token) < 32) AND length(token) >= 4
                ORDER BY length(token) DESC, token LIMIT 20000
                """)
        var found: [String] = []
        for row in t.rows { if case .text(let s) = row[0], !TokenMask.hasHexRun(s) { found.append(s) } }
        self.init(irregular: found)
    }
}
