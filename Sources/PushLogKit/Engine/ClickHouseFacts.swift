import Foundation

/// The facts the reports read on ClickHouse (the `kept_*` tables of facts.sql): built from the
/// records after deduplication, so rebuilding them is always safe, and out of date as soon as
/// rows arrive. `kept_state` holds the raw row count and the newest `sources` row they were built
/// from, and the fingerprint of the facts.sql that built them; a report on facts older than the
/// records, or built by another version of facts.sql, rebuilds them first, so it never reads a
/// state that misses rows (a killed ingest, rows loaded by hand) or tables.
public enum ClickHouseFacts {
    /// What a command on the kept facts reads besides its own queries, in one request: whether
    /// the facts were built from the records as they are now, the data's span and the tokens the
    /// hex-run mask would not catch.
    public struct State: Sendable {
        /// True when the kept facts were built from the records as they are now, by this facts.sql.
        public let fresh: Bool
        /// The first and last record time (ms) of kept_data_span, nil when it holds no record.
        public let span: (Int64, Int64)?
        /// The kept irregular tokens (malformed, masked or short), longest first.
        public let irregular: [String]

        /// The mask for output from these facts, as `TokenMask(db:)` reads it from SQLite.
        public var mask: TokenMask { TokenMask(irregular: irregular.filter { !TokenMask.hasHexRun($0) }) }
    }

    /// Reads the state of the kept facts; facts never built (no kept_state, or one without
    /// facts_sql) are not fresh.
    public static func state(_ client: ClickHouseClient) throws -> State {
        let db = client.url.database
        let t: ResultTable
        do {
            t = try client.table(
                "kept",
                sql: """
                    SELECT fresh, lo, hi, n, token FROM (
                      SELECT (SELECT count() FROM `\(db)`.kept_state) = 1
                             AND (SELECT any(records_rows) FROM `\(db)`.kept_state) = (SELECT count() FROM `\(db)`.records)
                             AND (SELECT any(sources_version) FROM `\(db)`.kept_state) >= (SELECT max(version) FROM `\(db)`.sources)
                             AND (SELECT any(facts_sql) FROM `\(db)`.kept_state) = {facts:String} AS fresh, lo, hi, n,
                             (SELECT groupArray(token) FROM (SELECT token FROM `\(db)`.kept_irregular_tokens
                                                             ORDER BY length(token) DESC, token LIMIT 20000)) AS irregular
                      FROM `\(db)`.kept_data_span)
                    LEFT ARRAY JOIN irregular AS token
                    """, params: ["facts": fingerprint])
        } catch let e as ClickHouseError where e.code == unknownTable || e.code == unknownIdentifier || e.code == unknownDatabase {
            return State(fresh: false, span: nil, irregular: [])
        }
        guard let first = t.rows.first, case .int(let ok) = first[0] else { return State(fresh: false, span: nil, irregular: []) }
        var span: (Int64, Int64)?
        if case .int(let lo) = first[1], case .int(let hi) = first[2], case .int(let n) = first[3], n > 0 { span = (lo, hi) }
        var irregular: [String] = []
        for row in t.rows { if case .text(let s) = row[4], !s.isEmpty { irregular.append(s) } }
        return State(fresh: ok == 1, span: span, irregular: irregular)
    }

    /// Refuses a database that holds no pushlog records table (never ingested into, or another
    /// application's), saying what to run, as SQLite's engine does for a missing file; the facts
    /// cannot be built there, and the server's own words would name a table the user never made.
    static func requireRecords(_ client: ClickHouseClient) throws {
        let db = client.url.database
        let t: ResultTable
        do {
            t = try client.table(
                "tables", sql: "SELECT count() FROM system.tables WHERE database = {db:String} AND name = 'records'", params: ["db": db])
        } catch let e as ClickHouseError where e.code == unknownDatabase {
            throw ClickHouseError(
                code: nil, "no ClickHouse database '\(db)' (run `pushlog --clickhouse URL ingest PATH...` first: it creates it)")
        }
        guard case .int(0)? = t.rows.first?.first else { return }
        throw ClickHouseError(
            code: nil,
            "no pushlog tables in the ClickHouse database '\(db)' (run `pushlog --clickhouse URL ingest PATH...` first)")
    }

    /// ClickHouse's error codes for a table, a column and a database that do not exist.
    static let unknownTable = 60
    static let unknownIdentifier = 47
    static let unknownDatabase = 81

