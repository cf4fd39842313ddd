import Foundation

/// Records encoded as binary rows (`RecordRows`), how many, and each row's identity and where
/// its bytes start: the batch a lookup of what the database already stores can thin out.
final class EncodedRows {
    var bytes: [UInt8] = []
    var count = 0
    private(set) var keys: [RowKey] = []
    private(set) var starts: [Int] = []

    /// A record's identity as the stores key it: its table (sends, registrations, settings,
    /// receipts, unregistrations), time and folded line hash; and its line, which tells a row of
    /// this file from another file's.
    struct RowKey: Hashable {
        let table: UInt8
        let time: Int64
        let hash: Int64
        var line = 0
        var kind = EventKind.send

        static func table(_ kind: EventKind) -> UInt8 {
            switch kind {
            case .send, .request, .response: 0
            case .register: 1
            case .settings: 2
            case .receipt: 3
            case .unregister: 4
            }
        }

        /// The identity alone (what two files' equal records share).
        var identity: RowKey { RowKey(table: table, time: time, hash: hash) }
    }

    /// Notes the row `take` just wrote from `start` on.
    func added(_ item: ParsedItem, start: Int) {
        let kind = item.event.kind!
        keys.append(
            RowKey(
                table: RowKey.table(kind), time: item.event.time!, hash: item.hash.0 ^ item.hash.1, line: item.recordLine, kind: kind))
        starts.append(start)
        count += 1
    }

    /// Keeps the rows `keep` says yes to, in order.
    func filter(_ keep: (RowKey) -> Bool) {
        var out: [UInt8] = [], kept: [RowKey] = [], at: [Int] = []
        out.reserveCapacity(bytes.count)
        for i in keys.indices where keep(keys[i]) {
            at.append(out.count)
            out += bytes[starts[i]..<(i + 1 < starts.count ? starts[i + 1] : bytes.count)]
            kept.append(keys[i])
        }
        bytes = out
        keys = kept
        starts = at
        count = kept.count
    }

    /// Forgets the rows from `row` on.
    func cut(at row: Int) {
        guard row < count else { return }
        bytes.removeSubrange(starts[row]...)
        keys.removeSubrange(row...)
        starts.removeSubrange(row...)
        count = row
    }

    func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        count = 0
    }
}

/// Blocks queued in this run and not yet confirmed by the server, by file, tables and time span:
/// a lookup of stored records cannot see them, so a lookup whose span meets another file's
/// waits for them first (a copy read in the same run as its original).
final class UnconfirmedBlocks {
    private var spans: [(path: String, tables: UInt8, lo: Int64, hi: Int64)] = []
    private var rejectsOf: Set<String> = []

    func add(_ path: String, _ keys: ArraySlice<EncodedRows.RowKey>) {
        guard let span = Self.span(keys) else { return }
        spans.append((path, span.tables, span.lo, span.hi))
    }

    func addRejects(_ path: String) { rejectsOf.insert(path) }

    func meets(_ path: String, tables: UInt8, lo: Int64, hi: Int64) -> Bool {
        spans.contains { $0.path != path && $0.tables & tables != 0 && $0.lo <= hi && lo <= $0.hi }
    }

    func rejectsMeet(_ path: String) -> Bool { rejectsOf.contains { $0 != path } }

    func clear() {
        spans = []
        rejectsOf = []
    }

    /// The tables (a bit each) and the time span of `keys`.
    static func span(_ keys: ArraySlice<EncodedRows.RowKey>) -> (tables: UInt8, lo: Int64, hi: Int64)? {
        guard let first = keys.first else { return nil }
        var tables: UInt8 = 0, lo = first.time, hi = first.time
        for k in keys {
            tables |= 1 << k.table
            lo = min(lo, k.time)
            hi = max(hi, k.time)
        }
        return (tables, lo, hi)
    }
}

/// The time span of the records each table stores, as of the run's start and widened by every
/// block the run sends: a batch outside it holds no stored record, and needs no lookup (a load
/// of new logs, in time order, looks nothing up).
final class StoredSpans {
    private var spans: [(lo: Int64, hi: Int64)?] = Array(repeating: nil, count: 5)

    func widen(table: Int, lo: Int64, hi: Int64) {
        spans[table] = spans[table].map { (min($0.lo, lo), max($0.hi, hi)) } ?? (lo, hi)
    }

    func widen(_ keys: ArraySlice<EncodedRows.RowKey>) {
        for k in keys { widen(table: Int(k.table), lo: k.time, hi: k.time) }
    }

    func meet(tables: UInt8, lo: Int64, hi: Int64) -> Bool {
        spans.indices.contains { t in
            guard tables & (1 << t) != 0, let s = spans[t] else { return false }
            return s.lo <= hi && lo <= s.hi
        }
    }
}

extension ClickHouseIngest {
    /// Reads the spans of the records stored so far (`StoredSpans`).
    func loadStoredSpans() throws {
        let t = try client.table("spans", sql: "SELECT kind, min(time_ms), max(time_ms) FROM \(db).record_keys GROUP BY kind")
        for row in t.rows {
            guard case .text(let kind) = row[0], let k = EventKind(name: kind), case .int(let lo) = row[1], case .int(let hi) = row[2]
            else { continue }
            storedSpans.widen(table: Int(EncodedRows.RowKey.table(k)), lo: lo, hi: hi)
        }
    }

