import Foundation

/// Where `Lineage` asks which source stored a record: the SQLite writer, or the records a
/// ClickHouse server holds.
protocol StoredRecordSource {
    /// The source that stored the record `e` with identity `lineHash` (folded), or nil.
    func storedSource(of e: Event, lineHash: Int64) throws -> Int64?
}

extension RecordWriter: StoredRecordSource {}

/// Which files a file's lines continue. A log rotated mid-burst (a retry written twice in one
/// second, with no id to tell the two apart) leaves identical lines at the end of the old file
/// and the start of the new one: numbered per file, both would be the first occurrence and the
/// second would be dropped as a duplicate. So a file's occurrences are counted on from those of
/// the files of its rotation set (`RotationName`) that ended before it began: the k-th
/// occurrence in the file takes the number after the c its predecessors stored.
///
/// A predecessor is a member of the set whose records began before the file's first record and
/// ended no later. A copy of the file (renamed, gzipped, re-delivered) begins when the file does,
/// so it is never one, and its records keep their numbers and remain duplicates. A rotated file
/// whose records all fall in the one second the next file starts with cannot be told from a
/// copy by its times: its identical lines are taken as one, as before, and counted (`ambiguous`).
struct Lineage {
    /// A member of the file's rotation set, as `sources` has it.
    struct Sibling {
        let id: Int64
        let firstTime: Int64?
        let lastTime: Int64?
    }
    private struct Key: Hashable {
        let time: Int64
        let hash: Int64
    }

    private let siblings: [Sibling]
    private var decided = false
    /// The time of the file's first record.
    private var start = Int64.min
    private var predecessors: Set<Int64> = []
    /// Members that began and ended in the second the file begins: predecessors or copies.
    private var lookalikes: Set<Int64> = []
    /// Records taken for one of a lookalike's, which may have been a line of their own.
    private(set) var ambiguous = 0
    /// The predecessors' last record time: no later record can be identical to one of theirs.
    private var until = Int64.min
    /// How many of each record the predecessors stored, once looked up.
    private var carried: [Key: Int32] = [:]

    /// `firstTime` is the time of the file's first record when an earlier run read it (a
    /// resumed read), nil when this read starts at its first record.
    init(siblings: [Sibling], firstTime: Int64?) {
        self.siblings = siblings
        if let firstTime { decide(firstTime) }
    }

    private mutating func decide(_ start: Int64) {
        decided = true
        self.start = start
        for s in siblings {
            guard let first = s.firstTime, let last = s.lastTime, first <= start, last <= start else { continue }
            if first < start {
                predecessors.insert(s.id)
                until = max(until, last)
            } else {
                lookalikes.insert(s.id)
            }
        }
    }

    /// The identity `item`'s event is stored under: its identity in the file, or, where a
    /// predecessor stored the same record, its occurrence counted on from theirs.
    @inline(__always)
    mutating func identity(_ item: ParsedItem, _ writer: some StoredRecordSource) throws -> (Int64, Int64) {
        let t = item.event.time!
        if !decided { decide(t) }
        let identity = t <= until ? try counted(item, writer) : item.hash
        if t == start, !lookalikes.isEmpty,
            let src = try writer.storedSource(of: item.event, lineHash: RecordWriter.lineHash(identity)), lookalikes.contains(src)
        {
            ambiguous += 1
        }
        return identity
    }

    /// What a file's summary says of its `ambiguous` records.
    static func warning(ambiguous n: Int) -> String {
        "\(n) record\(n == 1 ? "" : "s") identical to those of a rotated file whose records all fall in the second this one "
            + "begins with: taken as one each, since a copy of it looks the same"
    }

    /// `item`'s occurrence counted on from the predecessors'.
    private mutating func counted(_ item: ParsedItem, _ writer: some StoredRecordSource) throws -> (Int64, Int64) {
        let t = item.event.time!
        let line = OccurrenceCounter.identity(item.hash, occurrence: item.occurrence)
        let key = Key(time: t, hash: RecordWriter.lineHash(line))
        let before: Int32
        if let c = carried[key] {
            before = c
        } else {
            var c: Int32 = 0
            while let src = try writer.storedSource(
                of: item.event, lineHash: RecordWriter.lineHash(OccurrenceCounter.identity(line, occurrence: c))),
                predecessors.contains(src)
            {
                c += 1
            }
            // Bounded: looked up again when forgotten, with the same answer.
            if carried.count >= 100_000 { carried.removeAll() }
            carried[key] = c
            before = c
        }
        return OccurrenceCounter.identity(line, occurrence: before &+ item.occurrence)
    }
}
