/// Parsed items of one file as export rows, straight from the parser: each record is encoded in
/// `RecordDump`'s columns with the bytes `RowEncoder` writes for the same record stored in SQLite
/// and dumped (tokens as stored, dimension strings, the apns-id as `apns_text` reads it back, the
/// reason's category), and every item is counted as the SQLite ingest counts it into `sources`.
///
/// What the database did besides storing is done here: a record whose identity (time and line
/// hash, per table as its key has it) came earlier in the file is a duplicate and gives no row; a
/// record lacking what its table requires (a registration or unregistration without a token, a
/// receipt without an apns-id, settings without an authorization) is dropped as `INSERT OR
/// IGNORE` drops it; a rejected line that came before (its identity, or its identity before file
/// context was mixed in) is a duplicate too. Memory: the identities of one file's records.
final class RecordRows {
    /// How rows are written: an export format, or ClickHouse's RowBinary (the columns in
    /// `RecordDump.columns` order, as `records` types them), which `NativeBlock` turns into the
    /// columns the ClickHouse ingest sends.
    enum Encoding { case json, tsv, rowBinary }
    let encoding: Encoding
    /// Rows are written for records in [since, until) only (all are counted).
    var since = Int64.min, until = Int64.max
    /// Keep the rejected lines in `rejects` (the ClickHouse ingest sends them; export lists a few).
    var keepRejects = true
    /// The file's counts so far, as the SQLite ingest adds them to its `sources` row.
    private(set) var counts = BatchCounts()
    /// The line number of the last item that is a resume position (`sources.lines`).
    private(set) var lastLine = 0
    /// The stream offset after that line: where a read of the file grown since resumes.
    private(set) var lastOffset: Int64 = 0
    /// Rejected lines not yet taken by the caller (when `keepRejects`).
    var rejects: [Reject] = []

    /// The Apple delivery-metrics rows read (the ClickHouse ingest stores them in `apple_metrics`).
    var metrics: [(day: String, pushType: String, status: String, count: Int64)] = []

    /// A rejected line as the `rejects` table keeps it.
    struct Reject {
        var line: Int
        var reason: String
        var text: String
        var lineHash: Int64
    }

    private struct Identity: Hashable {
        let time: Int64
        let hash: Int64
    }
    /// Per table of the SQLite schema (sends, registers, settings, receipts, unregisters): the
    /// identities stored from this file.
    private var seen: [Set<Identity>] = Array(repeating: [], count: 5)
    private var rejectsSeen = Set<Int64>()
    /// Which of the file's rejects keep their text (as in SQLite; per read of the file here).
    private var rejectTexts = RejectTextBound()
    private var source: [UInt8] = []
    /// `"name":` for JSON, per column.
    private let keys: [[UInt8]]
    private var reasonCategory: [[UInt8]: ReasonCategory] = [:]
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    init(format: ExportFormat) {
        encoding = format == .jsonEachRow ? .json : .tsv
        keys = RecordDump.columns.map { Array("\"\($0)\":".utf8) }
    }

    init(encoding: Encoding) {
        self.encoding = encoding
        keys = RecordDump.columns.map { Array("\"\($0)\":".utf8) }
    }

    /// Starts a file: its path is each row's `source`; counts and identities start empty.
    func start(path: String) {
        counts = BatchCounts()
        lastLine = 0
        lastOffset = 0
        rejects = []
        metrics = []
        for i in seen.indices { seen[i] = [] }
        rejectsSeen = []
        rejectTexts = RejectTextBound()
        source = []
        let bytes = Array(path.utf8)
        switch encoding {
        case .json: ExportFormat.appendJSONString(bytes, &source)
        case .tsv: RowEncoder.appendTSV(bytes, &source)
        case .rowBinary: Self.appendBinary(bytes, &source)
        }
    }

