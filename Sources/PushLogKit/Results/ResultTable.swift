/// A named section of rows, as reports, queries and listings produce them.
public struct ResultTable {
    public var name: String
    var columns: [String]
    public var rows: [[SQLValue]]

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

    /// The value of `column` in the first row.
    public func first(_ column: String) -> SQLValue? {
        guard let i = self.column(column), let r = rows.first else { return nil }
        return r[i]
    }
}

/// A whole result: a report name, its parameters and its sections, in order.
public struct ResultDocument {
    public var report: String
    var title: String
    public var params: [(String, SQLValue)]
    public var sections: [ResultTable]
    /// Lines printed after the tables (warnings, notes).
    var notes: [String] = []

    public init(report: String, title: String = "", params: [(String, SQLValue)] = [], sections: [ResultTable]) {
        self.report = report
        self.title = title
        self.params = params
        self.sections = sections
    }

    public func section(_ name: String) -> ResultTable? { sections.first { $0.name == name } }
}
