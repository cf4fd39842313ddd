/// Where the commands besides `report` read (`trace`, `tokens`, `metrics`, `sources`, `rejects`,
/// `query`, `schema`): the SQLite database (`SQLiteCommandEngine`) or a ClickHouse server
/// (`ClickHouseCommandEngine`). A command's relations are named statements that each engine
/// writes in its own SQL (SQLiteCommandQueries; Queries/clickhouse), with the same columns, order
/// and meaning; what a command does with the rows (resolving a trace key, merging token kinds,
/// masking, the messages) is written once, above this seam.
public protocol CommandEngine {
    /// Runs statement `name` of `command`: `values` bound by name, `lists` as lists of text.
    func statement(_ command: String, _ name: String, _ values: [String: SQLValue], lists: [String: [String]]) throws -> ResultTable
    /// Runs `body` on one consistent state of the records (one read snapshot where the engine has them).
    func consistent<T>(_ body: () throws -> T) throws -> T
    /// The mask for output of this engine: its tokens that the hex-run rule would not catch.
    func tokenMask() throws -> TokenMask
    /// True when [since, until) holds a record of the kinds `evidence` names (DataCoverage's answer).
    func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool
    /// How many of [since, until)'s records carry what figures need (DataCoverage's count).
    func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage
    /// One section of a report's run on `params`, as that report prints it; nil when there is none.
    func reportSection(_ report: String, _ section: String, params: ReportParams) throws -> ResultTable?
    /// Ad-hoc read-only SQL: one table per statement, none when the text holds no statement.
    /// Errors in the SQL are `QueryError`s.
    func query(_ sql: String) throws -> [ResultTable]
    /// The tables and views meant for ad-hoc SQL: one row each, its name first.
    func schemaTables() throws -> ResultTable
    /// One of them with its columns and a title, nil when there is no such table.
    func schemaTable(_ name: String) throws -> (title: String, columns: ResultTable)?
}

extension CommandEngine {
    /// Runs statement `name` of `command` with `values` bound by name.
    public func statement(_ command: String, _ name: String, _ values: [String: SQLValue] = [:]) throws -> ResultTable {
        try statement(command, name, values, lists: [:])
    }

    /// The first column's text values of statement `name` of `command`.
    public func strings(_ command: String, _ name: String, _ values: [String: SQLValue] = [:], lists: [String: [String]] = [:]) throws
        -> [String]
    {
        try statement(command, name, values, lists: lists).rows.compactMap { if case .text(let s) = $0.first { s } else { nil } }
    }

    /// The integer in the first row and column of statement `name` of `command` (0 when none).
    public func count(_ command: String, _ name: String, _ values: [String: SQLValue] = [:]) throws -> Int64 {
        guard case .int(let n)? = try statement(command, name, values).rows.first?.first else { return 0 }
        return n
    }
}

/// An ad-hoc query the engine could not run, with what it said (and, where it helps, a hint).
public struct QueryError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
