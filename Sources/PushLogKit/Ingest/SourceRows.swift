import Foundation

/// The `sources` table's one writer: a row per file with its fingerprint, how far it was read,
/// its format and its counts. Every statement that changes a row is here; the callers decide the
/// transactions.
final class SourceRows {
    /// What an earlier run stored about a file.
    struct Row {
        var id: Int64
        var size: Int64
        var mtime: Int64
        var headLength: Int
        var headHash: String?
        var offset: Int64
        var lines: Int
        var complete: Bool
        var format: String?
        var error: String?
        /// The time of its earliest record.
        var firstTime: Int64?
    }

    let db: Database
    private let find, insert, refuse, finish, progress, family, rename: Statement
    private let runsOf, clearRuns, addRun: Statement

    init(db: Database) throws {
        self.db = db
        find = try db.prepare(
            """
            SELECT id, size, mtime, head_len, head_hash, offset, lines, complete, format, error, first_time_ms
            FROM sources WHERE path = ?1
            """)
        // Every path that starts with the stem: the unique index on path reads the range.
        family = try db.prepare(
            "SELECT id, path, first_time_ms, last_time_ms FROM sources WHERE path >= ?1 AND path < ?1 || char(1114111)")
        rename = try db.prepare("UPDATE sources SET path = ?2 WHERE id = ?1")
        insert = try db.prepare("INSERT INTO sources(path, first_ingest) VALUES (?1, ?2)")
        refuse = try db.prepare(
            """
            UPDATE sources SET complete = 1, error = ?2, size = ?3, mtime = ?4, head_len = ?5, head_hash = ?6,
              format = 'refused', offset = 0, lines = 0 WHERE id = ?1
            """)
        finish = try db.prepare(
            """
            UPDATE sources SET complete = ?2, error = ?3, size = ?4, mtime = ?5, head_len = ?6, head_hash = ?7 WHERE id = ?1
            """)
        runsOf = try db.prepare("SELECT key, count, line, offset FROM source_repeats WHERE source_id = ?1")
        clearRuns = try db.prepare("DELETE FROM source_repeats WHERE source_id = ?1")
        addRun = try db.prepare("INSERT INTO source_repeats(source_id, key, count, line, offset) VALUES (?1, ?2, ?3, ?4, ?5)")
        progress = try db.prepare(
            """
            UPDATE sources SET offset = ?2, lines = ?3, format = ?4,
              n_send = n_send + ?5, n_request = n_request + ?6, n_response = n_response + ?7,
              n_register = n_register + ?8, n_settings = n_settings + ?9, n_receipt = n_receipt + ?10,
              n_unregister = n_unregister + ?11, duplicates = duplicates + ?12, rejects = rejects + ?13,
              skipped = skipped + ?14, ignored = ignored + ?15, last_ingest = ?16,
              first_time_ms = min(coalesce(first_time_ms, ?17), coalesce(?17, first_time_ms)), last_time_ms = max(coalesce(last_time_ms, ?18), coalesce(?18, last_time_ms)),
              ambiguous = ambiguous + ?19
            WHERE id = ?1
            """)
    }

    /// The row of `path`, if a run saw the file before.
    func row(path: String) throws -> Row? {
        find.reset()
        defer { find.reset() }
        find.bind(1, path)
        guard try find.step() else { return nil }
        return Row(
            id: find.int(0), size: find.int(1), mtime: find.int(2), headLength: Int(find.int(3)), headHash: find.string(4),
            offset: find.int(5), lines: Int(find.int(6)), complete: find.int(7) == 1, format: find.string(8), error: find.string(9),
            firstTime: find.isNull(10) ? nil : find.int(10))
    }

    /// The other files of `path`'s rotation set that a run has seen.
    func siblings(of path: String) throws -> [Lineage.Sibling] {
        let name = RotationName(path)
        family.reset()
        defer { family.reset() }
        family.bind(1, name.stem)
        var out: [Lineage.Sibling] = []
        while try family.step() {
            let other = family.string(1) ?? ""
            guard other != path, RotationName(other).stem == name.stem else { continue }
            out.append(
                Lineage.Sibling(
                    id: family.int(0), firstTime: family.isNull(2) ? nil : family.int(2),
                    lastTime: family.isNull(3) ? nil : family.int(3)))
        }
        return out
    }

