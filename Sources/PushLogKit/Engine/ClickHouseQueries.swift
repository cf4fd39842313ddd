/// The ClickHouse dialect of the catalog's reports and the schema they read (Queries/clickhouse,
/// linked here as ch-*.sql so their resource names differ from the SQLite reports').
enum ClickHouseQueries {
    static let reports: [String: [UInt8]] = [
        "churn": PackageResources.ch_churn_sql,
        "env-mismatch": PackageResources.ch_env_mismatch_sql,
        "errors": PackageResources.ch_errors_sql,
        "gone": PackageResources.ch_gone_sql,
        "hygiene": PackageResources.ch_hygiene_sql,
        "opt-out": PackageResources.ch_opt_out_sql,
        "reconcile": PackageResources.ch_reconcile_sql,
        "silent": PackageResources.ch_silent_sql,
        "weekly": PackageResources.ch_weekly_sql,
    ]
    static let schema: [UInt8] = PackageResources.ch_schema_sql
    static let facts: [UInt8] = PackageResources.ch_facts_sql

    /// The files name their tables `pushlog.NAME`; a server whose database has another name
    /// (the URL's path) gets that name instead. The name is checked to be an identifier.
    static func qualified(_ sql: String, database: String) -> String {
        database == "pushlog" ? sql : sql.replacingOccurrences(of: "pushlog.", with: "`\(database)`.")
    }

    /// The schema's statements, one per request (HTTP takes one statement at a time).
    static func schemaStatements(database: String) -> [String] {
        var sql = qualified(String(decoding: schema, as: UTF8.self), database: database)
        if database != "pushlog" {
            sql = sql.replacingOccurrences(
                of: "CREATE DATABASE IF NOT EXISTS pushlog;", with: "CREATE DATABASE IF NOT EXISTS `\(database)`;")
        }
        return statements(sql)
    }

    /// The statements that rebuild the kept facts (facts.sql), in order.
    static func factsStatements(database: String) -> [String] {
        statements(qualified(String(decoding: facts, as: UTF8.self), database: database))
    }

    /// A file's statements, comments dropped.
    static func statements(_ sql: String) -> [String] {
        let lines = sql.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let r = line.range(of: "--") else { return line }
            return line[..<r.lowerBound]
        }
        return lines.joined(separator: "\n").components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }
}
