import Foundation

/// `--compare previous`: runs a report on its range and on the same-length range just before,
/// and adds `COL_prev` and `COL_change` (the difference; for rates a difference of fractions,
/// which tables show in percentage points) after every figure of `summary` and `by_bucket`.
struct ReportComparison {
    static let comparedSections: Set<String> = ["summary", "by_bucket"]

    /// Merges `previous` into `current`. `by` is the bucket unit or dimension of by_bucket; time
    /// buckets are matched with the bucket `shift` ms earlier (the same place in the range).
    static func merge(current: ResultDocument, previous: ResultDocument, shift: Int64, by: String?) -> ResultDocument {
        var doc = current
        for si in doc.sections.indices where comparedSections.contains(doc.sections[si].name) {
            guard let prev = previous.section(doc.sections[si].name) else { continue }
            doc.sections[si] = merge(doc.sections[si], prev, shift: shift, by: by)
        }
        // A figure either range cannot show has no change (nor a previous value, when that
        // range is the one that cannot show it).
        for (name, why) in current.unobservable { doc.unobservable[name + "_change"] = why }
        for (name, why) in previous.unobservable { doc.unobservable[name + "_prev"] = why; doc.unobservable[name + "_change"] = why }
        for si in doc.sections.indices where comparedSections.contains(doc.sections[si].name) {
            for c in doc.sections[si].columns.indices where doc.unobservable[doc.sections[si].columns[c]] != nil {
                for r in doc.sections[si].rows.indices { doc.sections[si].rows[r][c] = .null }
            }
        }
        doc.notes += previous.notes.map { "the previous range: " + $0 }
        return doc
    }

    static func merge(_ cur: ResultTable, _ prev: ResultTable, shift: Int64, by: String?) -> ResultTable {
        // Key columns identify a row (matched between the ranges); counts, rates and numbers are
        // figures and get compared, as the report's header declares them (times and text are
        // not). Never decided by the values: the columns are the same over any data, empty too.
        let keys = cur.columns.indices.filter { cur.meaning(cur.columns[$0]).role == .key }
        let figures = cur.columns.indices.filter { isFigure(cur.meaning(cur.columns[$0]).role) }
        let timeBuckets = cur.columns.contains("bucket") && (by.flatMap(TimeUnit.init(rawValue:)) != nil)
        func key(_ row: [SQLValue], shifted: Bool) -> [String] {
            keys.map { c in
                let v = CellFormat.plain(row[c])
                if shifted, timeBuckets, cur.columns[c] == "bucket", let by, let start = TimeBucket.start(label: v, by: by) {
                    return TimeFormat.bucket(ms: start - shift, by: by)
                }
                return v
            }
        }
        var prevRows: [[String]: [SQLValue]] = [:]
        var prevOrder: [[String]] = []
        for r in prev.rows {
            let k = key(r, shifted: false)
            if prevRows[k] == nil { prevOrder.append(k) }
            prevRows[k] = r
        }
        var out = cur
        (out.columns, out.rows) = ([], [])
        for (c, name) in cur.columns.enumerated() {
            out.columns.append(name)
            if figures.contains(c) { out.columns += [name + "_prev", name + "_change"] }
        }
        // A row of one period only compares against zero (a reason new this hour: prev 0 and
        // change +N; one that stopped: now 0 and change −N), so `--fail-if` on a change sees it;
        // its bucket's own figures (the bucket's responses) are what that period's bucket had.
        // A rate or a median of nothing has no value: empty, as in an empty bucket, except a
        // share of a bucket that had some (a reason absent from a busy hour is 0% of it).
        let bucketColumn = cur.columns.firstIndex(of: "bucket")
        func totals(_ rows: [[SQLValue]]) -> [String: [SQLValue]] {
            guard let b = bucketColumn else { return [:] }
            var t: [String: [SQLValue]] = [:]
            for r in rows where t[CellFormat.plain(r[b])] == nil { t[CellFormat.plain(r[b])] = r }
            return t
        }
        let (curTotals, prevTotals) = (totals(cur.rows), totals(prev.rows))
        func zeroed(_ r: [SQLValue], bucket: String?, of period: [String: [SQLValue]]) -> [SQLValue] {
            var z = r
            for c in figures { z[c] = cur.meaning(cur.columns[c]).role == .count ? .int(0) : .null }
            let other = bucket.flatMap { period[$0] }
            for c in figures where cur.meaning(cur.columns[c]).perBucket { z[c] = other?[c] ?? .int(0) }
            for c in figures {
                guard let over = cur.meaning(cur.columns[c]).over, let d = cur.columns.firstIndex(of: over) else { continue }
                z[c] = (z[d].asDouble ?? 0) > 0 ? .int(0) : .null
            }
            return z
        }
        func row(_ r: [SQLValue], _ p: [SQLValue]) -> [SQLValue] {
            var o: [SQLValue] = []
            for (c, v) in r.enumerated() {
                o.append(v)
                guard figures.contains(c) else { continue }
                o += [p[c], change(v, p[c])]
            }
            return o
        }
        var used = Set<[String]>()
        for r in cur.rows {
            let k = key(r, shifted: true)
            used.insert(k)
            let prevBucket = bucketColumn.flatMap { b in keys.firstIndex(of: b).map { k[$0] } }
            out.rows.append(row(r, prevRows[k] ?? zeroed(r, bucket: prevBucket, of: prevTotals)))
        }
        // Rows only the previous range has, at their place in this range (a time bucket moves on
        // by the range's length).
        for k in prevOrder where !used.contains(k) {
            let p = prevRows[k]!
            var now = p
            for c in keys where timeBuckets && cur.columns[c] == "bucket" {
                if let by, let start = TimeBucket.start(label: CellFormat.plain(p[c]), by: by) {
                    now[c] = .text(TimeFormat.bucket(ms: start + shift, by: by))
                }
            }
            now = zeroed(now, bucket: bucketColumn.map { CellFormat.plain(now[$0]) }, of: curTotals)
            for c in cur.columns.indices where !keys.contains(c) && !figures.contains(c) { now[c] = .null }
            out.rows.append(row(now, p))
        }
        // Those rows join their bucket: labels of one unit sort as their times do.
        if timeBuckets, out.rows.count > cur.rows.count, let b = out.columns.firstIndex(of: "bucket") {
            out.rows = out.rows.enumerated().sorted { (CellFormat.plain($0.1[b]), $0.0) < (CellFormat.plain($1.1[b]), $1.0) }.map(\.1)
        }
        return out
    }

