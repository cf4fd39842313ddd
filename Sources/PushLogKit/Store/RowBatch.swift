/// A multi-row `INSERT OR IGNORE` into one record table: rows are bound slot by slot and stored
/// `rows` at a time, one statement run instead of one per row. `flush` stores a partial batch by
/// binding NULL to the unused slots: their NULL time breaks the NOT NULL constraint, so SQLite
/// skips them. Text is bound without copying (SQLITE_STATIC): flush before the bytes go away.
final class RowBatch {
    let statement: Statement
    let columns: Int32
    let rows: Int32
    private unowned let db: Database
    /// Rows bound and not yet run.
    private(set) var pending: Int32 = 0
    /// Rows stored since the last `takeInserted` (duplicates are not).
    private var inserted = 0

    /// One batch for the table of `Columns` (whose first column is the NOT NULL time `time_ms`),
    /// or for another table with the same columns (a staging table, ClusteredTable).
    convenience init<Columns: RecordColumns>(_ db: Database, _ columns: Columns.Type, into table: String? = nil, rows: Int32 = 16) throws {
        try self.init(db, table: table ?? Columns.table, columns: Columns.names, rows: rows)
    }

    /// `columns` names the table's columns; the first must be the NOT NULL time `time_ms`.
    init(_ db: Database, table: String, columns names: [String], rows: Int32 = 16) throws {
        precondition(names.first == "time_ms")
        self.db = db
        columns = Int32(names.count)
        self.rows = rows
        let row = "(" + Array(repeating: "?", count: names.count).joined(separator: ",") + ")"
        statement = try db.prepare(
            "INSERT OR IGNORE INTO \(table)(\(names.joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: Int(rows)).joined(separator: ","))
    }

    /// The parameter index before the next row's first column (column c binds at `base + c`).
    @inline(__always) var base: Int32 { pending * columns }

    /// The next row is bound; runs the statement when every slot is full.
    @inline(__always) func rowDone() throws {
        pending += 1
        if pending == rows { try run() }
    }

    /// Stores the rows bound so far.
    func flush() throws {
        guard pending > 0 else { return }
        for i in (pending * columns + 1)...(rows * columns) { statement.bindNull(i) }
        try run()
    }

    /// Forgets the rows bound so far (their transaction was rolled back).
    func discard() { pending = 0 }

    func takeInserted() -> Int {
        defer { inserted = 0 }
        return inserted
    }

    private func run() throws {
        pending = 0
        try statement.run()
        inserted += db.changes
    }
}
