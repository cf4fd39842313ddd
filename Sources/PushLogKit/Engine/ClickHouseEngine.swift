import Foundation
import Synchronization

/// Reports on a ClickHouse server, run over HTTP with ClickHouse query parameters
/// (`{since:DateTime64(3)}`) that carry every value; the SQL text is never built from a value. A
/// built-in report with a ClickHouse version runs it (Queries/clickhouse, built into the binary);
/// a report written once (a user's, or a built-in one without such a version) runs as written,
/// its `:name` parameters made `{name:Type}` placeholders from its header's types, over the
/// relations relations.sql gives SQLite's names and columns.
public final class ClickHouseEngine: ReportEngine {
    public let client: ClickHouseClient
    let reports: [String: ReportDefinition]
    /// The check of the kept facts against the records (rebuilding them when out of date).
    private let check: FactsCheck

    /// The kept facts as this engine found them (rebuilt first when out of date): their span and
    /// irregular tokens are read once, with the check, not per report. A later round (`--watch`)
    /// takes a new engine.
    public var facts: ClickHouseFacts.State { get throws { try check.result().state } }

    /// Rebuilds the kept facts first when the records changed since they were built
    /// (ClickHouseFacts), so every report reads facts that match the records. `overlapping`: the
    /// check runs while the first report's sections go out, which run again in the rare case it
    /// rebuilt the facts (a round trip less per report); for callers whose every read of the kept
    /// facts goes through `sections` or waits for `facts`.
    /// `rebuilding` is called before the facts are brought up to date, with the notice that says
    /// how, on the check's thread.
    public init(_ client: ClickHouseClient, overlapping: Bool = false, rebuilding: (@Sendable (String) -> Void)? = nil) throws {
        self.client = client
        check = FactsCheck(client, rebuilding: rebuilding ?? { _ in })
        if !overlapping { _ = try check.result() }
        var defs: [String: ReportDefinition] = [:]
        for (name, bytes) in ClickHouseQueries.reports {
            let text = ClickHouseQueries.qualified(String(decoding: bytes, as: UTF8.self), database: client.url.database)
            defs[name] = try ReportDefinition.parse(name: name, text: text, origin: "built-in")
        }
        reports = defs
    }

    public var label: String { "ClickHouse at \(client.url)" }

    public func definition(of report: String) -> ReportDefinition? { reports[report] }

    public func section(_ name: String, sql: String, parameters: [String: SQLValue], settings: [String: String] = [:]) throws
        -> ResultTable
    {
        try client.table(name, sql: sql, params: ClickHouseEngine.parameters(of: sql, parameters), settings: settings)
    }

    /// The values of the placeholders in `sql`, as their types' text.
    static func parameters(of sql: String, _ values: [String: SQLValue]) -> [String: String] {
        var params: [String: String] = [:]
        for (param, type) in placeholders(sql) { params[param] = text(values[param] ?? .null, as: type) }
        return params
    }

    /// A report written once (a user's, or a built-in one without a ClickHouse version) runs its
    /// one text, its parameters as typed placeholders.
    public func sharedText(of report: ReportDefinition) throws -> ReportDefinition {
        var shared = report
        shared.sections = try report.sections.map { ($0.name, try ClickHouseEngine.placeholding($0.sql, of: report)) }
        return shared
    }

    /// Whether the engine runs its own ClickHouse version of `report` (else its one shared text).
    func hasOwnVersion(of report: ReportDefinition) -> Bool { report.origin == "built-in" && reports[report.name] != nil }

    /// ClickHouse's error code for a table or view it does not have.
    static let unknownTable = 60

    /// What makes the shared text read as on SQLite: an aggregate over no rows is NULL (not 0),
    /// and a row an outer join does not match has NULLs (not the columns' defaults).
    static let sharedSettings = ["aggregate_functions_null_for_empty": "1", "join_use_nulls": "1"]

