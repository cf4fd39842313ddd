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
        return try statements[command]!.run(name, values, lists: lists)
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
        if let own = engine.definition(of: report), let sql = own.sections.first(where: { $0.name == section })?.sql {
            return def.describe(try engine.section(section, sql: sql, parameters: engine.bindings(def, own, params)))
        }
        // The weekly page on ClickHouse computes its basics per week inside its KPIs; the
        // window's accepted share is metrics.sql's, the same ratio.
        guard report == "weekly", section == "basics" else { return nil }
        return try statement(
            "metrics", "accepted_share", ["since": .int(params.since ?? Int64.min), "until": .int(params.until ?? Int64.max)])
    }

    /// One statement, sent with `readonly=1` so the server refuses anything that writes or
    /// changes a setting (HTTP takes one statement at a time).
    public func query(_ sql: String) throws -> [ResultTable] {
        var statement = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        while statement.hasSuffix(";") { statement = String(statement.dropLast()).trimmingCharacters(in: .whitespacesAndNewlines) }
        // Only comments or blanks: no statement, as SQLite finds none in them.
        let lines = statement.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.contains(where: { !$0.isEmpty && !$0.hasPrefix("--") }) else { return [] }
        return [try client.table("result", sql: statement, settings: ["readonly": "1"])]
    }

    public func schemaTables() throws -> ResultTable { try statement("listings", "tables") }

    public func schemaTable(_ name: String) throws -> (title: String, columns: ResultTable)? {
        var t = try statement("listings", "columns", ["table": .text(name)])
        guard !t.rows.isEmpty else { return nil }
        t.name = name
        return ("\(client.url.database).\(name)", t)
    }
}
