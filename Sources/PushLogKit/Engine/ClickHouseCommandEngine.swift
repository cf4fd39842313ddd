import Foundation

/// The commands besides `report` on a ClickHouse server: their statements are the sections of
/// Queries/clickhouse/{trace,tokens,metrics,listings}.sql, run with ClickHouse query parameters.
/// The commands that read the kept facts (trace, tokens, metrics) take the engine that brings them
/// up to date first; the listings and ad-hoc SQL read the server as it is.
public final class ClickHouseCommandEngine: CommandEngine {
    let client: ClickHouseClient
    /// The report engine over the kept facts, made when first needed (`keptFacts`).
    private var reports: ClickHouseEngine?
    private let rebuilding: (@Sendable (String) -> Void)?
    private var statements: [String: ClickHouseStatements] = [:]

    /// `readsKeptFacts`: check the kept facts now (rebuilding them, with `rebuilding`'s notice, when
    /// the records changed since), as the commands that read them need before their first row.
    public init(_ client: ClickHouseClient, readsKeptFacts: Bool, rebuilding: (@Sendable (String) -> Void)? = nil) throws {
        self.client = client
        self.rebuilding = rebuilding
        if readsKeptFacts { _ = try keptFacts() }
    }

    func keptFacts() throws -> ClickHouseEngine {
        if let reports { return reports }
        let made = try ClickHouseEngine(client, rebuilding: rebuilding)
        reports = made
        return made
    }

    public func statement(_ command: String, _ name: String, _ values: [String: SQLValue], lists: [String: [String]]) throws
        -> ResultTable
    {
        if statements[command] == nil { statements[command] = try ClickHouseStatements(client, command: command) }
        return try sayingWhatIsMissing { try statements[command]!.run(name, values, lists: lists) }
    }

    /// `body`, unless it fails on a table or database that is not there because pushlog never
    /// made it: then the line that says what to run first (`requireRecords`), as every command
    /// gets on SQLite for a missing database, not the server's words about a table.
    func sayingWhatIsMissing<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as ClickHouseError
            where e.code == ClickHouseFacts.unknownTable || e.code == ClickHouseFacts.unknownDatabase
        {
            try ClickHouseFacts.requireRecords(client)
            throw e
        }
    }

    public func consistent<T>(_ body: () throws -> T) throws -> T { try body() }

    /// The kept irregular tokens once the facts are read; else those of the records themselves.
    public func tokenMask() throws -> TokenMask {
        if let reports { return try reports.facts.mask }
        return TokenMask(irregular: try strings("listings", "irregular_tokens").filter { !TokenMask.hasHexRun($0) })
    }

    public func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool {
        try keptFacts().hasRecords(since: since, until: until, evidence, topic: topic, env: env)
    }

    public func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage {
        try keptFacts().needs(since: since, until: until, topic: topic, env: env)
    }

    private var catalog: QueryCatalog?

    /// The ClickHouse report's own section, bound as the report runner binds it, so a gauge and
    /// its report agree on each engine.
    public func reportSection(_ report: String, _ section: String, params: ReportParams) throws -> ResultTable? {
        let engine = try keptFacts()
        if catalog == nil { catalog = try QueryCatalog() }
        guard let catalog, let def = catalog.report(report) else { return nil }
        guard let own = engine.definition(of: report), let sql = own.sections.first(where: { $0.name == section })?.sql else {
            return nil
        }
        return def.describe(try engine.section(section, sql: sql, parameters: engine.bindings(def, own, params)))
    }

    /// One statement, sent with `readonly=1` so the server refuses anything that writes or
    /// changes a setting (HTTP takes one statement at a time).
    public func query(_ sql: String) throws -> [ResultTable] {
        var statement = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        while statement.hasSuffix(";") { statement = String(statement.dropLast()).trimmingCharacters(in: .whitespacesAndNewlines) }
        // Only comments or blanks: no statement, as SQLite finds none in them.
        let lines = statement.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.contains(where: { !$0.isEmpty && !$0.hasPrefix("--") }) else { return [] }
        return [try sayingWhatIsMissing { try client.table("result", sql: statement, settings: ["readonly": "1"]) }]
    }

    /// The database's tables and views as SQLite's `schema` lists its own (table, meaning,
    /// columns): the shared relations first, with the meaning they have on both engines, then
    /// the rest by name, each meaning its engine (and the table's comment, if it has one).
    public func schemaTables() throws -> ResultTable {
        let found = try statement("listings", "tables")
        guard let name = found.column("table"), let engine = found.column("engine"), let columns = found.column("columns"),
            let comment = found.column("comment")
        else { return found }
        var t = ResultTable(name: "tables", columns: ["table", "meaning", "columns"])
        for row in found.rows {
            let table = CellFormat.plain(row[name])
            let meaning =
                Self.sharedDoc(table)?.meaning
                ?? ([CellFormat.plain(row[engine])] + [CellFormat.plain(row[comment])])
                .filter { !$0.isEmpty }.joined(separator: ": ")
            t.rows.append([row[name], .text(meaning), row[columns]])
        }
        let order = Dictionary(uniqueKeysWithValues: Schema.sharedRelations.enumerated().map { ($1, $0) })
        t.rows = t.rows.enumerated().sorted { a, b in
            (order[CellFormat.plain(a.1[0])] ?? order.count, a.0) < (order[CellFormat.plain(b.1[0])] ?? order.count, b.0)
        }.map(\.1)
        return t
    }

    /// One table's columns (column, meaning) as SQLite's `schema TABLE` gives them: a shared
    /// relation's meanings are the ones it has on both engines; another's its comment, else its type.
    public func schemaTable(_ name: String) throws -> (title: String, columns: ResultTable)? {
        let found = try statement("listings", "columns", ["table": .text(name)])
        guard !found.rows.isEmpty, let column = found.column("column"), let type = found.column("type"),
            let comment = found.column("meaning")
        else { return nil }
        let doc = Self.sharedDoc(name)
        let meanings = Dictionary(doc?.columns ?? [], uniquingKeysWith: { a, _ in a })
        var t = ResultTable(name: name, columns: ["column", "meaning"])
        t.rows = found.rows.map { row in
            let c = CellFormat.plain(row[column]), said = CellFormat.plain(row[comment])
            return [row[column], .text(meanings[c] ?? (said.isEmpty ? CellFormat.plain(row[type]) : said))]
        }
        let engine = try schemaTables().rows.first { CellFormat.plain($0[0]) == name }.map { CellFormat.plain($0[1]) }
        return ("\(name): \(doc?.meaning ?? engine ?? client.url.database)", t)
    }

    /// The SQLite store's description of a shared relation.
    static func sharedDoc(_ name: String) -> Schema.TableDoc? {
        Schema.sharedRelations.contains(name) ? Schema.docs.first { $0.name == name } : nil
    }
}