    /// Brings every kept table up to date with the records, one run at a time, then writes
    /// kept_state with this binary's SQL fingerprint instead of facts.sql's own ''. Only what the
    /// loads since the last rebuild touched is computed again when `updateKeyByKey` can tell what
    /// that is; else every table is rebuilt from the whole history (each replaced atomically).
    /// `rebuilding` is told which, once it is chosen: the notice a terminal shows.
    public static func refresh(_ client: ClickHouseClient, rebuilding: (String) -> Void = { _ in }) throws {
        let db = client.url.database
        try PhaseTimer.measure("kept facts") {
            try ClickHouseFactsLock.holding(client, waiting: { rebuilding(waitNotice) }) { run in
                // Another run may have brought them up to date while this one waited.
                if try state(client).fresh { return }
                let steps = ClickHouseQueries.factsSteps(database: db)
                var built = "touched"
                if try !updateKeyByKey(client, steps, run: run, rebuilding: rebuilding) {
                    built = "whole"
                    rebuilding(rebuildNotice)
                    // The schema's views as this pushlog reads them (the facts read `sends`), on a
                    // database whose facts another pushlog's SQL built (an upgrade, then a report).
                    if try !builtBySameSQL(client) { try ClickHouseIngest(client: client).createSchema() }
                    try forgetState(client)
                    try Self.run(steps, width: rebuildWidth) { step in
                        _ = try PhaseTimer.measure("facts \(step.name)") { try client.execute(step.sql) }
                    }
                }
                _ = try client.execute(
                    "CREATE OR REPLACE TABLE `\(db)`.kept_state ENGINE = MergeTree ORDER BY tuple() AS "
                        + "SELECT *, {facts:String} AS facts_sql, {built:String} AS built FROM `\(db)`.kept_pending",
                    params: ["facts": fingerprint, "built": built])
            }
        }
    }

    /// Whether kept_state says this binary's SQL built the facts.
    static func builtBySameSQL(_ client: ClickHouseClient) throws -> Bool {
        do {
            let t = try client.table(
                "kept", sql: "SELECT any(facts_sql) = {facts:String} FROM `\(client.url.database)`.kept_state",
                params: ["facts": fingerprint])
            if case .int(1) = t.rows.first?.first { return true }
            return false
        } catch let e as ClickHouseError where e.code == unknownTable || e.code == unknownIdentifier {
            return false
        }
    }

    /// Drops kept_state before the first kept table changes: a run stopped half-way (killed, or
    /// its server gone) then leaves no state, and the next one rebuilds the whole history, since
    /// what the key-by-key way reads of the tables before a load (a device's user before it
    /// changed) may be gone from the tables it had already replaced.
    static func forgetState(_ client: ClickHouseClient) throws {
        _ = try client.execute("DROP TABLE IF EXISTS `\(client.url.database)`.kept_state")
    }

    /// Computes again only the rows of what the loads since the last rebuild touched (touched.sql):
    /// the tables kept per key lose and regain those keys' rows, the others (sums over every
    /// token, a few small tables) are rebuilt whole from the kept rows. False when the facts were
    /// not built by this pushlog's SQL or from fewer than `touchedLeastRows` records, when the loads
    /// hold a kind of row this does not follow (a request, or a response without its token: they
    /// change which token earlier responses belong to), when they touched too much for it to pay,
    /// when the records lost rows, or when the server refuses a statement of this way; the
    /// caller then rebuilds the whole history, which replaces every table.
    static func updateKeyByKey(
        _ client: ClickHouseClient, _ steps: [ClickHouseQueries.FactsStep], run: String, rebuilding: (String) -> Void
    ) throws -> Bool {
        let db = client.url.database
        do {
            let t = try client.table(
                "kept",
                sql: "SELECT any(facts_sql) = {facts:String} AND count() = 1 AND any(records_rows) >= {least:UInt64} "
                    + "FROM `\(db)`.kept_state",
                params: ["facts": fingerprint, "least": String(touchedLeastRows)])
            guard let row = t.rows.first, case .int(1) = row[0] else { return false }
        } catch let e as ClickHouseError where e.code == unknownTable || e.code == unknownIdentifier {
            return false
        }
        defer {
            for table in ClickHouseQueries.touchedTables(database: db, run: run) {
                _ = try? client.execute("DROP TABLE IF EXISTS `\(db)`.`\(table)`")
            }
        }
        do {
            // kept_pending first: the records' count and parts now, which the next run starts from.
            _ = try PhaseTimer.measure("facts \(steps[0].name)") { try client.execute(steps[0].sql) }
            try PhaseTimer.measure("facts touched") {
                for sql in ClickHouseQueries.touchedStatements(database: db, run: run) { _ = try client.execute(sql) }
            }
            guard try keyByKeyPays(client, run: run) else { return false }
            rebuilding(updateNotice)
            try forgetState(client)
            try Self.run(steps, width: rebuildWidth, done: [0]) { step in
                try PhaseTimer.measure("facts \(step.name)") {
                    for sql in step.keyByKey(database: db, run: run) ?? [step.sql] { _ = try client.execute(sql) }
                }
            }
        } catch let e as ClickHouseError where e.code != nil {
            // A server that refuses a statement of this way (an older release without CLONE AS or
            // lightweight DELETE; `records` behind a Distributed table, without `_part`): the whole
            // rebuild, which replaces every table, those brought up to date already included.
            PhaseTimer.add("facts key by key refused", seconds: 0, note: e.description)
            for step in steps where step.kept != nil {
                _ = try? client.execute("DROP TABLE IF EXISTS `\(db)`.`\(step.name)_next_\(run)`")
            }
            return false
        }
        return true
    }