    /// The sections of all runs at once, each on its own connection: the server plans and runs
    /// queries in parallel, and a report's time is mostly the planning of each of its sections.
    /// A run whose text materializes common items (`-- materialize:`) is one job instead: its
    /// tables made once in a session, then its sections one after another in it. The coverage of
    /// `needs` goes out with them. The first error in the runs' order is thrown.
    public func run(_ runs: [SectionRun], needs: ReportParams?) throws -> (tables: [[ResultTable]], coverage: NeedCoverage?) {
        var work: [(run: Int, name: String, sql: String, values: [String: SQLValue], settings: [String: String])] = []
        var jobs: [(run: Int?, work: Range<Int>)] = []
        for (i, run) in runs.enumerated() {
            let values = bindings(run.report, run.text, run.params)
            let settings = hasOwnVersion(of: run.report) ? [:] : ClickHouseEngine.sharedSettings
            let start = work.count
            for (name, sql) in run.sections { work.append((i, name, sql, values, settings)) }
            if materializes(run) {
                jobs.append((i, start..<work.count))
            } else {
                jobs += (start..<work.count).map { (nil, $0..<$0 + 1) }
            }
        }
        func go() -> (Results, Result<NeedCoverage, Error>?) {
            let results = Results(count: work.count)
            ServerWaits.run(jobs.count + (needs == nil ? 0 : 1)) { j in
                guard j < jobs.count else {
                    let (since, until) = needs!.bounds
                    results.setCoverage(Result { try self.needs(since: since, until: until, topic: needs!.topic, env: needs!.env) })
                    return
                }
                if let r = jobs[j].run {
                    let range = jobs[j].work
                    do {
                        let tables = try materialized(runs[r], values: work[range.lowerBound].values)
                        for (i, t) in zip(range, tables) { results.set(i, .success(t)) }
                    } catch {
                        for i in range { results.set(i, .failure(error)) }
                    }
                    return
                }
                let i = jobs[j].work.lowerBound
                let w = work[i]
                results.set(
                    i,
                    Result {
                        try PhaseTimer.measure("\(runs[w.run].report.name).\(w.name)") {
                            do { return try section(w.name, sql: w.sql, parameters: w.values, settings: w.settings) } catch let e
                                as ClickHouseError where e.code == ClickHouseEngine.unknownTable && !w.settings.isEmpty
                            {
                                let report = runs[w.run].report
                                let name = report.origin == "built-in" ? "report \(report.name)" : report.origin
                                throw ClickHouseError(
                                    code: e.code,
                                    "\(name), section \(w.name): \(e.description) (a report run on both engines reads the "
                                        + "relations docs/store.md lists; `pushlog --clickhouse URL ingest` creates them on a database "
                                        + "an older pushlog made)")
                            }
                        }
                    })
            }
            return (results, results.coverage)
        }
        let checkedBefore = check.isDone
        var (results, coverage) = go()
        // Read while the check ran: valid unless the check rebuilt the facts meanwhile.
        if try check.result().rebuilt && !checkedBefore { (results, coverage) = go() }
        let all = try results.all()
        var tables: [[ResultTable]] = Array(repeating: [], count: runs.count)
        for (w, t) in zip(work, all) { tables[w.run].append(t) }
        return (tables, try coverage?.get())
    }

    /// Whether a run makes its common tables once: the engine's own text of a built-in report
    /// that declares them, with two sections or more to share them.
    func materializes(_ run: SectionRun) -> Bool {
        hasOwnVersion(of: run.report) && run.sections.count >= 2 && !run.text.materialize(for: Set(run.sections.map(\.name))).isEmpty
    }

    /// ClickHouse's error codes for a user who may not make a temporary table.
    static let mayNotMaterialize: Set<Int> = [164, 497]
    /// ClickHouse's error code for a session the server does not have (`session_check=1`): a
    /// request that reached another replica than the session's first, behind a balancer.
    static let sessionNotFound = 372

    /// Whether this server refused a temporary table to this user once: the next runs do not ask.
    private let refusedMaterializing = Mutex(false)

