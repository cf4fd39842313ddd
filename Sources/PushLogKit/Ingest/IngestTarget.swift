import Foundation

/// Where an ingest's records go: the one part of an ingest that differs between the engines.
/// Reading, parsing, identity and duplicates, resume and occurrence numbering, the summary and
/// `--follow` (`Follower`) are the same code above it; SQLite (`SQLiteIngest`, the `Ingester`
/// of one run) and a ClickHouse server (`ClickHouseIngest`) each store what it read.
protocol IngestTarget: AnyObject {
    /// One run over files already expanded (whether each was named on the command line is kept).
    func run(files: [InputFile], problems: [String]) throws -> IngestSummary
    /// A followed file renamed away (logrotate's default): its source goes on under `moved`,
    /// unless a source of that name exists.
    func moveSource(from path: String, to moved: String) throws
    /// The follow ends; `added` when a round stored records.
    func followEnded(added: Bool) throws
}

/// The SQLite target: each run is an `Ingester` of its own (it decides per run whether the run
/// is a bulk load and which derived facts to refresh).
final class SQLiteIngest: IngestTarget {
    let db: Database
    let options: IngestOptions

    init(db: Database, options: IngestOptions) {
        self.db = db
        self.options = options
    }

    func run(files: [InputFile], problems: [String]) throws -> IngestSummary {
        try Ingester(db: db, options: options).run(files: files, problems: problems)
    }

    func moveSource(from path: String, to moved: String) throws { try SourceRows.move(db, from: path, to: moved) }

    /// Each round committed its records with their derived facts.
    func followEnded(added: Bool) throws {}
}
