import Foundation

/// The ClickHouse SQL of Queries/clickhouse (compiled in as ClickHouseSQL): the ClickHouse
/// versions of the catalog's reports (a file named as a built-in report), the schema they read and
/// the statements of the other commands.
enum ClickHouseQueries {
    static func file(_ name: String) -> [UInt8] { Array((ClickHouseSQL.files[name] ?? "").utf8) }
    static let reports: [String: [UInt8]] = ClickHouseSQL.files.filter { BuiltInQueries.files[$0.key] != nil }.mapValues { Array($0.utf8) }
    static let schema = file("schema")
    /// The relations a report written once reads (SQLite's record views), created with the schema.
    static let relations = file("relations")
    static let facts = file("facts")
    static let touched = file("touched")

    /// The files name their tables `pushlog.NAME`; a server whose database has another name
    /// (the URL's path) gets that name instead. The name is checked to be an identifier.
    static func qualified(_ sql: String, database: String) -> String {
        database == "pushlog" ? sql : sql.replacingOccurrences(of: "pushlog.", with: "`\(database)`.")
    }

    /// The schema's statements, then the shared relations', one per request (HTTP takes one
    /// statement at a time).
    static func schemaStatements(database: String) -> [String] {
        var sql = qualified(String(decoding: schema, as: UTF8.self), database: database)
        if database != "pushlog" {
            sql = sql.replacingOccurrences(
                of: "CREATE DATABASE IF NOT EXISTS pushlog;", with: "CREATE DATABASE IF NOT EXISTS `\(database)`;")
        }
        return statements(sql) + statements(qualified(String(decoding: relations, as: UTF8.self), database: database))
    }

    /// Table settings of recent ClickHouse releases that schema.sql uses: they tune merges and
    /// change no figure, so an older server, which refuses a setting it does not know, gets the
    /// table without them.
    static let newerSettings = ["merge_selector_base"]
    /// ClickHouse's error code for a setting it does not know.
    static let unknownSetting = 115