    /// The event kinds stored in each table bit of a span.
    static func kinds(tables: UInt8) -> [String] {
        EventKind.allCases.filter { tables & (1 << EncodedRows.RowKey.table($0)) != 0 }.map(\.name)
    }

    /// Takes out of `batch` the records the database already stores, as the SQLite store's
    /// `INSERT OR IGNORE` does: each counts as a duplicate in `rows` (nil: not counted), except,
    /// when `ownAt` names this file, one stored from the same line of it (sent by a killed run, or by
    /// a run reading the file alongside), which counts as new and is not sent again. Blocks of other
    /// files still in flight that could hold them are waited for first.
    func dropStored(
        _ batch: EncodedRows, rows: RecordRows?, ownAt path: String?, file: String, shared: SharedBlock?, _ inserts: InsertQueue?
    ) throws {
        guard let span = UnconfirmedBlocks.span(batch.keys[...]),
            storedSpans.meet(tables: span.tables, lo: span.lo, hi: span.hi)
        else { return }
        if let inserts, unconfirmed.meets(file, tables: span.tables, lo: span.lo, hi: span.hi) {
            if let shared { try send(shared, inserts) }
            try inserts.wait()
            unconfirmed.clear()
        }
        let t = try client.table(
            "stored",
            sql: """
                SELECT kind, time_ms, line_hash, source = {path:String} AS own, line FROM \(db).record_keys
                WHERE time_ms >= {lo:Int64} AND time_ms <= {hi:Int64} AND kind IN {kinds:Array(String)}
                """,
            params: [
                "path": ClickHouseClient.parameter(path ?? ""), "lo": "\(span.lo)", "hi": "\(span.hi)",
                "kinds": ClickHouseStatements.array(Self.kinds(tables: span.tables)),
            ])
        guard !t.rows.isEmpty else { return }
        // Each stored identity, with the line this file stored it from (-1: another file's).
        var stored: [EncodedRows.RowKey: Int] = [:]
        for row in t.rows {
            guard case .text(let kind) = row[0], let k = EventKind(name: kind), case .int(let time) = row[1],
                case .text(let hex) = row[2], let h = UInt64(hex, radix: 16)
            else { continue }
            var own = -1
            if path != nil, case .int(1) = row[3], case .int(let line) = row[4] { own = Int(line) }
            let key = EncodedRows.RowKey(table: EncodedRows.RowKey.table(k), time: time, hash: Int64(bitPattern: h))
            stored[key] = max(stored[key] ?? -1, own)
        }
        batch.filter { key in
            guard let line = stored[key.identity] else { return true }
            if line != key.line { rows?.countStored(key.kind) }
            return false
        }
    }

    /// Takes out of `rejects` the rejected lines the database already stores (a copy's), each
    /// counted as a duplicate, as the SQLite store counts a reject it holds; one this file stored
    /// from the same line (sent by a killed run, read again) stays counted and is not sent again.
    func dropStoredRejects(_ rejects: inout ArraySlice<RecordRows.Reject>, rows: RecordRows, file: String, _ inserts: InsertQueue) throws {
        guard !rejects.isEmpty else { return }
        if unconfirmed.rejectsMeet(file) {
            try inserts.wait()
            unconfirmed.clear()
        }
        // Hex digits only: safe as literals, and far smaller than the query size limit.
        let list = rejects.map { "'\(ClickHouseIngest.hex(UInt64(bitPattern: $0.lineHash)))'" }.joined(separator: ",")
        let t = try client.table(
            "stored",
            sql: "SELECT line_hash, if(source = {path:String}, line, 0) FROM \(db).rejects WHERE line_hash IN (\(list))",
            params: ["path": ClickHouseClient.parameter(file)], settings: ["max_query_size": "\(1 << 20)"])
        guard !t.rows.isEmpty else { return }
        // Each stored reject, with the line this file stored it from (0: another file's).
        var stored: [Int64: Int] = [:]
        for row in t.rows {
            guard case .text(let hex) = row[0], let h = UInt64(hex, radix: 16), case .int(let line) = row[1] else { continue }
            stored[Int64(bitPattern: h)] = max(stored[Int64(bitPattern: h)] ?? 0, Int(line))
        }
        rejects =
            rejects.filter {
                guard let line = stored[$0.lineHash] else { return true }
                if line != $0.line { rows.countStoredReject() }
                return false
            }[...]
    }

    /// The runs of repeats a `sources` row keeps (key,count,line,offset;...).
    static func runs(_ text: String) -> [OccurrenceCounter.Run] {
        text.split(separator: ";").compactMap { run in
            let f = run.split(separator: ",").compactMap { Int64($0) }
            guard f.count == 4, let count = Int32(exactly: f[1]) else { return nil }
            return OccurrenceCounter.Run(key: f[0], count: count, line: Int(f[2]), offset: f[3])
        }
    }

    static func text(_ runs: some Sequence<OccurrenceCounter.Run>) -> String {
        runs.sorted { $0.key < $1.key }.map { "\($0.key),\($0.count),\($0.line),\($0.offset)" }.joined(separator: ";")
    }
}
