import Foundation

/// What `ingest --follow` has done so far, as one status line: files followed, records added,
/// lines passed over, rotations seen, and how old the newest record added is. Each file's first
/// passed-over line is told once (as a plain ingest tells it), not every round.
public struct FollowStatus {
    public private(set) var files = 0
    public private(set) var records = 0
    public private(set) var passedOver = 0
    public private(set) var rejected = 0
    public private(set) var rotations = 0
    /// The time of the newest record added, ms.
    public private(set) var newest: Int64?
    private var told = Set<String>()

    public init() {}

    /// Adds a round; returns the lines to show once: the first passed-over line of each file
    /// not told before, and each file refused whole (unless a problem of the round says so).
    public mutating func add(_ round: IngestSummary, followed: Int, rotations: Int) -> [String] {
        files = followed
        self.rotations = rotations
        records += round.totalRecords
        passedOver += round.ignored
        rejected += round.rejects
        var tell: [String] = []
        for f in round.files {
            if f.totalRecords > 0, let t = f.newestTime { newest = max(newest ?? t, t) }
            if let why = f.refused, !f.unchanged, !round.problems.contains(where: { $0.hasPrefix(f.path + ": ") }),
                told.insert("refused " + f.path).inserted
            {
                tell.append("\(f.path): not read: \(why)")
            }
            guard f.ignored > 0, let first = f.ignoredLines.first, told.insert(f.path).inserted else { continue }
            tell.append("\(f.path): lines passed over (not \(f.format) records), the first: line \(first.line): \(first.text)")
        }
        return tell
    }

    /// The status line at `now` (ms).
    public func line(now: Int64) -> String {
        func n(_ count: Int, _ word: String) -> String { "\(CellFormat.grouped(Int64(count))) \(word)\(count == 1 ? "" : "s")" }
        var out = "following \(n(files, "file")): \(n(records, "record")) added, "
        if rejected > 0 { out += "\(n(rejected, "line")) rejected (pushlog rejects), " }
        out += "\(n(passedOver, "line")) passed over, "
        out += "\(n(rotations, "rotation")) seen"
        if let newest { out += ", newest record \(Self.age(ms: max(0, now - newest))) old" }
        return out
    }

    /// A lag as people say it: 42s, 7m, 3h 5m, 2d 4h.
    static func age(ms: Int64) -> String {
        let s = ms / 1000
        if s < 120 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" }
        if s < 86_400 { return "\(s / 3600)h \(s % 3600 / 60)m" }
        return "\(s / 86_400)d \(s % 86_400 / 3600)h"
    }
}
