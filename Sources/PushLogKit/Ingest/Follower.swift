import Foundation

/// `ingest --follow`: keeps ingesting paths as they grow, by polling. Each round is an ordinary
/// incremental ingest (unchanged files cost a stat; grown files resume at their committed
/// offset; a truncated file — copytruncate — no longer matches its fingerprint and is read from
/// the start as a new file that continues the old one (Lineage); a file renamed away keeps its
/// source and resumes under its new name), so a kill -9 at any moment is
/// completed by a plain `ingest` of the same paths, and derived facts are refreshed
/// incrementally after each round that added records.
public final class Follower {
    let db: Database
    var options: IngestOptions
    let paths: [String]
    /// Inode of each followed file, to notice rotation by rename.
    var inodes: [String: UInt64] = [:]
    /// Size and mtime of gzip files seen last round: a gzip file is read once it stops changing.
    var gzipSeen: [String: (Int64, Int64)] = [:]

    public init(db: Database, paths: [String], options: IngestOptions) {
        self.db = db
        self.paths = paths
        self.options = options
        // Small batches for a round that is a bulk load (the first, into an empty database),
        // whose batches commit as they are read; other rounds commit once, with their facts.
        self.options.batchLines = min(options.batchLines, 20_000)
    }

    /// One round: ingests what is new. Returns the round's summary.
    func round() throws -> IngestSummary {
        var problems: [String] = []
        let files = FileWalker.expand(paths, problems: &problems)
        var todo: [InputFile] = []
        for f in files {
            let path = SourcePaths.canonical(f.path)
            // A followed file renamed away (logrotate's default): finish the old file first.
            if let st = Follower.stat(path) {
                if let old = inodes[path], old != st.inode, let moved = Follower.find(inode: old, near: path),
                    !todo.contains(where: { $0.path == moved })
                {
                    // The file is the same source under its new name: it resumes where it was, and
                    // the new file at the old name starts a source of its own.
                    try SourceRows.move(db, from: path, to: moved)
                    todo.append(InputFile(path: moved, named: false))
                }
                inodes[path] = st.inode
                if Follower.isGzip(path) {
                    let now = (st.size, st.mtime)
                    defer { gzipSeen[path] = now }
                    guard let before = gzipSeen[path], before == now else { continue }  // still being written
                }
            }
            if !todo.contains(where: { $0.path == path }) { todo.append(InputFile(path: path, named: f.named)) }
        }
        var summary = try Ingester(db: db, options: options).run(files: todo)
        summary.problems = problems + summary.problems
        // A gzip file that ends inside a member is still being written (logrotate compressing):
        // what it holds so far is in, and the rest is read when it grows. A plain ingest, which
        // waits for nothing, reports such a file as truncated.
        let truncated = "\(InputError.truncatedGzip)"
        for i in summary.files.indices where summary.files[i].error == truncated {
            summary.files[i].complete = true
            summary.files[i].error = nil
            summary.files[i].warnings.append("still being written: read up to its last whole block, the rest when it grows")
        }
        return summary
    }

    /// Rounds every `interval` seconds until `stop()` is true; calls `report` after each round
    /// that read something. Returns whether every round ended without a problem.
    public func run(interval: Double, stop: () -> Bool, report: (IngestSummary) -> Void) throws -> Bool {
        var ok = true
        while !stop() {
            let s = try round()
            if s.files.contains(where: { !$0.unchanged }) || !s.problems.isEmpty { report(s) }
            ok = ok && !s.failed
            var waited = 0.0
            while waited < interval && !stop() {
                usleep(20_000)
                waited += 0.02
            }
        }
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
