/// Where a report's SQL runs: the SQLite store (`SQLiteEngine`) or a ClickHouse server
/// (`ClickHouseEngine`). An engine runs a report's sections with its parameters bound by name and
/// answers the few questions about the data the runner asks (its span, whether a range holds
/// records, what the records carry, which tokens to mask). Everything above it (bucket fill,
/// `--compare`, `--fail-if`, what columns need, masking, the KPI pages, rendering) is the one
/// `ReportRunner` for every engine.
public protocol ReportEngine: AnyObject {
    /// What messages call the engine (`ClickHouse at http://…`, the database file).
    var label: String { get }
    /// The engine's own version of a report (same sections, columns and labels), nil when the
    /// report's one text runs there.
    func definition(of report: String) -> ReportDefinition?
    /// The text of `report` this engine runs when it has no version of its own: the report as
    /// written, or what the engine makes of it; throws when it cannot run it at all.
    func sharedText(of report: ReportDefinition) throws -> ReportDefinition
    /// Runs each of `runs` and returns its sections' rows, in the runs' order, each run's tables
    /// in its sections' order. An engine that serves several queries at once may run them at once.
    /// `needs`: a range whose coverage (`needs(since:until:topic:env:)`) the caller will likely
    /// ask for next; an engine for which that is one more round trip may measure it alongside and
    /// return it, another returns nil.
    func run(_ runs: [SectionRun], needs: ReportParams?) throws -> (tables: [[ResultTable]], coverage: NeedCoverage?)
    /// Runs `body` so that everything it reads sees one state of the data (a report of `report`
    /// on `params`, so the engine can prepare what that run uses).
    func reading<T>(_ report: ReportDefinition, _ params: ReportParams, _ body: () throws -> T) throws -> T
    /// The first and last record time (ms) of the data reports fill buckets over, nil when empty.
    func dataSpan() throws -> (Int64, Int64)?
    /// The latest send or registration time (ms), for a KPI page's default week.
    func latestRecord() throws -> Int64?
    /// True when [since, until) holds a record of the kinds `evidence` names (for responses, of
    /// `topic` and `env` when given).
    func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool
    /// How many of [since, until)'s records (responses of `topic` and `env` when given) carry what
    /// figures need.
    func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage
    /// Why a report may come out empty (`DataCoverage.notes`), from what the engine knows.
    func coverageNotes(for params: ReportParams, report: ReportDefinition) throws -> [String]
    /// The tokens to mask in this engine's output besides those the hex-run rule catches.
    func tokenMask() throws -> TokenMask
}

/// One run of a report on an engine: the catalog's definition (parameters, defaults, what the
/// columns mean), the text the engine runs (its own version or the shared one), the parameters
/// with the report's defaults filled in, and the sections wanted (nil: all it prints).
public struct SectionRun: Sendable {
    let report: ReportDefinition
    let text: ReportDefinition
    let params: ReportParams
    let only: Set<String>?

    /// The sections of `text` this run prints, in order.
    var sections: [(name: String, sql: String)] {
        let skipBuckets = ReportRunner.bucketsOnlyWithBy(report) && params.by == nil
        return text.sections.filter { (only == nil || only!.contains($0.name)) && !(skipBuckets && $0.name == "by_bucket") }
    }
}