    /// Keeps the row of what `path` held before another file replaced it (copytruncate, or a
    /// rotation that a run did not see happen) under a name of its own in the same rotation set,
    /// so the file now at `path` gets a row of its own and continues from it.
    func setAside(_ id: Int64, path: String) throws {
        let stamp = TimeFormat.rfc3339(ms: Int64(Date().timeIntervalSince1970 * 1000))
        var name = path + RotationName.replacedMark + stamp + ")"
        var n = 1
        while try row(path: name) != nil {
            n += 1
            name = path + RotationName.replacedMark + stamp + " \(n))"
        }
        rename.reset()
        rename.bind(1, id)
        rename.bind(2, name)
        try rename.run()
        rename.reset()
    }

    /// A new row for a file seen for the first time; returns its id.
    func add(path: String) throws -> Int64 {
        insert.bind(1, path)
        insert.bind(2, Int64(Date().timeIntervalSince1970 * 1000))
        try insert.run()
        return db.lastInsertRowID
    }

    /// Records a batch: the position the next run resumes from, the format, and the batch's counts.
    func addBatch(_ id: Int64, offset: Int64, lines: Int, format: String, _ b: BatchCounts) throws {
        let u = progress
        u.bind(1, id); u.bind(2, offset); u.bind(3, Int64(lines)); u.bind(4, format)
        for k in EventKind.allCases { u.bind(Int32(5 + k.rawValue), Int64(b.records[k])) }
        u.bind(12, Int64(b.duplicates)); u.bind(13, Int64(b.rejects)); u.bind(14, Int64(b.skipped))
        u.bind(15, Int64(b.ignored)); u.bind(16, Int64(Date().timeIntervalSince1970 * 1000))
        u.bindInt(17, b.minT); u.bindInt(18, b.maxT); u.bind(19, Int64(b.ambiguous))
        try u.run()
    }

    /// The runs of repeats open where the file's committed position is (`RepeatLedger`).
    func openRuns(_ id: Int64) throws -> [OccurrenceCounter.Run] {
        runsOf.reset()
        defer { runsOf.reset() }
        runsOf.bind(1, id)
        var runs: [OccurrenceCounter.Run] = []
        while try runsOf.step() {
            let count = Int32(clamping: runsOf.int(1))
            runs.append(OccurrenceCounter.Run(key: runsOf.int(0), count: count, line: Int(runsOf.int(2)), offset: runsOf.int(3)))
        }
        return runs
    }

    /// Replaces the file's runs of repeats with those open at the position a batch commits.
    func saveRuns(_ id: Int64, _ runs: some Collection<OccurrenceCounter.Run>) throws {
        clearRuns.reset()
        clearRuns.bind(1, id)
        try clearRuns.run()
        for r in runs {
            addRun.reset()
            addRun.bind(1, id); addRun.bind(2, r.key); addRun.bind(3, Int64(r.count))
            addRun.bind(4, Int64(r.line)); addRun.bind(5, r.offset)
            try addRun.run()
        }
    }

    /// Marks a file read to its end (or not, with the error) with the fingerprint of what was read.
    func finished(
        _ id: Int64, complete: Bool, error: String?, stat st: (size: Int64, mtime: Int64)?, headLength: Int, headHash: String?
    ) throws {
        finish.bind(1, id)
        finish.bind(2, Int64(complete ? 1 : 0))
        finish.bind(3, error)
        finish.bindInt(4, st?.size)
        finish.bindInt(5, st?.mtime)
        finish.bind(6, Int64(headLength))
        finish.bind(7, headHash)
        try finish.run()
    }

