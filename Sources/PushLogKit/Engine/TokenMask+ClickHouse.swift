extension TokenMask {
    /// The mask for output from a ClickHouse server: the tokens there that the hex-run rule would
    /// not catch (malformed, masked or short ones), as `init(db:)` reads them from SQLite. With
    /// `keptFacts` (a report, whose facts were just checked to match the records) from the kept
    /// list; otherwise from the records themselves, so rows newer than the facts are masked too.
    public init(clickhouse client: ClickHouseClient, keptFacts: Bool = false) throws {
        let db = client.url.database
        let t = try client.table(
            "irregular",
            sql: keptFacts
                ? "SELECT token FROM `\(db)`.kept_irregular_tokens ORDER BY length(token) DESC, token LIMIT 20000"
                : """
                SELECT DISTINCT token FROM `\(db)`.records
                WHERE (token_malformed = 1 OR token_masked = 1 OR length(token) < 32) AND length(token) >= 4
                ORDER BY length(token) DESC, token LIMIT 20000
                """)
        var found: [String] = []
        for row in t.rows { if case .text(let s) = row[0], !TokenMask.hasHexRun(s) { found.append(s) } }
        self.init(irregular: found)
    }
}
