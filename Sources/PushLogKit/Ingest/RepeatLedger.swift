/// The writer's copy of the runs of repeats a file's `OccurrenceCounter` has open, as of the
/// position last committed: kept with that position (`source_repeats`), so a resumed read
/// goes on numbering a run where a whole read would, however far back the run began. Only
/// records that repeat are kept, so a log without repeats costs a lookup in an empty table.
struct RepeatLedger {
    private(set) var runs: [Int64: OccurrenceCounter.Run] = [:]
    /// Runs changed since the last save (a new file's first save also clears stale rows).
    private(set) var changed: Bool
    /// Events of a line whose resume position is not reached yet (a packed record's entries):
    /// a crash before it re-reads the line, so they count once it is.
    private var held: [ParsedItem] = []

    init(_ restored: [OccurrenceCounter.Run], fresh: Bool) {
        for r in restored { runs[r.key] = r }
        changed = fresh
    }

    /// Notes one written event; `resumable` when the item moves the resume position.
    @inline(__always)
    mutating func note(_ item: ParsedItem, resumable: Bool) {
        if resumable && !held.isEmpty {
            for h in held { apply(h) }
            held.removeAll()
        }
        if item.kind == .event && (item.occurrence > 0 || !runs.isEmpty) {
            if resumable { apply(item) } else { held.append(item) }
        }
    }

    private mutating func apply(_ item: ParsedItem) {
        let h = OccurrenceCounter.identity(item.hash, occurrence: item.occurrence)
        let key = OccurrenceCounter.key(h, time: item.event.time!)
        if item.occurrence > 0 {
            runs[key] = OccurrenceCounter.Run(key: key, count: item.occurrence + 1, line: item.countedLine, offset: item.endOffset)
            changed = true
        } else if runs.removeValue(forKey: key) != nil {
            changed = true  // a new run of one: the replay finds it
        }
    }

    /// The runs that can still reach a line after `line`/`offset`; forgets the others.
    mutating func prune(line: Int, offset: Int64) {
        let before = runs.count
        runs = runs.filter {
            $0.value.line > line - OccurrenceCounter.windowLines && $0.value.offset >= offset - OccurrenceCounter.windowBytes
        }
        if runs.count != before { changed = true }
    }

    mutating func saved() { changed = false }
}