    /// Marks a file refused, with the reason and its fingerprint, so an unchanged one is not read again.
    func refused(_ id: Int64, reason: String, stat st: (size: Int64, mtime: Int64)?, headLength: Int, headHash: String?) throws {
        refuse.bind(1, id)
        refuse.bind(2, reason)
        refuse.bindInt(3, st?.size)
        refuse.bindInt(4, st?.mtime)
        refuse.bind(5, Int64(headLength))
        refuse.bind(6, headHash)
        try refuse.run()
    }

    /// Gives the row of `path` to `moved` (unless `moved` has one already): a rotated file.
    static func move(_ db: Database, from path: String, to moved: String) throws {
        let taken = try db.prepare("SELECT 1 FROM sources WHERE path = ?1")
        taken.bind(1, moved)
        guard try !taken.step() else { return }
        let s = try db.prepare("UPDATE sources SET path = ?2 WHERE path = ?1")
        s.bind(1, path)
        s.bind(2, moved)
        try s.run()
    }

    /// Records already stored from every file: whether this is a first load.
    func storedRecords() throws -> Int64 {
        try db.scalarInt(
            """
            SELECT coalesce(sum(n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister), 0) FROM sources
            """) ?? 0
    }

    /// Merges sources rows an older pushlog stored under different spellings of one file: the row
    /// that read furthest is kept under the canonical path, counts are summed, records and rejects
    /// point to it. Runs once per database (meta key `sources_canonical`), in one transaction.
    static func mergeDuplicates(_ db: Database) throws {
        if try db.scalarInt("SELECT value FROM meta WHERE key = 'sources_canonical'") == 1 { return }
        let rows = try db.prepare("SELECT id, path, lines FROM sources ORDER BY id")
        var byCanonical: [String: [(id: Int64, path: String, lines: Int64)]] = [:]
        while try rows.step() {
            let path = rows.string(1) ?? ""
            byCanonical[SourcePaths.canonical(path), default: []].append((rows.int(0), path, rows.int(2)))
        }
        try db.exec("BEGIN IMMEDIATE")
        do {
            for (path, group) in byCanonical {
                let keep = group.max { ($0.lines, -$0.id) < ($1.lines, -$1.id) }!
                for other in group where other.id != keep.id {
                    try db.exec(
                        """
                        UPDATE sources SET
                          n_send = sources.n_send + o.n_send, n_request = sources.n_request + o.n_request, n_response = sources.n_response + o.n_response,
                          n_register = sources.n_register + o.n_register, n_settings = sources.n_settings + o.n_settings,
                          n_receipt = sources.n_receipt + o.n_receipt, n_unregister = sources.n_unregister + o.n_unregister,
                          duplicates = sources.duplicates + o.duplicates, rejects = sources.rejects + o.rejects,
                          ambiguous = sources.ambiguous + o.ambiguous,
                          skipped = sources.skipped + o.skipped, ignored = sources.ignored + o.ignored,
                          first_ingest = min(sources.first_ingest, o.first_ingest), last_ingest = max(sources.last_ingest, o.last_ingest),
                          first_time_ms = min(coalesce(sources.first_time_ms, o.first_time_ms), coalesce(o.first_time_ms, sources.first_time_ms)),
                          last_time_ms = max(coalesce(sources.last_time_ms, o.last_time_ms), coalesce(o.last_time_ms, sources.last_time_ms))
                        FROM (SELECT * FROM sources WHERE id = \(other.id)) AS o WHERE sources.id = \(keep.id)
                        """)
                    for table in ["sends", "registers", "settings", "receipts", "unregisters", "rejects", "apple_metrics"] {
                        try db.exec("UPDATE \(table) SET source_id = \(keep.id) WHERE source_id = \(other.id)")
                    }
                    try db.exec("DELETE FROM sources WHERE id = \(other.id)")
                }
                if keep.path != path {
                    let s = try db.prepare("UPDATE sources SET path = ?1 WHERE id = ?2")
                    s.bind(1, path)
                    s.bind(2, keep.id)
                    try s.run()
                }
            }
            try db.exec("INSERT OR REPLACE INTO meta(key, value) VALUES ('sources_canonical', 1)")
            try db.exec("COMMIT")
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }
}
