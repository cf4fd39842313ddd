import Foundation

/// `pushlog check`: whether a database can be trusted. SQLite's integrity check (every page and
/// every index entry; `quick` leaves out the comparison of indexes with their tables), then
/// pushlog's own invariants: every record's source is a `sources` row that counted at least the
/// records it still holds, and the facts derived for a sample of tokens and their devices equal a
/// fresh derivation by the code an ingest runs. Read-only: the fresh facts go to temporary tables.
public struct DatabaseCheck {
    /// Something wrong with the database: which check found it, and what.
    public struct Finding: Sendable, Equatable {
        public let check: String
        public let detail: String
    }

    public let path: String
    public var quick = false
    /// Tokens whose derived facts (and their devices') are derived again and compared.
    public var sampleTokens = 1000

    public init(path: String, quick: Bool = false, sampleTokens: Int = 1000) {
        self.path = path
        self.quick = quick
        self.sampleTokens = sampleTokens
    }

    /// The checks that ran, one line each, and what they found.
    public func run() throws -> (checked: [String], findings: [Finding]) {
        var checked: [String] = [], findings: [Finding] = []
        let db: Database
        do {
            db = try Store.openForReading(path: path, unfinished: true)
        } catch let e as StoreError where e.isDamage {
            return (["open"], [Finding(check: "open", detail: e.message)])
        }
        let pragma = quick ? "quick_check" : "integrity_check"
        checked.append("SQLite \(pragma)")
        // A damaged page can stop any later step: each one that meets it says so and the rest go on.
        func step(_ name: String, _ body: () throws -> [Finding]) throws {
            do { findings += try body() } catch let e as StoreError where e.isDamage {
                findings.append(Finding(check: name, detail: "cannot be read: \(e.message)"))
            }
        }
        try step("SQLite \(pragma)") { try integrity(db, pragma) }
        checked.append("sources")
        try step("sources") { try sources(db) }
        let stale = (try? db.scalarInt("SELECT value FROM meta WHERE key = 'derived_stale'")) ?? 1
        if stale != 0 || (try? ClusteredTable.unfinished(db)) != false {
            checked.append("derived facts: not compared, an ingest has not finished building them")
        } else {
            checked.append("derived facts of \(sampleTokens) tokens and their devices")
            try step("derived facts") { try derived(db) }
        }
        return (checked, findings)
    }

    // MARK: SQLite's own check

