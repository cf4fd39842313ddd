import Foundation

/// `ingest --follow`, on either engine: keeps ingesting paths as they grow, by polling. Each
/// round is an ordinary run of the target (unchanged files cost a stat; grown files resume at
/// their committed offset; a truncated file — copytruncate — no longer matches its fingerprint
/// and is read from the start as a new file that continues the old one; a file renamed away
/// keeps its source and resumes under its new name), so a kill -9 at any moment is completed by
/// a plain `ingest` of the same paths.
public final class Follower {
    let target: IngestTarget
    let paths: [String]
    /// Inode and size of each followed file, to notice rotation by rename or truncation.
    var seen: [String: (inode: UInt64, size: Int64)] = [:]
    /// Size and mtime of gzip files seen last round: a gzip file is read once it stops changing.
    var gzipSeen: [String: (Int64, Int64)] = [:]
    /// Rotations seen so far: a followed file renamed away or truncated.
    public private(set) var rotations = 0
    /// Files the last round looked at.
    public private(set) var followed = 0
    private var added = false

    /// Follows into a SQLite database; derived facts are refreshed with each round that added records.
    public init(db: Database, paths: [String], options: IngestOptions) {
        var options = options
        // Small batches for a round that is a bulk load (the first, into an empty database),
        // whose batches commit as they are read; other rounds commit once, with their facts.
        options.batchLines = min(options.batchLines, 20_000)
        target = SQLiteIngest(db: db, options: options)
        self.paths = paths
    }

    /// Follows into a ClickHouse server: each round's batches are sent as they fill and the rest
    /// at the round's end, so a record is in within about a round.
    public init(clickhouse: ClickHouseIngest, paths: [String]) {
        clickhouse.following = true
        target = clickhouse
        self.paths = paths
    }

    /// One round: ingests what is new. Returns the round's summary.
    func round() throws -> IngestSummary {
        var problems: [String] = []
        let files = FileWalker.expand(paths, problems: &problems).filter { !$0.isStdin }
        var todo: [InputFile] = []
        for f in files {
            let path = SourcePaths.canonical(f.path)
            if let st = Follower.stat(path) {
                if let old = seen[path], old.inode != st.inode {
                    rotations += 1
                    // A followed file renamed away (logrotate's default): finish the old file first,
                    // as the same source under its new name; the new file at the old name starts a
                    // source of its own.
                    if let moved = Follower.find(inode: old.inode, near: path), !todo.contains(where: { $0.path == moved }) {
                        try target.moveSource(from: path, to: moved)
                        todo.append(InputFile(path: moved, named: false))
                    }
                } else if let old = seen[path], st.size < old.size {
                    rotations += 1  // copytruncate: the run reads it as another file at the path
                }
                seen[path] = (st.inode, st.size)
                if Follower.isGzip(path) {
                    let now = (st.size, st.mtime)
                    defer { gzipSeen[path] = now }
                    guard let before = gzipSeen[path], before == now else { continue }  // still being written
                }
            }
            if !todo.contains(where: { $0.path == path }) { todo.append(InputFile(path: path, named: f.named)) }
        }
        followed = files.count
        var summary = try target.run(files: todo, problems: problems)
        // A gzip file that ends inside a member is still being written (logrotate compressing):
        // what it holds so far is in, and the rest is read when it grows. A plain ingest, which
        // waits for nothing, reports such a file as truncated.
        let truncated = "\(InputError.truncatedGzip)"
        for i in summary.files.indices where summary.files[i].error == truncated {
            summary.files[i].complete = true
            summary.files[i].error = nil
            summary.files[i].warnings.append("still being written: read up to its last whole block, the rest when it grows")
        }
        added = added || summary.totalRecords > 0
        return summary
    }

    /// Rounds every `interval` seconds until `stop()` is true; calls `report` after every round
    /// (with what it read, often nothing). Returns whether every round ended without a problem.
    public func run(interval: Double, stop: () -> Bool, report: (IngestSummary) -> Void) throws -> Bool {
        var ok = true
        while !stop() {
            let s = try round()
            report(s)
            ok = ok && !s.failed
            var waited = 0.0
            while waited < interval && !stop() {
                usleep(20_000)
                waited += 0.02
            }
        }
        try target.followEnded(added: added)
        return ok
    }

    struct FileStat { let inode: UInt64; let size: Int64; let mtime: Int64 }

    static func stat(_ path: String) -> FileStat? {
        var st = Foundation.stat()
        guard lstatOrStat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStat(
            inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    /// A file in the same directory as `path` with inode `inode` (where a rotation moved it).
    static func find(inode: UInt64, near path: String) -> String? {
        let dir = (path as NSString).deletingLastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return nil }
        for n in names.sorted() {
            let p = dir + "/" + n
            if let st = stat(p), st.inode == inode { return p }
        }
        return nil
    }

    static func isGzip(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        let b = h.readData(ofLength: 2)
        return b.count == 2 && b[b.startIndex] == 0x1f && b[b.startIndex + 1] == 0x8b
    }
}

/// stat(2), callable where a `stat` method shadows the C function.
@inline(__always) private func lstatOrStat(_ path: String, _ st: inout Foundation.stat) -> Int32 { stat(path, &st) }
