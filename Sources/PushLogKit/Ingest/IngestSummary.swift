/// What one file's ingest did.
public struct FileSummary {
    public var path: String
    var format: String = "ndjson"
    var records = KindCounts()
    var duplicates = 0
    var rejects = 0
    var skipped = 0
    var ignored = 0
    /// The first lines of this run that the format passed over (line number, redacted start),
    /// at most `IgnoredLines.kept`: a line that was not read never vanishes unseen.
    public var ignoredLines: [(line: Int, text: String)] = []
    /// Daily aggregates read (Apple delivery metrics).
    var metrics = 0
    var lines = 0
    /// The time of the newest record read (ms), duplicates included.
    var newestTime: Int64?
    var bytes: Int64 = 0
    public var complete = true
    /// Why the file is incomplete or unreadable.
    public var error: String?
    /// True when the file was unchanged since the last ingest and not read at all.
    public var unchanged = false
    /// Line number the read resumed after (0 for a full read).
    var resumedAfterLine = 0
    public var warnings: [String] = []
    var seconds = 0.0
    /// Why the file was refused whole (not a text log, no known format), or nil.
    public var refused: String?

    init(path: String) { self.path = path }
    var totalRecords: Int { records.total }
}

/// The whole run: one summary per file and the totals.
public struct IngestSummary {
    public var files: [FileSummary] = []
    public var problems: [String] = []
    /// What was passed over without failing the run (a FIFO met while walking a folder).
    public var notes: [String] = []
    /// The signal (SIGINT, SIGTERM) that stopped the run, or nil.
    public var interruptedBy: Int32?
    var seconds = 0.0
    /// Time spent on indexes and derived facts after the records were loaded.
    var finalizeSeconds = 0.0

    var records: KindCounts {
        var r = KindCounts()
        for f in files { r += f.records }
        return r
    }
    public var duplicates: Int { files.reduce(0) { $0 + $1.duplicates } }
    var rejects: Int { files.reduce(0) { $0 + $1.rejects } }
    public var skipped: Int { files.reduce(0) { $0 + $1.skipped } }
    var ignored: Int { files.reduce(0) { $0 + $1.ignored } }
    /// Files refused whole in this run (an unchanged refused file is not counted again).
    var refused: Int { files.filter { $0.refused != nil && !$0.unchanged }.count }
    var bytes: Int64 { files.reduce(0) { $0 + $1.bytes } }
    var lines: Int { files.reduce(0) { $0 + $1.lines } }
    var totalRecords: Int { records.total }
    /// After a run rolled back whole: no file added anything (each is read again by the next run).
    mutating func forgetCounts() {
        for i in files.indices {
            var f = FileSummary(path: files[i].path)
            f.format = files[i].format
            f.unchanged = files[i].unchanged
            f.complete = files[i].unchanged
            f.error = files[i].error
            f.refused = files[i].refused
            files[i] = f
        }
    }

    /// True when any file was unreadable or incomplete (exit status 1).
    public var failed: Bool { !problems.isEmpty || files.contains { !$0.complete } }
    var recordsPerSecond: Double { seconds > 0 ? Double(lines) / seconds : 0 }
}