    /// SQLite's findings (up to 100), each tree named by its table or index. A page damaged past
    /// reading stops SQLite's check with an error rather than a finding, so the check is then
    /// run table by table, to name the tables that cannot be read.
    func integrity(_ db: Database, _ pragma: String) throws -> [Finding] {
        let lines: [String]
        do {
            lines = try db.withoutReadOnlyGuard { try db.strings("PRAGMA \(pragma)(100)") }
        } catch let e as StoreError where e.isDamage {
            var out: [Finding] = []
            for table in try db.strings("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                do {
                    let found = try db.withoutReadOnlyGuard { try db.strings("PRAGMA \(pragma)(\"\(table)\")") }
                    if found != ["ok"] { out += found.map { Finding(check: "SQLite \(pragma)", detail: "\(table): \($0)") } }
                } catch let e as StoreError where e.isDamage {
                    out.append(Finding(check: "SQLite \(pragma)", detail: "\(table) (and its indexes): \(e.message)"))
                }
            }
            return out.isEmpty ? [Finding(check: "SQLite \(pragma)", detail: e.message)] : out
        }
        guard lines != ["ok"] else { return [] }
        var roots: [Int64: String] = [:]
        let s = try db.prepare("SELECT rootpage, name FROM sqlite_master WHERE rootpage > 0")
        while try s.step() { roots[s.int(0)] = s.string(1) }
        return lines.map { line in
            // "Tree 5 page 12 cell 3: …" names a b-tree by its root page: say which table that is.
            guard let r = line.range(of: "Tree "), case let digits = line[r.upperBound...].prefix(while: \.isNumber),
                let root = Int64(digits), let name = roots[root]
            else { return Finding(check: "SQLite \(pragma)", detail: line) }
            return Finding(check: "SQLite \(pragma)", detail: "\(line) (\(name))")
        }
    }

    // MARK: sources

    /// The record tables, with the `sources` counts of what each file added to them.
    static let counted: [(table: String, counts: String)] = [
        ("sends", "n_send + n_request + n_response"), ("registers", "n_register"), ("settings", "n_settings"),
        ("receipts", "n_receipt"), ("unregisters", "n_unregister"),
    ]

    /// Every record's source is a row of `sources`, and no file holds more records than it added
    /// (fewer once `prune` deleted some, or when another file stored a record first).
    func sources(_ db: Database) throws -> [Finding] {
        var out: [Finding] = []
        let staged = try ClusteredTable.unfinished(db)
        for (table, counts) in DatabaseCheck.counted {
            var from = "SELECT source_id FROM \(table)"
            if staged, let t = ClusteredTable.all.first(where: { $0.name == table }) {
                from += " UNION ALL SELECT source_id FROM \(t.stagingName)"
            }
            let added = "s." + counts.replacingOccurrences(of: " + ", with: " + s.")
            let s = try db.prepare(
                """
                SELECT r.source_id, r.n, s.id, s.path, \(added)
                FROM (SELECT source_id, count(*) AS n FROM (\(from)) GROUP BY source_id) AS r
                LEFT JOIN sources s ON s.id = r.source_id
                WHERE s.id IS NULL OR r.n > \(added)
                """)
            do { while try s.step() { out.append(finding(s, table)) } } catch let e as StoreError where e.isDamage {
                out.append(Finding(check: "sources", detail: "\(table) cannot be read to count its records by file: \(e.message)"))
            }
        }
        return out
    }

    private func finding(_ s: Statement, _ table: String) -> Finding {
        if s.isNull(2) {
            return Finding(check: "sources", detail: "\(s.int(1)) \(table) rows name source \(s.int(0)), which sources does not hold")
        }
        return Finding(
            check: "sources", detail: "\(s.string(3) ?? ""): holds \(s.int(1)) \(table) rows, more than the \(s.int(4)) it added")
    }

    // MARK: derived facts

    /// The derived tables compared, and which rows of each belong to the sample.
    static let derivedTables: [(table: String, sampleRows: String)] = [
        ("token_facts", "token_id IN (SELECT id FROM temp.check_tokens)"),
        ("token_stale", "token_id IN (SELECT id FROM temp.check_tokens)"),
        ("token_runs", "device_id IN (SELECT id FROM temp.touched_devices)"),
        ("device_facts", "unit IN (SELECT name FROM devices WHERE id IN (SELECT id FROM temp.touched_devices))"),
    ]

    /// Derives the facts of the sampled tokens, of the devices that registered them and of every
    /// token those devices registered (as an incremental refresh does) into temporary tables of the
    /// same names, which shadow the stored ones, and compares the sample's rows.
    func derived(_ db: Database) throws -> [Finding] {
        try db.withoutReadOnlyGuard {
            defer {
                for (table, _) in DatabaseCheck.derivedTables { try? db.exec("DROP TABLE IF EXISTS temp.\(table)") }
            }
            for (table, _) in DatabaseCheck.derivedTables {
                guard let sql = try db.strings("SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = '\(table)'").first,
                    let open = sql.firstIndex(of: "(")
                else { return [Finding(check: "derived facts", detail: "the table \(table) is missing")] }
                try db.exec("DROP TABLE IF EXISTS temp.\(table); CREATE TEMP TABLE \(table)\(sql[open...])")
            }
            try db.exec(
                """
                CREATE TEMP TABLE IF NOT EXISTS check_tokens(id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS touched_tokens(id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS touched_devices(id INTEGER PRIMARY KEY);
                DELETE FROM check_tokens; DELETE FROM touched_tokens; DELETE FROM touched_devices;
                INSERT INTO check_tokens SELECT id FROM main.tokens ORDER BY random() LIMIT \(max(0, sampleTokens));
                INSERT INTO touched_devices SELECT DISTINCT device_id FROM main.registers
                  WHERE token_id IN (SELECT id FROM check_tokens) AND device_id IS NOT NULL;
                INSERT INTO touched_tokens SELECT id FROM check_tokens
                  UNION SELECT token_id FROM main.registers WHERE device_id IN (SELECT id FROM touched_devices);
                """)
            let touched = "token_id IN (SELECT id FROM temp.touched_tokens)"
            try Derived.refreshTokenFacts(db, only: touched)
            try DevicePass(db: db, only: true).run()
            try Derived.refreshStaleIntervals(db, only: touched)
            var out: [Finding] = []
            for (table, rows) in DatabaseCheck.derivedTables {
                let stored = "SELECT * FROM main.\(table) WHERE \(rows)", fresh = "SELECT * FROM temp.\(table) WHERE \(rows)"
                let missing = try db.scalarInt("SELECT count(*) FROM (\(fresh) EXCEPT \(stored))") ?? 0
                let extra = try db.scalarInt("SELECT count(*) FROM (\(stored) EXCEPT \(fresh))") ?? 0
                if missing + extra > 0 {
                    out.append(
                        Finding(
                            check: "derived facts",
                            detail:
                                "\(table): \(extra) stored rows of the sample differ from a fresh derivation (\(missing) rows it gives are not stored)"
                        ))
                }
            }
            return out
        }
    }
}
