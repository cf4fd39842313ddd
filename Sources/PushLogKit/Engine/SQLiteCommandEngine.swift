/// The commands besides `report` on the SQLite database: their statements are
/// SQLiteCommandQueries', run on its connection; reports through ReportRunner.
public final class SQLiteCommandEngine: CommandEngine {
    private let opened: Database?
    private let catalog: QueryCatalog?
    private var runner: ReportRunner?

    /// `catalog`: the reports `reportSection` runs (the built-in ones when nil). Without a
    /// database, only what needs none: the schema's tables.
    public init(db: Database?, catalog: QueryCatalog? = nil) {
        opened = db
        self.catalog = catalog
    }

    var db: Database {
        get throws {
            guard let opened else { throw CatalogError("no SQLite database opened") }
            return opened
        }
    }

    public func statement(_ command: String, _ name: String, _ values: [String: SQLValue], lists: [String: [String]]) throws
        -> ResultTable
    {
        guard let sql = SQLiteCommandQueries.statements[command]?[name] else {
            throw CatalogError("no SQLite statement \(name) of \(command)")
        }
        let s = try db.prepare(sql)
        // Each parameter the SQL names is given (a value, or a list as a JSON array); a statement
        // that names one nobody gave is refused rather than run with NULL.
        for i in stride(from: Int32(1), through: s.parameterCount, by: 1) {
            guard let param = s.parameterName(i).map({ String($0.dropFirst()) }) else { continue }
            if let list = lists[param] {
                s.bind(i, "[" + list.map(JSONRenderer.quote).joined(separator: ",") + "]")
                continue
            }
            switch values[param] {
            case nil: throw CatalogError("SQLite statement \(command).\(name) names :\(param), which was not given")
            case .null?: s.bindNull(i)
            case .int(let v)?: s.bind(i, v)
            case .double(let v)?: s.bind(i, v)
            case .text(let v)?: s.bind(i, v)
            }
        }
        return try ResultTable.from(s, name: name)
    }

    /// One read transaction: the figures of one call agree while an ingest commits.
    public func consistent<T>(_ body: () throws -> T) throws -> T { try (try db).readSnapshot(body) }

    public func tokenMask() throws -> TokenMask { TokenMask(db: opened) }

    public func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool {
        try DataCoverage(db: try db).hasRecords(since: since, until: until, evidence, topic: topic, env: env)
    }

    public func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage {
        try DataCoverage(db: try db).needs(since: since, until: until, topic: topic, env: env)
    }

    public func reportSection(_ report: String, _ section: String, params: ReportParams) throws -> ResultTable? {
        if runner == nil { runner = try ReportRunner(db: try db, catalog: catalog) }
        guard let runner, let def = runner.catalog.report(report) else { return nil }
        return try runner.run(def, params: params, only: [section]).section(section)
    }

    /// Each statement of `sql` is its own table: `result` for one, `result_1`, `result_2`, … for several.
    public func query(_ sql: String) throws -> [ResultTable] {
        let statements: [Statement]
        let db = try self.db
        do { statements = try db.prepareEach(sql) } catch let e as StoreError where !e.isFileFault {
            throw QueryError(message: e.message + SQLiteCommandEngine.hint(for: e.message))
        }
        var tables: [ResultTable] = []
        for (k, s) in statements.enumerated() {
            let name = statements.count == 1 ? "result" : "result_\(k + 1)"
            do { tables.append(try ResultTable.from(s, name: name)) } catch let e as StoreError where !e.isFileFault {
                throw QueryError(message: "statement \(k + 1): \(e.message)")
            }
        }
        return tables
    }

    /// What an SQLite error about a query usually means here.
    static func hint(for message: String) -> String {
        if message.contains("not authorized") {
            return " (query is read-only: no writes, ATTACH, extensions or pragmas that change settings)"
        }
        if message.contains("no such column") || message.contains("no such table") {
            // Names of schema versions 1-3, which older notes and scripts use.
            return " (pushlog schema lists the tables, views and columns; since schema version 4 the record tables hold ids"
                + " — topic_id, env_id, device_id, … — and time_ms, line_hash, source_id; the *_v views, e.g. sends_v, have the names)"
        }
        return ""
    }

    /// The tables of Schema+Docs, with their meaning.
    public func schemaTables() throws -> ResultTable {
        var t = ResultTable(name: "tables", columns: ["table", "meaning", "columns"])
        t.rows = Schema.docs.map { [.text($0.name), .text($0.meaning), .text($0.columns.map(\.0).joined(separator: " "))] }
        return t
    }

    public func schemaTable(_ name: String) throws -> (title: String, columns: ResultTable)? {
        guard let doc = Schema.docs.first(where: { $0.name == name.lowercased() }) else { return nil }
        var t = ResultTable(name: doc.name, columns: ["column", "meaning"])
        t.rows = doc.columns.map { [.text($0.0), .text($0.1)] }
        return ("\(doc.name): \(doc.meaning)", t)
    }
}
