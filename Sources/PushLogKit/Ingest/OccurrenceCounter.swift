/// Numbers the occurrences of identical records within one file: a record's identity is
/// its time and its bytes' hash, and the k-th repeat of both in the file gets the hash mixed with
/// k. The first occurrence keeps the plain hash, so databases written before occurrences were
/// counted dedupe against a new read of the same file; a re-delivered or rotated copy holds the
/// same lines in the same order, so it numbers them the same way and adds nothing.
///
/// Memory stays bounded: a repeat counts as one only while the previous occurrence is within
/// `windowLines` lines and `windowBytes` bytes; further apart, identical records are taken as one
/// (a log that repeats a line with the same time so far apart is not time-ordered). The rule
/// depends only on the file's content, but a run of repeats can reach back through the whole
/// file, so a resumed read first replays the window before its start (`warmUp`) and then takes
/// the runs of repeats open at that point from where the last read committed (`RepeatLedger`,
/// `restore`): it numbers the rest exactly as a whole read would.
final class OccurrenceCounter {
    static let windowLines = 50_000
    static let windowBytes: Int64 = 8 << 20

    /// The last occurrence of a record that repeats: its key, how many identical records its
    /// run holds so far, and where it ends.
    struct Run: Equatable {
        var key: Int64
        var count: Int32
        var line: Int
        var offset: Int64
    }

    /// The last occurrence of a record, by its time and hash folded into 64 bits: two records
    /// folding alike (about one chance in 10^10 per window) are numbered as repeats, which a
    /// copy of the file repeats too, so nothing is lost.
    private var seen: [Int64: (count: Int32, line: Int, offset: Int64)] = [:]
    private var nextSweep = OccurrenceCounter.windowLines

    /// The occurrence number of a record with hash `h` and time `time` ending at `line`/`offset`:
    /// how many identical records came before it within the window.
    @inline(__always)
    func number(_ h: (Int64, Int64), time: Int64, line: Int, offset: Int64) -> Int32 {
        if line >= nextSweep { sweep(line: line, offset: offset) }
        let key = OccurrenceCounter.key(h, time: time)
        var k: Int32 = 0
        if let prev = seen[key], prev.line >= line - OccurrenceCounter.windowLines,
            prev.offset >= offset - OccurrenceCounter.windowBytes
        {
            k = prev.count
        }
        seen[key] = (k &+ 1, line, offset)
        return k
    }

    /// A record's key in the table: its time and line hash folded into 64 bits.
    @inline(__always)
    static func key(_ h: (Int64, Int64), time: Int64) -> Int64 {
        Int64(bitPattern: LineHash.fmix(UInt64(bitPattern: time) &* LineHash.c1 ^ UInt64(bitPattern: h.0))) ^ h.1
    }

    /// Takes the runs of repeats a whole read has open at the resume point, after the replay of
    /// the window before it: the replay saw only the ends of the runs, and counted them from there.
    func restore(_ runs: [Run]) {
        for r in runs { seen[r.key] = (r.count, r.line, r.offset) }
    }

    /// The identity of the `k`-th occurrence of a record whose line hashes to `h`. Applied twice
    /// with the same `k` it gives `h` back, so an identity and its number recover the line's hash.
    @inline(__always)
    static func identity(_ h: (Int64, Int64), occurrence k: Int32) -> (Int64, Int64) {
        k == 0 ? h : (h.0 ^ Int64(k) &* -0x61C8_8646_80B5_83EB, h.1 ^ Int64(k) &* 0x2545_F491_4F6C_DD1D)
    }

    /// Forgets what is outside the window, so the table holds at most two windows of records.
    private func sweep(line: Int, offset: Int64) {
        seen = seen.filter {
            $0.value.line >= line - OccurrenceCounter.windowLines && $0.value.offset >= offset - OccurrenceCounter.windowBytes
        }
        nextSweep = line + OccurrenceCounter.windowLines
    }
}