    /// Whether a column of this role gets `_prev` and `_change`.
    static func isFigure(_ role: ColumnInfo.Role) -> Bool { role == .count || role == .rate || role == .number }

    /// x − y: whole for two whole numbers, else rounded to 6 decimals. A value without one side
    /// (a rate over no responses) counts from 0, so a change is null only when both are.
    static func change(_ x: SQLValue, _ y: SQLValue) -> SQLValue {
        if x == .null && y == .null { return .null }
        let (x, y) = (x == .null ? SQLValue.int(0) : x, y == .null ? SQLValue.int(0) : y)
        guard let a = x.asDouble, let b = y.asDouble else { return .null }
        if case .int(let i) = x, case .int(let j) = y { return .int(i - j) }
        return .double(((a - b) * 1e6).rounded() / 1e6)
    }
}

/// Time-bucket labels back to their start (the inverse of `bucket(ms, unit)`).
enum TimeBucket {
    static func start(label: String, by: String) -> Int64? {
        switch by {
        case "week": return TimeArgument.week(label)
        case "day": return TimeParser.parse(label + "T00:00:00Z")
        case "hour": return TimeParser.parse(label + ":00:00Z")
        case "5m", "minute": return TimeParser.parse(label + ":00Z")
        default: return nil
        }
    }
}

extension ReportComparison {
    /// Runs a report (`run`) on `params`' range and on the same-length range `shift` ms earlier
    /// (by default just before), merged as above; every engine's runner compares through this.
    /// `params.since` and `params.until` must be set. A previous range that holds none of the
    /// records the report is about (`hasRecords` of its bounds says so) is no baseline: the
    /// report does not run on it, every `_prev` and `_change` is empty and a note says why.
    static func runBoth(
        params: ReportParams, shift: Int64?, by: String?, hasRecords: (Int64, Int64) throws -> Bool,
        run: (ReportParams) throws -> ResultDocument
    ) throws -> ResultDocument {
        guard let since = params.since, let until = params.until else {
            throw CatalogError("--compare previous needs a range with a start and an end")
        }
        let back = shift ?? until - since
        var before = params
        (before.since, before.until) = (since - back, until - back)
        let cur = try run(params)
        let baseline = try hasRecords(since - back, until - back)
        let prev =
            try baseline
            ? run(before)
            : ResultDocument(report: cur.report, sections: cur.sections.map { ResultTable(name: $0.name, columns: $0.columns) })
        var doc = merge(current: cur, previous: prev, shift: back, by: by)
        let (from, to) = (TimeFormat.rfc3339(ms: since - back), TimeFormat.rfc3339(ms: until - back))
        doc.params += [("compare", .text("previous")), ("previous_since", .text(from)), ("previous_until", .text(to))]
        if !baseline {
            for si in doc.sections.indices where comparedSections.contains(doc.sections[si].name) {
                let t = doc.sections[si]
                let blank = t.columns.indices.filter { c in
                    let n = t.columns[c]
                    return (n.hasSuffix("_prev") || n.hasSuffix("_change")) && t.columns.contains(String(n[..<n.lastIndex(of: "_")!]))
                }
                for r in t.rows.indices { for c in blank { doc.sections[si].rows[r][c] = .null } }
            }
            doc.previousEmpty = true
            doc.notes.append(
                "no baseline: the previous range (\(from) … \(to)) holds none of the report's records, so every _prev and _change is empty")
        }
        return doc
    }
}

extension ReportRunner {
    /// Runs a report on `params`' range and on the same-length range `shift` ms earlier.
    public func runComparingPrevious(name: String, params: ReportParams, shift: Int64? = nil) throws -> ResultDocument {
        let def = catalog.report(name)
        return try ReportComparison.runBoth(
            params: params, shift: shift, by: params.by ?? def?.paramDefaults["by"],
            hasRecords: { try engine.hasRecords(since: $0, until: $1, def?.records ?? .any, topic: params.topic, env: params.env) }
        ) { try run(name: name, params: $0) }
    }
}
