/// Where a report's SQL runs when it is not the SQLite store: the engine has its own dialect of
/// each report (same sections, columns and labels), runs a report's sections with its parameters
/// bound by name, and returns result tables. Everything after that (bucket fill,
/// `--compare`, masking, `--fail-if`, the renderers) is the same code for every engine
/// (`EngineReportRunner`).
public protocol ReportEngine: Sendable {
    /// What messages call the engine (`ClickHouse at http://…`).
    var label: String { get }
    /// The engine's own version of a report, nil when it has none.
    func definition(of report: String) -> ReportDefinition?
    /// Runs one section's SQL; `parameters` holds every name the report binds (values as the
    /// SQLite path binds them: times in ms with ±9e15 for an open end, NULL for no filter).
    func section(_ name: String, sql: String, parameters: [String: SQLValue]) throws -> ResultTable
    /// Runs the sections of `report` with the same parameters; the tables come back in
    /// `sections`' order. An engine that serves several queries at once may run them at once.
    func sections(of report: String, _ sections: [(name: String, sql: String)], parameters: [String: SQLValue]) throws -> [ResultTable]
    /// The first and last record time (ms) of the data reports fill buckets over, nil when empty.
    func dataSpan() throws -> (Int64, Int64)?
    /// The latest send or registration time (ms), for the weekly report's default week.
    func latestRecord() throws -> Int64?
    /// True when [since, until) holds a record of the kinds `evidence` names (for responses, of
    /// `topic` and `env` when given), as the SQLite store's DataCoverage answers it.
    func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool
    /// How many of [since, until)'s records (responses of `topic` and `env` when given) carry what
    /// figures need, as the SQLite store's DataCoverage counts them.
    func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage
}
