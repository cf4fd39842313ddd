import PushLogKit

/// The engine a command reads: the ClickHouse server `--clickhouse` names, or the SQLite database.
/// The commands take it whole; nothing after this choice depends on which it is.
enum CommandEngines {
    /// What a command reads, which decides how its store is opened.
    enum Reads {
        /// Derived facts (trace, tokens, metrics): SQLite refuses a database whose facts are not
        /// complete; ClickHouse brings its kept facts up to date first.
        case facts
        /// The records and listings as they are (sources, rejects, query): SQLite opens a
        /// database whose first load has not finished too.
        case records
        /// The schema: nothing stored on SQLite (its tables are described in the binary).
        case schema
    }

    static func open(_ ctx: Context, reads: Reads) throws -> CommandEngine {
        if let url = ctx.clickhouse {
            return try ClickHouseCommandEngine(
                ClickHouseClient(url), readsKeptFacts: reads == .facts, rebuilding: reads == .facts ? Console.factsRebuildNotice : nil)
        }
        switch reads {
        case .facts: return SQLiteCommandEngine(db: try Store.openForReading(path: ctx.dbPath))
        case .records: return SQLiteCommandEngine(db: try Store.openForReading(path: ctx.dbPath, unfinished: true))
        case .schema: return SQLiteCommandEngine(db: nil)
        }
    }
}

extension OutputTarget {
    /// Writes `doc` with the engine's tokens masked, unless `--reveal-tokens`.
    func write(_ doc: ResultDocument, engine: CommandEngine) throws {
        try write(doc, db: nil, mask: revealTokens ? nil : try engine.tokenMask())
    }
}