    /// Counts one item and, for a record stored (not a duplicate) within the range, appends its
    /// row to `out`; returns whether it did.
    @discardableResult
    func take(_ item: ParsedItem, into out: inout [UInt8]) -> Bool {
        if item.kind != .pending && item.lineNumber > 0 {
            lastLine = item.lineNumber
            lastOffset = item.endOffset
        }
        switch item.kind {
        case .blank:
            counts.blank += 1
        case .pending:
            break
        case .event:
            counts.lines += 1
            let e = item.event
            let t = e.time!
            if counts.minT == nil || t < counts.minT! { counts.minT = t }
            if counts.maxT == nil || t > counts.maxT! { counts.maxT = t }
            counts.written += 1
            let kind = e.kind!
            let table: Int
            switch kind {
            case .send, .request, .response: table = 0
            case .register: table = e.token == nil ? -1 : 1
            case .settings: table = e.auth == nil ? -1 : 2
            case .receipt: table = e.apnsID == nil ? -1 : 3
            case .unregister: table = e.token == nil ? -1 : 4
            }
            let hash = item.hash.0 ^ item.hash.1  // RecordWriter.lineHash
            guard table >= 0, seen[table].insert(Identity(time: t, hash: hash)).inserted else {
                counts.duplicates += 1
                return false
            }
            counts.records[kind] += 1
            guard t >= since && t < until else { return false }
            append(e, time: t, hash: hash, line: item.recordLine, to: &out)
            return true
        case .reject:
            counts.lines += 1
            let hash = item.hash.0 ^ item.hash.1
            if rejectsSeen.contains(item.legacyHash) || !rejectsSeen.insert(hash).inserted {
                counts.duplicates += 1
            } else {
                counts.rejects += 1
                if keepRejects && item.textKept && rejectTexts.keep(item.reason.description) {
                    rejects.append(Reject(line: item.recordLine, reason: item.reason.description, text: item.text, lineHash: hash))
                }
            }
        case .skip:
            counts.lines += 1
            counts.skipped += 1
        case .ignore:
            counts.lines += 1
            counts.ignored += 1
            if !item.text.isEmpty && counts.ignoredLines.count < IgnoredLines.kept {
                counts.ignoredLines.append((item.recordLine, item.text))
            }
        case .metric:
            counts.lines += 1
            counts.metrics += 1
            if let m = item.metric { metrics.append(m) }
        }
        return false
    }

    /// A record `take` counted as new that the database already holds (a copy's): a duplicate.
    func countStored(_ kind: EventKind) {
        counts.records[kind] -= 1
        counts.duplicates += 1
    }

    /// A rejected line `take` counted that the database already holds: a duplicate.
    func countStoredReject() {
        counts.rejects -= 1
        counts.duplicates += 1
    }

    /// Adds the file's counts to its summary, as the SQLite ingest's batches add them.
    func summarize(into fs: inout FileSummary) {
        fs.records += counts.records
        fs.duplicates += counts.duplicates; fs.rejects += counts.rejects; fs.skipped += counts.skipped
        fs.ignored += counts.ignored; fs.lines += counts.lines; fs.metrics += counts.metrics
        if let t = counts.maxT { fs.newestTime = max(fs.newestTime ?? t, t) }
        fs.ignoredLines += counts.ignoredLines.prefix(IgnoredLines.kept - fs.ignoredLines.count)
        if fs.format == "sns" && fs.totalRecords > 0 {
            fs.warnings.append("SNS delivery-status logging samples successes: success counts may be sampled")
        }
    }

    // MARK: encoding

    /// Appends one record's row, ending in a newline.
    func append(_ e: Event, time: Int64, hash: Int64, line: Int, to out: inout [UInt8]) {
        let json = encoding == .json
        let kind = e.kind!
        if encoding == .rowBinary { return appendBinary(e, time: time, hash: hash, line: line, to: &out) }
        if json { out.append(contentsOf: "{\"kind\":\"".utf8) }
        out.append(contentsOf: kind.name.utf8)
        if json { out.append(UInt8(ascii: "\"")) }
        separator(&out)
        if json { out.append(contentsOf: keys[1]) }
        RowEncoder.appendInt(time, &out)
        separator(&out)
        if json { out.append(contentsOf: keys[2]); out.append(UInt8(ascii: "\"")) }
        let v = UInt64(bitPattern: hash)
        for shift in stride(from: 60, through: 0, by: -4) { out.append(Self.hex[Int((v >> UInt64(shift)) & 15)]) }
        if json { out.append(UInt8(ascii: "\"")) }
        separator(&out)
        if json { out.append(contentsOf: keys[3]) }
        out.append(contentsOf: source)
        int(4, Int64(line), &out)
        // The token, as the tokens table holds it (settings rows carry none).
        if kind != .settings, let token = e.token {
            text(5, token, &out)
            int(6, e.tokenMalformed ? 1 : 0, &out)
            int(7, e.tokenMasked ? 1 : 0, &out)
        } else {
            null(5, &out); null(6, &out); null(7, &out)
        }
        fields(e, &out)
        out.append(contentsOf: json ? [UInt8(ascii: "}"), 10] : [10])
    }