    /// `run`'s sections, its `-- materialize:` items made once: in one session (the temporary
    /// tables live there), each item a temporary table, then each section with the common items
    /// it still needs. Each section alone, at once, when the user may not make a temporary table
    /// or the session's tables are not found where a later request went.
    func materialized(_ run: SectionRun, values: [String: SQLValue]) throws -> [ResultTable] {
        let text = run.text
        let wanted = Set(run.sections.map(\.name))
        // `why`: the line `$PUSHLOG_TIMINGS` shows, so that a run that fell back says so.
        func alone(_ why: String) throws -> [ResultTable] {
            PhaseTimer.add("\(run.report.name): each section alone", seconds: 0, note: why)
            let sections = run.sections
            let results = Results(count: sections.count)
            ServerWaits.run(sections.count) { i in
                let (name, sql) = sections[i]
                results.set(
                    i, Result { try PhaseTimer.measure("\(run.report.name).\(name)") { try section(name, sql: sql, parameters: values) } })
            }
            return try results.all()
        }
        if refusedMaterializing.withLock({ $0 }) { return try alone("(temporary tables refused before)") }
        let id = "pushlog-" + UUID().uuidString
        var done = Set<String>()
        // After the first request, one that reaches a server without the session fails (372)
        // instead of starting a new, empty one.
        func session() -> [String: String] { done.isEmpty ? ["session_id": id] : ["session_id": id, "session_check": "1"] }
        defer {
            // One table a statement: dropping several at once is newer than some servers.
            for name in done { _ = try? client.execute("DROP TEMPORARY TABLE IF EXISTS \(name)", settings: session()) }
        }
        do {
            for name in text.materialize(for: wanted) {
                let sql = "CREATE TEMPORARY TABLE \(name) ENGINE = Memory AS " + text.materializing(name, after: done)
                try PhaseTimer.measure("\(run.report.name).\(name) (materialized)") {
                    _ = try client.execute(sql, params: ClickHouseEngine.parameters(of: sql, values), settings: session())
                }
                done.insert(name)
            }
            return try text.sections(without: done).filter { wanted.contains($0.name) }.map { name, sql in
                try PhaseTimer.measure("\(run.report.name).\(name)") {
                    try section(name, sql: sql, parameters: values, settings: session())
                }
            }
        } catch let e as ClickHouseError where done.isEmpty && e.code.map(ClickHouseEngine.mayNotMaterialize.contains) == true {
            refusedMaterializing.withLock { $0 = true }
            return try alone("(temporary tables refused: code \(e.code ?? 0))")
        } catch let e as ClickHouseError
            where e.code == ClickHouseEngine.sessionNotFound
            || (e.code == ClickHouseEngine.unknownTable && done.contains { e.description.contains("'\($0)'") })
        {
            return try alone("(the session's tables were not found: code \(e.code ?? 0))")
        }
    }

    /// Every parameter the report or the engine's text of it declares, valued as the SQLite
    /// store binds it (times in ms with ±9e15 for an open end, NULL for no filter).
    func bindings(_ def: ReportDefinition, _ own: ReportDefinition, _ params: ReportParams) -> [String: SQLValue] {
        var defaults = def.paramDefaults
        for (k, v) in own.paramDefaults where defaults[k] == nil { defaults[k] = v }
        var out: [String: SQLValue] = [:]
        for name in Set(def.paramNames + own.paramNames + ReportRunner.implicitParameters) {
            out[name] = params.value(name, defaults: defaults)
        }
        if let week = params.week { out["week"] = .text(week) }
        return out
    }

    /// Nothing to prepare: each request reads the server's data as it is.
    public func reading<T>(_ report: ReportDefinition, _ params: ReportParams, _ body: () throws -> T) throws -> T { try body() }

    public func tokenMask() throws -> TokenMask { try facts.mask }

    /// The freshness check of the kept facts, on a thread of its own from the engine's start.
    private final class FactsCheck: @unchecked Sendable {
        private let cond = NSCondition()
        private var outcome: Result<(state: ClickHouseFacts.State, rebuilt: Bool), Error>?

        init(_ client: ClickHouseClient, rebuilding: @escaping @Sendable (String) -> Void) {
            Thread { [self] in
                let r = Result { () throws -> (state: ClickHouseFacts.State, rebuilt: Bool) in
                    let s = try ClickHouseFacts.state(client)
                    if s.fresh { return (s, false) }
                    return (try ClickHouseFacts.ensure(client, rebuilding: rebuilding), true)
                }
                cond.lock()
                outcome = r
                cond.broadcast()
                cond.unlock()
            }.start()
        }

