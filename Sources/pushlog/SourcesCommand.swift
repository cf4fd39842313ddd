import PushLogKit

/// `pushlog sources`
enum SourcesCommand: Command {
    static let name = "sources"
    static let summary = "List ingested files: fingerprint, format, records by kind, duplicates, rejects, completeness."
    static let usage = "pushlog sources [--format FMT] [-o FILE]"
    static let optionTable = OptionTable(
        [
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
            .value("-o", placeholder: "FILE", help: "write to FILE (format from its extension)"),
        ],
        unlisted: OptionTable.output)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let db = try Store.openForReading(path: ctx.dbPath, unfinished: true)
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
    static let optionTable = OptionTable(
        [
            .value("--source", placeholder: "PATH", help: "only lines of this file (as listed by `pushlog sources`)"),
            .value("--limit", placeholder: "N", help: "at most N lines (default 100; 0 for all)"),
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
        ],
        unlisted: OptionTable.output)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let limit = try args.int("--limit", command: name) ?? 100
        let db = try Store.openForReading(path: ctx.dbPath, unfinished: true)
        var source: String?
        if let given = args.value("--source") {
            // The path as `sources` lists it, any spelling of it, or a unique file name.
            let m = try db.prepare(Listings.sourceMatch)
            var found: [String] = []
            for key in [SourcePaths.canonical(given), given] where found.isEmpty {
                m.reset()
                m.bind(1, key)
                while try m.step() { found.append(m.string(0) ?? "") }
            }
            guard !found.isEmpty else {
                Console.err("pushlog: no ingested file matches '\(given)'; `pushlog sources` lists them")
                return 1
            }
            guard found.count == 1 || found[0] == given || found[0] == SourcePaths.canonical(given) else {
                throw UsageError(
                    message: "--source '\(given)' matches several files: \(found.joined(separator: ", "))…",
                    hint: "give the path as `pushlog sources` lists it")
            }
            source = found[0]
        }
        let s = try db.prepare(Listings.rejects)
        s.bind(1, source)
        s.bind(2, Int64(limit == 0 ? -1 : limit))
        let table = try ResultTable.from(s, name: "rejects")
        let c = try db.prepare(Listings.rejectCount)
        c.bind(1, source)
        let total = try c.step() ? c.int(0) : 0
        try out.write(ResultDocument(report: "rejects", sections: [table]), db: db)
        if Int64(table.rows.count) < total {
            Console.err("pushlog: showing \(table.rows.count) of \(total) rejected lines; --limit 0 shows all")
        }
        return 0
    }
}
