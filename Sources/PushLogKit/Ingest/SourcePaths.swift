import Foundation

/// One source per file, however its path is spelled (`logs/a`, `./logs//a`, an absolute path,
/// a symlink): sources are keyed by the file's canonical real path.
public enum SourcePaths {
    /// The canonical real path of `path` (symlinks resolved, `.`/`..` removed); the path as
    /// given when it cannot be resolved (a vanished file).
    public static func canonical(_ path: String) -> String {
        guard path != "-", let p = realpath(path, nil) else { return path }
        defer { free(p) }
        return String(cString: p)
    }

    /// Canonical paths of the inputs, each file once, in the order first given.
    static func unique(_ files: [InputFile]) -> [InputFile] {
        var seen = Set<String>()
        var out: [InputFile] = []
        for f in files {
            let c = f.isStdin ? "-" : canonical(f.path)
            if f.isStdin || seen.insert(c).inserted { out.append(InputFile(path: c, named: f.named)) }
        }
        return out
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
            byCanonical[canonical(path), default: []].append((rows.int(0), path, rows.int(2)))
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
