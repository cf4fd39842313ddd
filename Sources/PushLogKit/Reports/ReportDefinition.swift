import Foundation

/// One report of the catalog: a `.sql` file with a header and named sections.
public struct ReportDefinition: Sendable {
    public var name: String
    public var title: String
    public var description: String
    /// The parameters the header declares, in order.
    public var params: [ReportParameter]
    /// Each section's SQL with the common items it names (directly or through another) in front.
    var sections: [(name: String, sql: String)]
    /// Where it came from: "built-in" or a file path.
    public var origin: String
    /// KPIs a report assembles from other reports (`-- kpi:` lines, the weekly report's).
    var kpis: [KPI] = []
    /// A report that declares KPIs is a KPI page (KPIPage runs it).
    public var isKPIPage: Bool { !kpis.isEmpty }
    /// Sections a page makes from another report's rows over its two weeks (`-- weeks:` lines).
    var weekSections: [WeekSection] = []
    /// Sections of a KPI page holding one figure of another report over the last weeks (`-- trend:`).
    var trends: [Trend] = []
    /// Sections of a KPI page shown with a row for every bucket of its two weeks (`-- fill:`).
    var fills: [Fill] = []
    /// The `-- common:` block's CTEs, and each section's SQL without them.
    var commonCTEs: [(name: String, sql: String)] = []
    var bodies: [(name: String, sql: String)] = []
    /// Common CTEs the runner computes once into temporary tables when it runs several sections
    /// (`-- materialize: NAME, ...`): what every section aggregates again otherwise.
    var materialize: [String] = []
    /// The records whose absence from the range means "no data" (`-- records:` in the header):
    /// a `--fail-if` over such a range refuses rather than passing.
    public var records: RecordEvidence = .any
    /// What to tell the user when a section comes back empty (`-- when-empty: SECTION  text`):
    /// an empty section that means "an input is missing", not "all is well".
    public var whenEmpty: [(section: String, note: String)] = []
    /// What each column means (`-- column:` lines), for every section that has it.
    public var columns: [String: ColumnInfo] = [:]
    /// What a page calls a section (`-- heading: SECTION  text`).
    var headings: [String: String] = [:]
    /// A page's section of time windows to mark on its charts (`-- marks: SECTION [count=COLUMN]  LEGEND`).
    var marks: (section: String, marks: ResultTable.Marks)?
    /// The parameters the SQL binds, with their lines (checked against `params` at load).
    var parameterUses: [(name: String, line: Int)] = []

    /// A section's rows with what its columns mean and what a page calls it.
    func describe(_ t: ResultTable) -> ResultTable {
        var t = t
        t.info = columns
        t.heading = headings[t.name]
        t.marks = marks?.section == t.name ? marks?.marks : nil
        return t
    }

    /// The sections' SQL with the common items each needs, except those already in temporary
    /// tables (a statement parses only what it uses: ClickHouse's parsing of a long common block
    /// is a large part of a short statement's time).
    func sections(without materialized: Set<String>) -> [(name: String, sql: String)] {
        bodies.map { ($0.name, ReportDefinition.merge(body: $0.sql, shared: common(for: $0.sql, without: materialized))) }
    }

    /// The `-- materialize:` items that `sections` need, in their order: those the others read
    /// are not made.
    func materialize(for sections: Set<String>) -> [String] {
        let read = bodies.filter { sections.contains($0.name) }.map(\.sql).joined(separator: "\n")
        let needed = Set(CommonCTEs.needed(by: read, of: commonCTEs).map { $0.name.lowercased() })
        return materialize.filter { needed.contains($0.lowercased()) }
    }

    /// The query that fills the temporary table of the common CTE NAME (the ones before it
    /// already materialized): what the engine puts after its `CREATE ... AS`.
    func materializing(_ name: String, after materialized: Set<String>) -> String {
        let query = "SELECT * FROM \(name)"
        return ReportDefinition.merge(body: query, shared: common(for: query, without: materialized))
    }

    /// The common items `sql` needs, as the text of a `WITH`, but those in `materialized`.
    private func common(for sql: String, without materialized: Set<String>) -> String {
        CommonCTEs.needed(by: sql, of: commonCTEs.filter { !materialized.contains($0.name) }).map(\.sql).joined(separator: ",\n")
    }

