import PushLogKit

/// `pushlog sources`
enum SourcesCommand: Command {
    static let name = "sources"
    static let summary = "List ingested files: fingerprint, format, records by kind, duplicates, rejects, completeness."
    static let usage = "pushlog sources [--format FMT] [-o FILE]"
    static let options = """
      --format FMT     table, csv, tsv, json, ndjson, markdown, html
      -o FILE          write to FILE (format from its extension)

    """

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued, boolean: OutputTarget.boolean)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let db = try Store.openForReading(path: ctx.dbPath)
        let s = try db.prepare(Listings.sources)
        try out.write(ResultDocument(report: "sources", sections: [try ResultTable.from(s, name: "sources")]), db: db)
        return 0
    }
}

/// `pushlog rejects`
enum RejectsCommand: Command {
    static let name = "rejects"
    static let summary = "Show rejected lines with file, line number and reason."
    static let usage = "pushlog rejects [--source PATH] [--limit N] [--format FMT] [-o FILE]"
    static let options = """
      --source PATH    only lines of this file (as listed by `pushlog sources`)
      --limit N        at most N lines (default 100; 0 for all)
      --format FMT     table, csv, tsv, json, ndjson, markdown, html

    """

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued + ["--source", "--limit"], boolean: OutputTarget.boolean)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let limit = try args.int("--limit", command: name) ?? 100
        let db = try Store.openForReading(path: ctx.dbPath)
        let s = try db.prepare(Listings.rejects)
        s.bind(1, args.value("--source").map(SourcePaths.canonical))
        s.bind(2, Int64(limit == 0 ? -1 : limit))
        try out.write(ResultDocument(report: "rejects", sections: [try ResultTable.from(s, name: "rejects")]), db: db)
        return 0
    }
}
