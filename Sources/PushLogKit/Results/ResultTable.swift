/// A named section of rows, as reports, queries and listings produce them.
public struct ResultTable {
    public var name: String
    var columns: [String]
    public var rows: [[SQLValue]]
    /// What the columns mean, from the report's header (and, in a KPI table, what each metric row means).
    var info: [String: ColumnInfo] = [:]
    /// The KPI table of a KPI page: a row per figure (`metric`, `this_week`, `last_week`, `change`).
    public var isKPIs = false
    /// Set on the KPI table of a week the data covers in part (said how): its moves compare part
    /// of a week with another and are neither coloured nor called out.
    var partialWeek: String?
    /// What the page calls the section (the header's `-- heading:`).
    var heading: String?
    /// Set when the section's rows are time windows a page marks on its daily charts (`-- marks:`).
    var marks: Marks?

    /// How a page marks a section's windows: its first two time columns are each window's start
    /// and end; `count` names the column counted in a window's description; `legend` explains them.
    struct Marks: Sendable {
        let count: String?
        let legend: String
    }

    public init(name: String, columns: [String], rows: [[SQLValue]] = []) {
        self.name = name
        self.columns = columns
        self.rows = rows
    }

    /// Runs a statement to completion into a table.
    public static func from(_ s: Statement, name: String) throws -> ResultTable {
        var t = ResultTable(name: name, columns: (0..<s.columnCount).map { s.columnName($0) })
        while try s.step() {
            t.rows.append((0..<s.columnCount).map { s.value($0) })
        }
        return t
    }

    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// What column (or KPI) `name` means: declared, or inferred from its name.
    func meaning(_ name: String) -> ColumnInfo { info[name] ?? ColumnInfo.inferred(name) }

    func isRate(_ name: String) -> Bool { meaning(name).role == .rate }

    /// The value of `column` in the first row.
    public func first(_ column: String) -> SQLValue? {
        guard let i = self.column(column), let r = rows.first else { return nil }
        return r[i]
    }
}

extension ResultTable {
    /// The columns `keep` names, in that order (those the table has), and at most `limit` rows.
    func projected(_ keep: [String], limit: Int = .max) -> ResultTable {
        let picked = keep.compactMap { name in column(name).map { (name, $0) } }
        var t = ResultTable(name: name, columns: picked.map(\.0), rows: rows.prefix(limit).map { r in picked.map { r[$0.1] } })
        t.info = info
        return t
    }
}

/// A whole result: a report name, its parameters and its sections, in order.
public struct ResultDocument {
    public var report: String
    var title: String
    public var params: [(String, SQLValue)]
    public var sections: [ResultTable]
    /// Lines printed after the tables (warnings, notes).
    public internal(set) var notes: [String] = []
    /// Set by `--compare previous` when the previous range held none of the report's records:
    /// its `_prev` and `_change` columns are empty, and a condition on them cannot be judged.
    public internal(set) var previousEmpty = false
    /// The figures (columns, or a KPI page's metrics) the range's records cannot show, with what
    /// they lack: empty in every row, and a condition on them can be neither a pass nor a breach.
    public internal(set) var unobservable: [String: String] = [:]
    /// A KPI page's first incidents with what `explain` finds in each (the page gives each a
    /// section); set by who renders the page, since each is one more report run.
    public var explained: [IncidentExplanation] = []

    public init(report: String, title: String = "", params: [(String, SQLValue)] = [], sections: [ResultTable]) {
        self.report = report
        self.title = title
        self.params = params
        self.sections = sections
    }

    public func section(_ name: String) -> ResultTable? { sections.first { $0.name == name } }

    /// The KPI table, when the document is a KPI page.
    public var kpis: ResultTable? { sections.first(where: \.isKPIs) }

    /// What `name` means in whichever section declares it.
    func meaning(_ name: String) -> ColumnInfo { sections.lazy.compactMap { $0.info[name] }.first ?? ColumnInfo.inferred(name) }
}