    /// A section's SQL with the shared CTEs in front of its own `WITH` (after its leading
    /// comments), or as a new `WITH`.
    static func merge(body: String, shared: String) -> String {
        guard !shared.isEmpty else { return body }
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let i = lines.firstIndex(where: { !$0.trimmed().hasPrefix("--") }),
            lines[i].uppercased().hasPrefix("WITH ")
        {
            lines[i] = shared + ",\n" + lines[i].dropFirst(5)
            return "WITH " + lines.joined(separator: "\n")
        }
        return "WITH " + shared + "\n" + body
    }

    /// `-- weeks: NAME = REPORT.SECTION.COLUMN by KEY`: section NAME of a KPI page holds, per KEY
    /// of that report's section, COLUMN this week and the week before and the change, for the
    /// keys that are above 0 in either week (the report run on each week, as a KPI is).
    struct WeekSection: Sendable {
        let name, report, section, column, key: String
    }

    /// `-- trend: NAME = REPORT.SECTION.COLUMN weeks N [whole]`: section NAME of a KPI page holds
    /// COLUMN per ISO week for the last N weeks, this one included (`week`, COLUMN). `whole`: not
    /// split by topic/env (empty under a filter).
    struct Trend: Sendable {
        let name, report, section, column: String
        let weeks: Int
        let wholeDataOnly: Bool
    }

    /// `-- fill: SECTION.COLUMN by UNIT`: a KPI page's section with a row for every UNIT of the
    /// week before and this one, labelled in COLUMN (an empty day is a row of zeros).
    struct Fill: Sendable {
        let section, column: String
        let unit: TimeUnit
    }

    /// `-- kpi: NAME = REPORT.SECTION.COLUMN [whole]`: a figure of another report, run on the
    /// report's week and the week before. `whole`: not split by topic/env (empty under a filter).
    struct KPI: Sendable {
        let name, report, section, column: String
        let wholeDataOnly: Bool
    }