    /// Whether what a load touched is few enough to compute again key by key (at most a quarter
    /// of the tokens and of the devices), and nothing else bars it: no request or tokenless
    /// response among the new rows; the records still the table the facts were built from, each
    /// of whose parts then is still there or merged into one that is (its name, partition and
    /// block range `P_MIN_MAX_LEVEL`, within an active part's: else rows were removed, by a
    /// dropped partition or a TRUNCATE), and one still there of that name the same part (written
    /// at the same time: a server restarted after a TRUNCATE numbers parts from 1 again); no TTL
    /// on the records; and at most `maxKeptParts` parts in any kept table (each run adds one; a
    /// whole rebuild writes them anew).
    static func keyByKeyPays(_ client: ClickHouseClient, run: String) throws -> Bool {
        let db = client.url.database
        let t = try client.table(
            "touched",
            sql: """
                SELECT (SELECT countIf(kind = 'request' OR (kind IN ('send', 'response') AND token = ''))
                        FROM `\(db)`.kept_new_\(run)) = 0
                   AND (SELECT count() FROM `\(db)`.kept_touched_\(run)_token) * 4 <= (SELECT count() FROM `\(db)`.kept_token_facts)
                   AND (SELECT count() FROM `\(db)`.kept_touched_\(run)_dkey) * 4 <= (SELECT count() FROM `\(db)`.kept_device_facts)
                   AND (SELECT any(records_uuid) FROM `\(db)`.kept_state)
                       = (SELECT any(uuid) FROM system.tables WHERE database = {db:String} AND name = 'records')
                   AND (SELECT countIf(NOT arrayExists(q -> q.1 = p[1] AND q.2 <= toInt64(p[2]) AND q.3 >= toInt64(p[3]), active))
                        FROM (SELECT arrayJoin(arrayMap(n -> splitByChar('_', n), (SELECT any(records_parts) FROM `\(db)`.kept_state))) AS p,
                                     (SELECT groupArray((partition_id, min_block_number, max_block_number)) FROM system.parts
                                      WHERE database = {db:String} AND table = 'records' AND active) AS active)) = 0
                   AND (SELECT count() FROM system.parts
                        WHERE database = {db:String} AND table = 'records' AND active
                          AND has((SELECT any(records_parts) FROM `\(db)`.kept_state), name)
                          AND NOT has((SELECT any(records_part_times) FROM `\(db)`.kept_state), (name, modification_time))) = 0
                   AND (SELECT count() FROM system.tables
                        WHERE database = {db:String} AND name = 'records' AND create_table_query LIKE '% TTL %') = 0
                   AND (SELECT max(n) FROM (SELECT count() AS n FROM system.parts
                        WHERE database = {db:String} AND active AND startsWith(table, 'kept_') GROUP BY table)) <= {parts:UInt64}
                """, params: ["db": db, "parts": String(maxKeptParts)])
        guard let row = t.rows.first, case .int(let ok) = row[0] else { return false }
        return ok == 1
    }

    /// The most parts a kept table may have before the next load rebuilds the whole history,
    /// which writes each table anew: the kept tables do not merge, each load adds a part, and the
    /// server deletes the touched keys' rows part by part, at a cost per part.
    static let maxKeptParts = 30

    /// How many records the facts must have been built from before a load computes again only
    /// what it touched: below, the whole rebuild takes seconds, and is quicker than deleting the
    /// touched keys' rows table by table. `$PUSHLOG_CLICKHOUSE_TOUCHED_ROWS` sets it.
    static let touchedLeastRows: UInt64 =
        touchedLeastRows(ProcessInfo.processInfo.environment["PUSHLOG_CLICKHOUSE_TOUCHED_ROWS"]) ?? 5_000_000