    /// RowBinary: the identity and token columns are not Nullable in `records` (no token is '').
    private func appendBinary(_ e: Event, time: Int64, hash: Int64, line: Int, to out: inout [UInt8]) {
        let kind = e.kind!
        Self.appendBinary(kind.name.utf8, &out)
        Self.appendFixed(time, &out)
        let v = UInt64(bitPattern: hash)
        for shift in stride(from: 60, through: 0, by: -4) { out.append(Self.hex[Int((v >> UInt64(shift)) & 15)]) }
        out.append(contentsOf: source)
        Self.appendFixed(Int64(line), &out)
        let token = kind == .settings ? nil : e.token
        Self.appendBinary(token ?? ByteSlice(start: nil, count: 0), &out)
        out.append(token != nil && e.tokenMalformed ? 1 : 0)
        out.append(token != nil && e.tokenMasked ? 1 : 0)
        fields(e, &out)
    }

    /// The columns after the token, by kind (NULL where the record's table has no such column).
    private func fields(_ e: Event, _ out: inout [UInt8]) {
        switch e.kind! {
        case .send, .request, .response:
            apnsID(8, e.apnsID, &out)
            text(9, e.env, &out); text(10, e.topic, &out); text(11, e.pushType, &out); int(12, e.priority, &out)
            text(13, e.collapseID, &out); int(14, e.expiration, &out); int(15, e.payloadBytes, &out)
            bool(16, e.contentAvailable, &out); bool(17, e.mutableContent, &out)
            bool(18, e.hasAlert, &out); bool(19, e.hasSound, &out); bool(20, e.hasBadge, &out)
            text(21, e.category, &out); text(22, e.threadID, &out); text(23, e.interruptionLevel, &out)
            double(24, e.relevance, &out); text(25, e.customKeys, &out); int(26, e.status, &out); text(27, e.reason, &out)
            category(e, &out)
            int(29, e.apnsTimestamp, &out); text(30, e.apnsUniqueID, &out); double(31, e.latencyMs, &out)
            int(32, e.attempt, &out); text(33, e.error, &out)
            for c in 34..<RecordDump.columns.count { null(c, &out) }
        case .register:
            for c in 8..<34 {
                switch c {
                case 9: text(9, e.env, &out)
                case 10: text(10, e.topic, &out)
                default: null(c, &out)
                }
            }
            text(34, e.device, &out); text(35, e.user, &out); text(36, e.appVersion, &out); text(37, e.osVersion, &out)
            text(38, e.auth, &out)
            for c in 39..<RecordDump.columns.count { null(c, &out) }
        case .settings:
            for c in 8..<34 { null(c, &out) }
            text(34, e.device, &out); text(35, e.user, &out); null(36, &out); null(37, &out); text(38, e.auth, &out)
            text(39, e.alertSetting, &out); text(40, e.soundSetting, &out); text(41, e.badgeSetting, &out)
            text(42, e.lockScreen, &out); text(43, e.notificationCenter, &out)
            null(44, &out); null(45, &out)
        case .receipt:
            apnsID(8, e.apnsID, &out)
            for c in 9..<34 { null(c, &out) }
            text(34, e.device, &out)
            for c in 35..<44 { null(c, &out) }
            text(44, e.receipt, &out); text(45, e.result, &out)
        case .unregister:
            for c in 8..<34 { null(c, &out) }
            text(34, e.device, &out); text(35, e.user, &out)
            for c in 36..<RecordDump.columns.count { null(c, &out) }
        }
    }

    @inline(__always) private func separator(_ out: inout [UInt8]) {
        out.append(encoding == .json ? UInt8(ascii: ",") : UInt8(ascii: "\t"))
    }

    /// A column without a value: JSON leaves it out, TSV writes `\N`, RowBinary its NULL flag.
    @inline(__always) private func null(_ c: Int, _ out: inout [UInt8]) {
        switch encoding {
        case .json: break
        case .tsv: out.append(contentsOf: "\t\\N".utf8)
        case .rowBinary: out.append(1)
        }
    }

    /// Before a value: the separator and JSON's key, or RowBinary's not-NULL flag.
    @inline(__always) private func key(_ c: Int, _ out: inout [UInt8]) {
        switch encoding {
        case .json: out.append(UInt8(ascii: ",")); out.append(contentsOf: keys[c])
        case .tsv: out.append(UInt8(ascii: "\t"))
        case .rowBinary: out.append(0)
        }
    }

    @inline(__always) private func int(_ c: Int, _ v: Int64?, _ out: inout [UInt8]) {
        guard let v else { return null(c, &out) }
        key(c, &out)
        if encoding != .rowBinary {
            RowEncoder.appendInt(v, &out)
        } else if Self.flagColumns.contains(c) {
            out.append(UInt8(truncatingIfNeeded: v))  // Nullable(UInt8)
        } else {
            Self.appendFixed(v, &out)
        }
    }