    /// The statement without its `, SETTING = value` for each of `newerSettings`.
    static func withoutNewerSettings(_ sql: String) -> String {
        newerSettings.reduce(sql) { sql, name in
            sql.replacingOccurrences(of: #",\s*\#(name)\s*=\s*[^,;\s]+"#, with: "", options: .regularExpression)
        }
    }

    /// The statements that rebuild the kept facts (facts.sql), in order.
    static func factsStatements(database: String) -> [String] {
        statements(qualified(String(decoding: facts, as: UTF8.self), database: database))
    }

    /// A statement of facts.sql, and the earlier statements it waits for.
    struct FactsStep: Sendable {
        /// What it creates (a table, view or function name), or the statement's start.
        let name: String
        let sql: String
        /// Indexes of the earlier steps that must be done before this one starts.
        let after: [Int]
        /// For a table facts.sql keeps per key (`/*kept per KEY: COLUMN*/`): the key (token, dkey
        /// or unit) and the column that holds it.
        var kept: (key: String, column: String)? {
            guard let m = Self.keptMark.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)) else { return nil }
            let text = sql as NSString
            return (text.substring(with: m.range(at: 1)), text.substring(with: m.range(at: 2)))
        }
        private static let keptMark = try! NSRegularExpression(pattern: #"/\*kept per (\w+): (\w+)\*/"#)

        /// The statements that bring a table kept per key up to date with what a load touched (the
        /// tables of touched.sql, suffixed with `run`): a copy of the table (its parts linked, not
        /// written again) without the touched keys' rows, those rows computed again by the same
        /// SELECT with its `/*+ … */` filters in force, and the copy swapped in by one atomic
        /// EXCHANGE, so a report reads the table before or after, never between. Nil for a step
        /// that is rebuilt whole.
        func keyByKey(database: String, run: String) -> [String]? {
            guard let kept,
                let m = Self.createHead.firstMatch(in: sql, range: NSRange(sql.startIndex..., in: sql)),
                let end = Range(m.range, in: sql)
            else { return nil }
            let select = ClickHouseQueries.touching(String(sql[end.upperBound...]), run: run, scoped: true)
            let table = "`\(database)`.`\(name)`"
            let copy = "`\(database)`.`\(name)_next_\(run)`"
            return [
                "CREATE TABLE \(copy) CLONE AS \(table)",
                // Done before the insert, whatever a user's profile says of waiting for deletes.
                "DELETE FROM \(copy) WHERE \(kept.column) IN `\(database)`.kept_touched_\(run)_\(kept.key) "
                    + "SETTINGS lightweight_deletes_sync = 2",
                "INSERT INTO \(copy) \(select)",
                "EXCHANGE TABLES \(table) AND \(copy)",
                "DROP TABLE \(copy)",
            ]
        }
        /// A kept table's CREATE up to the `AS` its SELECT follows: its name, engine and settings.
        private static let createHead = try! NSRegularExpression(pattern: #"\ACREATE OR REPLACE TABLE [^\n]*\n\s*SETTINGS [^\n]*? AS\s+"#)
    }

    /// facts.sql's or touched.sql's text for one run: the tables of touched.sql named with the
    /// run's suffix, and, when `scoped`, the `/*+ … */` filters to the touched keys in force.
    static func touching(_ sql: String, run: String, scoped: Bool) -> String {
        var s = sql.replacingOccurrences(of: "kept_touched_", with: "kept_touched_\(run)_")
            .replacingOccurrences(of: "kept_new", with: "kept_new_\(run)")
        if scoped {
            s = s.replacingOccurrences(of: #"/\*\+(.*?)\*/"#, with: "$1", options: .regularExpression)
        }
        return s
    }

    /// touched.sql's statements for one run, in order.
    static func touchedStatements(database: String, run: String) -> [String] {
        statements(touching(qualified(String(decoding: touched, as: UTF8.self), database: database), run: run, scoped: false))
    }

    /// The tables touched.sql creates for one run, to drop once it is over.
    static func touchedTables(database: String, run: String) -> [String] {
        ["kept_new_\(run)"] + ["dkey", "token", "unit"].map { "kept_touched_\(run)_\($0)" }
    }

    /// facts.sql's statements but the last (which stores the state, once all are done), each with
    /// the earlier ones it waits for, so that independent ones can run at once: the first (it
    /// notes the records' state before any is read), every function before it (a function may
    /// call another, so a statement can reach one it does not name), and every statement that
    /// creates a name it mentions. A statement that creates nothing waits for all before it, and
    /// all after it wait for it. So facts.sql names what a statement reads in its text (no table
    /// name built at run time), and reads only what was created before it.
    static func factsSteps(database: String) -> [FactsStep] {
        let creates = try! NSRegularExpression(pattern: #"^CREATE OR REPLACE (TABLE|VIEW|FUNCTION) (?:[`\w]+\.)?(\w+)"#)
        let word = try! NSRegularExpression(pattern: #"\w+"#)
        var steps: [FactsStep] = []
        var creator: [String: Int] = [:]
        var functions: [Int] = []
        var barrier: Int?
        for sql in factsStatements(database: database).dropLast() {
            let i = steps.count
            let text = sql as NSString
            guard let m = creates.firstMatch(in: sql, range: NSRange(location: 0, length: text.length)) else {
                steps.append(FactsStep(name: String(sql.prefix(while: { $0 != "\n" }).prefix(40)), sql: sql, after: Array(0..<i)))
                barrier = i
                continue
            }
            let name = text.substring(with: m.range(at: 2))
            let rest = NSRange(location: m.range.upperBound, length: text.length - m.range.upperBound)
            let mentioned = word.matches(in: sql, range: rest).compactMap { creator[text.substring(with: $0.range)] }
            var after = Set(mentioned).union(functions)
            if i > 0 { after.insert(0) }
            if let b = barrier { after.insert(b) }
            steps.append(FactsStep(name: name, sql: sql, after: after.sorted()))
            creator[name] = i
            if text.substring(with: m.range(at: 1)) == "FUNCTION" { functions.append(i) }
        }
        return steps
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