    /// `$PUSHLOG_CLICKHOUSE_TOUCHED_ROWS`'s count of records: a whole number, else nil.
    public static func touchedLeastRows(_ text: String?) -> UInt64? {
        text.flatMap { UInt64($0) }
    }

    /// How many statements of a rebuild run at once. The server runs most of them as one pipeline
    /// on about one core, so two at once use a small server's cores; more would raise the peak
    /// memory of a large history's joins for little.
    static let rebuildWidth = 2

    /// Runs the steps, each once those it waits for are done, `width` at once. After an error no
    /// step starts; the error is thrown once the running ones end.
    static func run(
        _ steps: [ClickHouseQueries.FactsStep], width: Int, done: Set<Int> = [], _ body: (ClickHouseQueries.FactsStep) throws -> Void
    ) throws {
        let schedule = Schedule(steps, done: done)
        let threads = max(width, 1)
        ServerWaits.run(threads, width: threads) { _ in
            while let i = schedule.next() {
                do {
                    try body(steps[i])
                    schedule.finish(i, nil)
                } catch {
                    schedule.finish(i, error)
                }
            }
        }
        if let e = schedule.failure { throw e }
    }

    /// Which steps are done and which may start, shared by the threads of a rebuild.
    private final class Schedule: @unchecked Sendable {
        private let cond = NSCondition()
        private let steps: [ClickHouseQueries.FactsStep]
        private var started: Set<Int> = []
        private var done: Set<Int> = []
        private var error: Error?

        /// The steps in the order to prefer among those ready: the ones more steps wait for (all
        /// the way down) first, so that a long chain starts early.
        private let preferred: [Int]

        init(_ steps: [ClickHouseQueries.FactsStep], done: Set<Int>) {
            for (i, step) in steps.enumerated() { precondition(step.after.allSatisfy { $0 < i }, "a step waits for a later one") }
            self.steps = steps
            var waiting = Array(repeating: Set<Int>(), count: steps.count)
            for i in steps.indices.reversed() {
                for w in steps[i].after { waiting[w].formUnion(waiting[i].union([i])) }
            }
            preferred = steps.indices.sorted { (waiting[$0].count, $1) > (waiting[$1].count, $0) }
            self.done = done
            started = done
        }

        var failure: Error? { cond.withLock { error } }

        /// The next step whose waits are over, once there is one; nil when all have started or one failed.
        func next() -> Int? {
            cond.lock()
            defer { cond.unlock() }
            while error == nil && started.count < steps.count {
                if let i = preferred.first(where: { !started.contains($0) && steps[$0].after.allSatisfy(done.contains) }) {
                    started.insert(i)
                    return i
                }
                cond.wait()
            }
            return nil
        }

        func finish(_ i: Int, _ failed: Error?) {
            cond.withLock {
                if let failed { error = error ?? failed } else { done.insert(i) }
                cond.broadcast()
            }
        }
    }

    /// Which SQL this binary builds with: a hash of facts.sql, touched.sql and schema.sql (whose
    /// views the kept tables are copied from, column by column in order).
    static let fingerprint: String = {
        let (a, b) = (ClickHouseQueries.facts + ClickHouseQueries.touched + ClickHouseQueries.schema).withUnsafeBufferPointer {
            LineHash.hash($0)
        }
        return ClickHouseIngest.hex(UInt64(bitPattern: a)) + ClickHouseIngest.hex(UInt64(bitPattern: b))
    }()

    /// What a command says, on a terminal, when it rebuilds the kept facts from the whole history.
    public static let rebuildNotice = "rebuilding the kept facts from the records (the whole history)"
    /// What it says when it computes again only what the loads since touched.
    public static let updateNotice = "bringing the kept facts up to date with the new records"
    /// What it says when another pushlog is updating them, and it waits for that to end.
    public static let waitNotice = "waiting for another pushlog to finish updating the kept facts"

    /// Brings the facts up to date when the records changed since they were built, telling
    /// `rebuilding` how (`rebuildNotice` or `updateNotice`) first; their state after.
    @discardableResult
    public static func ensure(_ client: ClickHouseClient, rebuilding: (String) -> Void = { _ in }) throws -> State {
        let s = try state(client)
        if s.fresh { return s }
        try requireRecords(client)
        try refresh(client, rebuilding: rebuilding)
        return try state(client)
    }
}