        var isDone: Bool { cond.withLock { outcome != nil } }

        /// The check's outcome, once it has one.
        func result() throws -> (state: ClickHouseFacts.State, rebuilt: Bool) {
            cond.lock()
            defer { cond.unlock() }
            while outcome == nil { cond.wait() }
            return try outcome!.get()
        }
    }

    /// The sections' outcomes as the threads finish them.
    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [Result<ResultTable, Error>?]

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        private var needs: Result<NeedCoverage, Error>?

        func set(_ i: Int, _ r: Result<ResultTable, Error>) { lock.withLock { slots[i] = r } }

        func setCoverage(_ r: Result<NeedCoverage, Error>) { lock.withLock { needs = r } }

        var coverage: Result<NeedCoverage, Error>? { lock.withLock { needs } }

        func all() throws -> [ResultTable] { try lock.withLock { try slots.map { try $0!.get() } } }
    }

    /// True when [since, until) holds a record of the kinds `evidence` names (for responses, of
    /// `topic` and `env` when given), as the SQLite store answers it.
    public func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool {
        let kinds: String
        switch evidence {
        case .responses: kinds = "'send', 'response'"
        case .registrations: kinds = "'register'"
        case .observations: kinds = "'register', 'settings'"
        case .any: kinds = "'send', 'request', 'response', 'register', 'settings', 'receipt', 'unregister'"
        }
        let t = try client.table(
            "probe",
            sql:
                "SELECT count() FROM (SELECT 1 FROM \(client.url.database).records WHERE time_ms >= {since:Int64} AND time_ms < {until:Int64} AND kind IN (\(kinds))"
                + (evidence == .responses
                    ? " AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})" : "")
                + " LIMIT 1)",
            params: ["since": String(since), "until": String(until), "topic": topic ?? "", "env": env ?? ""])
        guard let row = t.rows.first, case .int(let n) = row[0] else { return false }
        return n > 0
    }

    public func dataSpan() throws -> (Int64, Int64)? { try facts.span }

    public func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage {
        _ = try facts  // it reads the kept facts
        let db = client.url.database
        let registered = "SELECT 1 FROM `\(db)`.kept_registers WHERE time_ms < {until:Int64}"
        let t = try client.table(
            "needs",
            sql: """
                SELECT count() AS responses, toInt64(countIf(coalesce(env, '') <> '')) AS with_env,
                       toInt64(countIf(token = '')) AS tokenless, toInt64(countIf(status = 410)) AS gone,
                       toInt64(countIf(status = 410 AND token = '')) AS gone_tokenless,
                       toInt64((SELECT count() FROM (\(registered) LIMIT 1))) AS registered,
                       toInt64((SELECT count() FROM (\(registered) AND coalesce(device, '') <> '' LIMIT 1))) AS with_device
                FROM `\(db)`.kept_responses
                WHERE time_ms >= {since:Int64} AND time_ms < {until:Int64}
                  AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
                """,
            params: ["since": String(since), "until": String(until), "topic": topic ?? "", "env": env ?? ""])
        guard let row = t.rows.first else { return NeedCoverage([:]) }
        func n(_ name: String) -> Int64 { t.column(name).flatMap { if case .int(let v) = row[$0] { v } else { nil } } ?? 0 }
        let (responses, gone, registered2) = (n("responses"), n("gone"), n("registered"))
        return NeedCoverage([
            .env: .init(carrying: n("with_env"), of: responses), .token: .init(carrying: responses - n("tokenless"), of: responses),
            .goneToken: .init(carrying: gone - n("gone_tokenless"), of: gone),
            .registrations: .init(carrying: registered2, of: responses > 0 ? 1 : 0),
            .device: .init(carrying: n("with_device"), of: registered2),
        ])
    }

    /// Why a report may come out empty (DataCoverage's notes), from the kept facts.
    public func coverageNotes(for p: ReportParams, report: ReportDefinition) throws -> [String] {
        func seen(_ column: String, limit: String) throws -> [String] {
            let t = try client.table(
                "seen",
                sql: "SELECT DISTINCT toString(\(column)) AS v FROM \(client.url.database).kept_hourly_responses "
                    + "WHERE coalesce(toString(\(column)), '') <> '' ORDER BY v\(limit)")
            return t.rows.compactMap { if case .text(let s) = $0.first { s } else { nil } }
        }
        return try DataCoverage.notes(
            for: p, report: report, span: try facts.span, topics: { try seen("topic", limit: " LIMIT 20") },
            envs: { try seen("env", limit: "") })
    }

    public func latestRecord() throws -> Int64? {
        _ = try facts  // it reads the kept facts
        let db = client.url.database
        let t = try client.table(
            "latest",
            sql: "SELECT maxOrNull(time_ms) FROM (SELECT time_ms FROM `\(db)`.kept_sends WHERE kind IN ('send', 'response') "
                + "UNION ALL SELECT time_ms FROM `\(db)`.kept_registers)")
        guard case .int(let v)? = t.rows.first?.first else { return nil }
        return v
    }

    /// A shared report's SQL with each `:name` (or `@name`, `$name`) a `{name:Type}` placeholder
    /// of the type its header declares: a time or int is `Nullable(Int64)` (times in ms, as SQLite
    /// binds them), any other `Nullable(String)`; `limit`, always given, `Int64`. SQLite's
    /// dimension ids (`:topic_id`) have no meaning here: refused, with what to write instead.
    static func placeholding(_ sql: String, of report: ReportDefinition) throws -> String {
        var out = ""
        var last = sql.utf8.startIndex
        for use in ReportDefinition.parameterSpans(sql) {
            let name = String(sql[sql.utf8.index(after: use.lowerBound)..<use.upperBound])
            if let (param, _) = ReportRunner.dimensionParameters[name] {
                throw CatalogError(
                    "report \(report.name) (\(report.origin)): :\(name) is an id of the SQLite store, which ClickHouse does not have; "
                        + "compare the text instead (\(param) = :\(param)) to run on both")
            }
            let type: String
            switch report.parameter(name)?.type {
            case _ where name == "limit": type = "Int64"
            case .time?, .int?: type = "Nullable(Int64)"
            case nil where name == "since" || name == "until": type = "Nullable(Int64)"
            default: type = "Nullable(String)"
            }
            out += sql[last..<use.lowerBound] + "{\(name):\(type)}"
            last = use.upperBound
        }
        return out + sql[last...]
    }

    /// `{name:Type}` placeholders of a statement, by name.
    static func placeholders(_ sql: String) -> [String: String] {
        var out: [String: String] = [:]
        var rest = Substring(sql)
        while let open = rest.firstIndex(of: "{") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: "}") else { break }
            let inner = rest[..<close]
            if let colon = inner.firstIndex(of: ":") {
                let name = inner[..<colon]
                if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                    out[String(name)] = String(inner[inner.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                }
            }
            rest = rest[close...]
        }
        return out
    }

    /// A value as the text ClickHouse parses for a parameter of `type`. DateTime64's range
    /// (1900 … 2299) stands for an open end, as the queries read it; a missing filter is ''; a
    /// string is escaped as the server reads a parameter (ClickHouseClient.parameter).
    static func text(_ v: SQLValue, as type: String) -> String {
        switch v {
        case .null: return type.hasPrefix("Nullable") ? "\\N" : (type == "String" ? "" : "0")
        case .int(let i) where type.hasPrefix("DateTime64"):
            if i <= -2_208_988_800_000 { return "1900-01-01 00:00:00.000" }
            if i >= 10_413_791_999_000 { return "2299-12-31 23:59:59.999" }
            return dateTime(ms: i)
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .text(let s) where type.hasSuffix("String") || type.hasSuffix("String)"): return ClickHouseClient.parameter(s)
        case .text(let s): return s
        }
    }

    /// `2026-11-02 14:00:00.120` (UTC).
    static func dateTime(ms: Int64) -> String {
        let s = TimeFormat.rfc3339(ms: ms, fraction: false).dropLast().replacingOccurrences(of: "T", with: " ")
        let f = ((ms % 1000) + 1000) % 1000
        return s + "." + TimeFormat.pad(Int(f), 3)
    }
}
