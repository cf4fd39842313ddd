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
        } catch let e as ClickHouseError where e.code == unknownTable || e.code == unknownIdentifier {
            return State(fresh: false, span: nil, irregular: [])
        }
        guard let first = t.rows.first, case .int(let ok) = first[0] else { return State(fresh: false, span: nil, irregular: []) }
        var span: (Int64, Int64)?
        if case .int(let lo) = first[1], case .int(let hi) = first[2], case .int(let n) = first[3], n > 0 { span = (lo, hi) }
        var irregular: [String] = []
        for row in t.rows { if case .text(let s) = row[4], !s.isEmpty { irregular.append(s) } }
        return State(fresh: ok == 1, span: span, irregular: irregular)
    }

    /// ClickHouse's error codes for a table, and a column, that do not exist.
    static let unknownTable = 60
    static let unknownIdentifier = 47

    /// Rebuilds every kept table from the records (each replaced atomically), then kept_state
    /// with this binary's facts.sql fingerprint instead of the file's own ''.
    public static func refresh(_ client: ClickHouseClient) throws {
        let db = client.url.database
        try PhaseTimer.measure("kept facts") {
            try run(ClickHouseQueries.factsSteps(database: db), width: rebuildWidth) { step in
                _ = try PhaseTimer.measure("facts \(step.name)") { try client.execute(step.sql) }
            }
            _ = try client.execute(
                "CREATE OR REPLACE TABLE `\(db)`.kept_state ENGINE = MergeTree ORDER BY tuple() AS "
                    + "SELECT *, {facts:String} AS facts_sql FROM `\(db)`.kept_pending", params: ["facts": fingerprint])
        }
    }

    /// How many statements of a rebuild run at once. The server runs most of them as one pipeline
    /// on about one core, so two at once use a small server's cores; more would raise the peak
    /// memory of a large history's joins for little.
    static let rebuildWidth = 2

    /// Runs the steps, each once those it waits for are done, `width` at once. After an error no
    /// step starts; the error is thrown once the running ones end.
    static func run(_ steps: [ClickHouseQueries.FactsStep], width: Int, _ body: (ClickHouseQueries.FactsStep) throws -> Void) throws {
        let schedule = Schedule(steps)
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

        init(_ steps: [ClickHouseQueries.FactsStep]) {
            for (i, step) in steps.enumerated() { precondition(step.after.allSatisfy { $0 < i }, "a step waits for a later one") }
            self.steps = steps
            var waiting = Array(repeating: Set<Int>(), count: steps.count)
            for i in steps.indices.reversed() {
                for w in steps[i].after { waiting[w].formUnion(waiting[i].union([i])) }
            }
            preferred = steps.indices.sorted { (waiting[$0].count, $1) > (waiting[$1].count, $0) }
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

    /// Which facts.sql this binary builds with (a hash of the file).
    static let fingerprint: String = {
        let (a, b) = ClickHouseQueries.facts.withUnsafeBufferPointer { LineHash.hash($0) }
        return ClickHouseIngest.hex(UInt64(bitPattern: a)) + ClickHouseIngest.hex(UInt64(bitPattern: b))
    }()

    /// What a command says, on a terminal, when it starts a rebuild.
    public static let rebuildNotice = "rebuilding the kept facts from the records (the whole history)"

    /// Rebuilds the facts when the records changed since they were built, calling `rebuilding`
    /// first (a rebuild reads the whole history); their state after.
    @discardableResult
    public static func ensure(_ client: ClickHouseClient, rebuilding: () -> Void = {}) throws -> State {
        let s = try state(client)
        if s.fresh { return s }
        rebuilding()
        try refresh(client)
        return try state(client)
    }
}