    /// Parses the file format:
    /// ```
    /// -- title: Token gone (410) rates
    /// -- description: ...
    /// -- param: since time  start of the range
    /// -- section: summary
    /// SELECT ...;
    /// ```
    /// `-- column:` lines say what the columns mean (ColumnInfo), `-- heading:` what a page calls
    /// a section. An optional `-- common:` block before the sections holds CTEs (`name AS (...), ...`) that
    /// every section can use: they are put in front of each section's own `WITH`.
    static func parse(name: String, text: String, origin: String) throws -> ReportDefinition {
        var d = ReportDefinition(name: name, title: name, description: "", params: [], sections: [], origin: origin)
        var current: String?
        var inCommon = false
        var common = ""
        var sql = ""
        let file = origin == "built-in" ? name + ".sql" : origin
        var lineNumber = 0
        func flush() {
            if let c = current {
                var body = sql.trimmed(newlines: true)
                if body.hasSuffix(";") { body.removeLast() }
                d.bodies.append((c, body))
            }
            sql = ""
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let l = line.trimmed()
            if current == nil && l.hasPrefix("-- common:") {
                inCommon = true
            } else if inCommon && current == nil && !l.hasPrefix("-- section:") {
                if !l.hasPrefix("--") { common += line + "\n" }
            } else if l.hasPrefix("-- section:") {
                inCommon = false
                flush()
                current = l.dropFirst("-- section:".count).trimmed()
            } else if current == nil && l.hasPrefix("-- materialize:") {
                d.materialize += l.dropFirst("-- materialize:".count).split(separator: ",").map {
                    $0.trimmed()
                }
            } else if current == nil && l.hasPrefix("-- when-empty:") {
                let rest = l.dropFirst("-- when-empty:".count).trimmed()
                let parts = rest.split(separator: " ", maxSplits: 1)
                guard parts.count == 2 else { throw CatalogError("\(origin): use -- when-empty: SECTION  what to tell the user") }
                d.whenEmpty.append((String(parts[0]), parts[1].trimmed()))
            } else if current == nil && l.hasPrefix("-- column:") {
                for (column, info) in try ColumnInfo.parse(String(l.dropFirst("-- column:".count)), at: "\(file):\(lineNumber)") {
                    d.columns[column] = info
                }
            } else if current == nil && l.hasPrefix("-- heading:") {
                let rest = l.dropFirst("-- heading:".count).trimmed()
                let parts = rest.split(separator: " ", maxSplits: 1)
                guard parts.count == 2 else { throw CatalogError("\(file):\(lineNumber): use -- heading: SECTION  what the page calls it") }
                d.headings[String(parts[0])] = parts[1].trimmed()
            } else if current == nil && l.hasPrefix("-- marks:") {
                var words = l.dropFirst("-- marks:".count).split(separator: " ").map(String.init)
                guard words.count >= 2 else {
                    throw CatalogError("\(file):\(lineNumber): use -- marks: SECTION [count=COLUMN]  what the marks are")
                }
                let section = words.removeFirst()
                let count = words.first.flatMap { $0.hasPrefix("count=") ? String($0.dropFirst(6)) : nil }
                if count != nil { words.removeFirst() }
                d.marks = (section, ResultTable.Marks(count: count, legend: words.joined(separator: " ")))
            } else if current == nil && l.hasPrefix("-- records:") {
                let v = l.dropFirst("-- records:".count).trimmed()
                guard let r = RecordEvidence(rawValue: v) else {
                    throw CatalogError(
                        "\(origin): unknown '-- records: \(v)'; use one of: \(RecordEvidence.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                d.records = r
            } else if current == nil && l.hasPrefix("-- title:") {
                d.title = l.dropFirst("-- title:".count).trimmed()
            } else if current == nil && l.hasPrefix("-- description:") {
                let more = l.dropFirst("-- description:".count).trimmed()
                d.description += (d.description.isEmpty ? "" : " ") + more
            } else if current == nil && l.hasPrefix("-- weeks:") {
                let rest = l.dropFirst("-- weeks:".count).split(separator: "=", maxSplits: 1)
                let words = rest.count == 2 ? rest[1].split(separator: " ").map(String.init) : []
                let path = words.first?.split(separator: ".").map(String.init) ?? []
                guard rest.count == 2, path.count == 3, words.count == 3, words[1] == "by" else {
                    throw CatalogError("\(origin): cannot read '\(l)': use -- weeks: NAME = REPORT.SECTION.COLUMN by KEY")
                }
                d.weekSections.append(
                    WeekSection(
                        name: rest[0].trimmed(), report: path[0], section: path[1], column: path[2],
                        key: words[2]))
            } else if current == nil && l.hasPrefix("-- trend:") {
                let rest = l.dropFirst("-- trend:".count).split(separator: "=", maxSplits: 1)
                let words = rest.count == 2 ? rest[1].split(separator: " ").map(String.init) : []
                let path = words.first?.split(separator: ".").map(String.init) ?? []
                guard rest.count == 2, path.count == 3, words.count >= 3, words[1] == "weeks", let n = Int(words[2]), n > 0,
                    words.count == 3 || (words.count == 4 && words[3] == "whole")
                else {
                    throw CatalogError(
                        "\(file):\(lineNumber): cannot read '\(l)': use -- trend: NAME = REPORT.SECTION.COLUMN weeks N [whole]")
                }
                d.trends.append(
                    Trend(
                        name: rest[0].trimmed(), report: path[0], section: path[1], column: path[2], weeks: n,
                        wholeDataOnly: words.count == 4))
            } else if current == nil && l.hasPrefix("-- fill:") {
                let words = l.dropFirst("-- fill:".count).split(separator: " ").map(String.init)
                let path = words.first?.split(separator: ".").map(String.init) ?? []
                guard words.count == 3, path.count == 2, words[1] == "by", let unit = TimeUnit(rawValue: words[2]) else {
                    throw CatalogError("\(file):\(lineNumber): cannot read '\(l)': use -- fill: SECTION.COLUMN by minute|5m|hour|day|week")
                }
                d.fills.append(Fill(section: path[0], column: path[1], unit: unit))
            } else if current == nil && l.hasPrefix("-- kpi:") {
                let rest = l.dropFirst("-- kpi:".count).split(separator: "=", maxSplits: 1)
                let source = rest.count == 2 ? rest[1].split(separator: " ").map(String.init) : []
                let path = source.first?.split(separator: ".").map(String.init) ?? []
                guard rest.count == 2, path.count == 3 else {
                    throw CatalogError("\(origin): cannot read '\(l)': use -- kpi: NAME = REPORT.SECTION.COLUMN [whole]")
                }
                d.kpis.append(
                    KPI(
                        name: rest[0].trimmed(), report: path[0], section: path[1],
                        column: path[2], wholeDataOnly: source.dropFirst().contains("whole")))
            } else if current == nil && l.hasPrefix("-- param:") {
                let p = try ReportParameter.parse(String(l.dropFirst("-- param:".count)), at: "\(file):\(lineNumber)")
                guard !d.params.contains(where: { $0.name == p.name }) else {
                    throw CatalogError("\(file):\(lineNumber): parameter \(p.name) is declared twice")
                }
                d.params.append(p)
            } else if current != nil {
                sql += line + "\n"
            }
        }
        flush()
        d.commonCTEs = CommonCTEs.split(common)
        d.sections = d.sections(without: [])
        for m in d.materialize where !d.commonCTEs.contains(where: { $0.name == m }) {
            throw CatalogError("\(origin): -- materialize: \(m) is not a CTE of the -- common: block")
        }
        if d.sections.isEmpty {
            throw CatalogError("\(origin): no '-- section: NAME' line; a report needs at least one section")
        }
        d.parameterUses = parameterUses(text)
        return d
    }

    /// Every `:name` (or `@name`, `$name`) the SQL binds, with its line, outside string literals,
    /// quoted names and comments: what the header must declare.
    static func parameterUses(_ text: String) -> [(name: String, line: Int)] {
        parameterMarks(text).map { (String(text[text.utf8.index(after: $0.range.lowerBound)..<$0.range.upperBound]), $0.line) }
    }

    /// Where the SQL binds a parameter: each `:name` (its prefix included) in order.
    static func parameterSpans(_ text: String) -> [Range<String.Index>] { parameterMarks(text).map(\.range) }

    /// The parameter marks of `text` (their range and line), outside string literals, quoted
    /// names and comments.
    static func parameterMarks(_ text: String) -> [(range: Range<String.Index>, line: Int)] {
        var out: [(Range<String.Index>, Int)] = []
        let c = Array(text.utf8)
        var (i, line) = (0, 1)
        func isName(_ b: UInt8) -> Bool { b == UInt8(ascii: "_") || (b >= 48 && b <= 57) || ((b | 0x20) >= 97 && (b | 0x20) <= 122) }
        func index(_ k: Int) -> String.Index { text.utf8.index(text.utf8.startIndex, offsetBy: k) }
        while i < c.count {
            let b = c[i]
            if b == UInt8(ascii: "\n") {
                line += 1
                i += 1
            } else if b == UInt8(ascii: "-"), i + 1 < c.count, c[i + 1] == UInt8(ascii: "-") {
                while i < c.count && c[i] != UInt8(ascii: "\n") { i += 1 }
            } else if b == UInt8(ascii: "/"), i + 1 < c.count, c[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i < c.count && !(c[i] == UInt8(ascii: "*") && i + 1 < c.count && c[i + 1] == UInt8(ascii: "/")) {
                    if c[i] == UInt8(ascii: "\n") { line += 1 }
                    i += 1
                }
                i += 2
            } else if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") || b == UInt8(ascii: "`") {
                i += 1
                while i < c.count && c[i] != b {
                    if c[i] == UInt8(ascii: "\n") { line += 1 }
                    i += 1
                }
                i += 1
            } else if b == UInt8(ascii: ":") || b == UInt8(ascii: "@") || b == UInt8(ascii: "$"),
                i + 1 < c.count, isName(c[i + 1]), c[i + 1] > 57, i == 0 || !isName(c[i - 1])
            {
                var j = i + 1
                while j < c.count && isName(c[j]) { j += 1 }
                out.append((index(i)..<index(j), line))
                i = j
            } else {
                i += 1
            }
        }
        return out
    }

    /// Whether the SQL may bind `:name`: a declared parameter, an implicit one (`limit`), the
    /// range of a declared week, or the dimension id of a declared filter (`:topic_id`).
    func declares(_ name: String) -> Bool {
        let base = ReportRunner.dimensionParameters[name]?.param ?? name
        if paramNames.contains(base) || ReportRunner.implicitParameters.contains(base) { return true }
        return (base == "since" || base == "until") && paramNames.contains("week")
    }

    /// The first parameter the SQL binds that the header does not declare.
    var undeclaredUse: UndeclaredParameter? {
        guard let use = parameterUses.first(where: { !declares($0.name) }) else { return nil }
        return UndeclaredParameter(report: name, origin: origin, name: use.name, declared: paramNames, line: use.line)
    }
}

/// Which records a report is about, for telling an empty range from a healthy one.
public enum RecordEvidence: String, CaseIterable, Sendable {
    /// Sends and responses, transport failures included.
    case responses
    case registrations
    /// Authorization observations: registrations and settings reports.
    case observations
    /// A record of any kind.
    case any
}
