import PushLogKit

/// `pushlog rejects`
enum RejectsCommand: Command {
    static let name = "rejects"
    static let summary = "Show rejected lines with file, line number and reason."
    static let usage = "pushlog rejects [--source PATH] [--limit N] [--format FMT] [-o FILE]"
    static let optionTable = OptionTable(
        [
            .value("--source", placeholder: "PATH", help: "only lines of this file (as listed by `pushlog sources`)"),
            .value("--limit", placeholder: "N", help: "at most N lines (default 100; 0 for all)"),
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
        ],
        unlisted: OptionTable.output)

    /// Where the rejected lines are read: SQLite's tables or a ClickHouse server's.
    protocol Source {
        /// Ingested files whose path is `key` or ends in `/key` (at most 3, the exact one first).
        func files(matching key: String) throws -> [String]
        /// Rejected lines of `file` (nil: every file), in file then line order; `limit` 0 for all.
        func lines(of file: String?, limit: Int) throws -> ResultTable
        /// How many rejected lines `file` (nil: every file) has.
        func count(of file: String?) throws -> Int64
        /// How many more were counted (in `sources`) but not stored (`RejectTextBound`).
        func countedOnly(of file: String?) throws -> Int64
    }

    /// The rejects tables of a SQLite database (Listings).
    struct SQLiteSource: Source {
        let db: Database

        func files(matching key: String) throws -> [String] {
            let m = try db.prepare(Listings.sourceMatch)
            m.bind(1, key)
            var found: [String] = []
            while try m.step() { found.append(m.string(0) ?? "") }
            return found
        }

        func lines(of file: String?, limit: Int) throws -> ResultTable {
            let s = try db.prepare(Listings.rejects)
            s.bind(1, file)
            s.bind(2, Int64(limit == 0 ? -1 : limit))
            return try ResultTable.from(s, name: "rejects")
        }

        func count(of file: String?) throws -> Int64 {
            let c = try db.prepare(Listings.rejectCount)
            c.bind(1, file)
            return try c.step() ? c.int(0) : 0
        }

        func countedOnly(of file: String?) throws -> Int64 {
            let c = try db.prepare(Listings.rejectsCountedOnly)
            c.bind(1, file)
            return try c.step() ? c.int(0) : 0
        }
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let limit = try args.int("--limit", command: name) ?? 100
        let db = try Store.openForReading(path: ctx.dbPath, unfinished: true)
        return try list(args, limit: limit, from: SQLiteSource(db: db)) { try out.write($0, db: db) }
    }

    /// The listing on either engine: `--source` resolved, the lines written, and a note when
    /// `--limit` left some out.
    static func list(_ args: Arguments, limit: Int, from source: Source, write: (ResultDocument) throws -> Void) throws -> Int32 {
        var file: String?
        if let given = args.value("--source") {
            // The path as `sources` lists it, any spelling of it, or a unique file name.
            var found: [String] = []
            for key in [SourcePaths.canonical(given), given] where found.isEmpty { found = try source.files(matching: key) }
            guard !found.isEmpty else {
                Console.err("pushlog: no ingested file matches '\(given)'; `pushlog sources` lists them")
                return 1
            }
            guard found.count == 1 || found[0] == given || found[0] == SourcePaths.canonical(given) else {
                throw UsageError(
                    message: "--source '\(given)' matches several files: \(found.joined(separator: ", "))…",
                    hint: "give the path as `pushlog sources` lists it")
            }
            file = found[0]
        }
        let table = try source.lines(of: file, limit: limit)
        let total = try source.count(of: file)
        try write(ResultDocument(report: "rejects", sections: [table]))
        if Int64(table.rows.count) < total {
            Console.err("pushlog: showing \(table.rows.count) of \(total) rejected lines; --limit 0 shows all")
        }
        let countedOnly = try source.countedOnly(of: file)
        if countedOnly > 0 {
            Console.err(
                "pushlog: \(countedOnly) more rejected lines were counted but not stored (\(RejectTextBound.rule)); "
                    + "`pushlog sources` counts every one")
        }
        return 0
    }
}
