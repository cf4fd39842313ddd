import Foundation

/// Where the read of one file starts, decided from its `sources` row and its fingerprint: the
/// whole file, on from a committed position (a grown or interrupted file), or not at all.
struct ResumePlan {
    /// The file's row in `sources` (created on first sight).
    var sourceID: Int64
    /// The stream offset and line count committed by an earlier run (0 for a full read).
    var offset: Int64 = 0
    var lines = 0
    /// Why the file was refused last time, when it is unchanged and refused again.
    var refusedBefore: String?
    /// The other files of its rotation set, whose lines its own may continue.
    var siblings: [Lineage.Sibling] = []
    /// The time of its first record, when an earlier run read some of it (`sources` keeps the
    /// earliest, which in a time-ordered log is the first: what `Lineage` decided from).
    var firstTime: Int64?
    /// The runs of repeats open at the committed position (`RepeatLedger`).
    var openRuns: [OccurrenceCounter.Run] = []
}

extension Ingester {
    /// Finds or creates the file's source row and decides between skip (nil), resume and a
    /// full read, in one short transaction.
    func planResume(
        _ f: InputFile, _ st: (size: Int64, mtime: Int64)?, head: String?,
        _ fs: inout FileSummary
    ) throws -> ResumePlan? {
        try db.beginUnit()
        var plan = ResumePlan(sourceID: 0)
        if let row = try sources.row(path: f.path) {
            plan.sourceID = row.id
            let oldSize = row.size, oldMtime = row.mtime, oldHeadLen = row.headLength
            let oldHead = row.headHash
            let offset = row.offset, lines = row.lines, complete = row.complete
            fs.format = row.format ?? fs.format
            let oldError = row.error
            let same = st != nil && complete && st!.size == oldSize && st!.mtime == oldMtime && head == oldHead
            // A refused file is looked at again (its head only): a format forced or defined since may read it.
            if same && fs.format == Ingester.refusedFormat { plan.refusedBefore = oldError }
            // A binary file stays refused whatever formats are known (unless one is forced).
            let binary = fs.format == Ingester.refusedFormat && (oldError ?? "").hasPrefix("not a text log") && options.inputFormat == nil
            if same && (fs.format != Ingester.refusedFormat || binary) {
                if binary { fs.refused = oldError }
                try db.commitUnit()
                fs.unchanged = true
                return nil
            }
            // Same beginning as before (compared over the old head length) and not shorter: read on from where we stopped.
            if let st, !f.isStream, oldHead != nil, st.size >= oldSize || !complete,
                Ingester.headHash(f.path, length: oldHeadLen) == oldHead
            {
                plan.offset = offset
                plan.lines = lines
                plan.firstTime = row.firstTime
                if lines > 0 { plan.openRuns = try sources.openRuns(row.id) }
            } else if !f.isStdin && lines > 0 {
                // Another file at the path (copytruncate, or a rename this run did not see): the old
                // one's row keeps its records under a name of its own, and this file starts afresh.
                try sources.setAside(row.id, path: f.path)
                plan.sourceID = try sources.add(path: f.path)
            }
        } else {
            plan.sourceID = try sources.add(path: f.path)
        }
        if !f.isStdin { plan.siblings = try sources.siblings(of: f.path) }
        try db.commitUnit()
        return plan
    }
}