    @inline(__always) private func bool(_ c: Int, _ v: Bool?, _ out: inout [UInt8]) {
        int(c, v.map { $0 ? 1 : 0 }, &out)
    }

    /// A REAL column: SQLite stores NaN as NULL.
    private func double(_ c: Int, _ v: Double?, _ out: inout [UInt8]) {
        guard let v, !v.isNaN else { return null(c, &out) }
        key(c, &out)
        if encoding == .rowBinary {
            Self.appendFixed(Int64(bitPattern: v.bitPattern), &out)
        } else {
            out.append(contentsOf: ExportFormat.number(v).utf8)
        }
    }

    @inline(__always) private func text<C: Collection<UInt8>>(_ c: Int, _ v: C?, _ out: inout [UInt8]) {
        guard let v else { return null(c, &out) }
        key(c, &out)
        switch encoding {
        case .json: ExportFormat.appendJSONString(v, &out)
        case .tsv: RowEncoder.appendTSV(v, &out)
        case .rowBinary: Self.appendBinary(v, &out)
        }
    }

    /// The content-available .. has-badge columns: `Nullable(UInt8)` in `records`; other integers are Int64.
    private static let flagColumns = 16...20

    /// How `appendBinary` lays out each column of `RecordDump.columns`, with the type the server
    /// reads it as (`records`' type, without `LowCardinality`).
    static let binaryColumns: [NativeBlock.Column] = RecordDump.columns.enumerated().map { c, name in
        let integers: Set = [12, 14, 15, 26, 29, 32], doubles: Set = [24, 31]
        let (type, layout): (String, NativeBlock.Layout) =
            switch c {
            case 1: ("Int64", .fixed(8))
            case 2: ("FixedString(16)", .fixed(16))
            case 4: ("UInt64", .fixed(8))
            case 6, 7, flagColumns: ("UInt8", .fixed(1))
            case _ where integers.contains(c): ("Int64", .fixed(8))
            case _ where doubles.contains(c): ("Float64", .fixed(8))
            default: ("String", .string)
            }
        let nullable = c >= 8
        return NativeBlock.Column(name: name, type: nullable ? "Nullable(\(type))" : type, layout: layout, nullable: nullable)
    }

    /// A RowBinary string: its length as a LEB128 varint, then its bytes.
    static func appendBinary<C: Collection<UInt8>>(_ v: C, _ out: inout [UInt8]) {
        appendVarint(UInt64(v.count), &out)
        out.append(contentsOf: v)
    }

    /// A LEB128 varint, as RowBinary and Native write lengths and counts.
    static func appendVarint(_ v: UInt64, _ out: inout [UInt8]) {
        var n = v
        while n >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: n) | 0x80)
            n >>= 7
        }
        out.append(UInt8(n))
    }

    /// A RowBinary 64-bit integer (or a double's bits): little-endian.
    @inline(__always) static func appendFixed(_ v: Int64, _ out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    /// A UUID reads back lower case (ApnsIDKey), anything else as logged.
    private func apnsID(_ c: Int, _ v: ByteSlice?, _ out: inout [UInt8]) {
        guard let v else { return null(c, &out) }
        var key: (UInt64, UInt64) = (0, 0)
        guard ApnsIDKey.encode(v, into: &key) != nil else { return text(c, v, &out) }
        var lower = [UInt8](v)
        for i in lower.indices where lower[i] >= 0x41 && lower[i] <= 0x46 { lower[i] |= 0x20 }
        text(c, lower, &out)
    }

    /// The reason's category as the writer classifies it (a transport error without a response).
    private func category(_ e: Event, _ out: inout [UInt8]) {
        let c: ReasonCategory?
        if e.status != nil || e.reason != nil {
            if let reason = e.reason, reason.count > 0 {
                let k = [UInt8](reason) + withUnsafeBytes(of: e.status ?? -1) { Array($0) }
                if let hit = reasonCategory[k] {
                    c = hit
                } else {
                    let found = ReasonTaxonomy.category(status: e.status.map { Int($0) }, reason: reason.string)
                    if reasonCategory.count >= 4096 { reasonCategory.removeAll() }
                    reasonCategory[k] = found
                    c = found
                }
            } else {
                c = ReasonTaxonomy.category(status: e.status.map { Int($0) }, reason: nil)
            }
        } else {
            c = e.error != nil ? .transport : nil
        }
        text(28, c.map { Array($0.rawValue.utf8) }, &out)
    }
}
