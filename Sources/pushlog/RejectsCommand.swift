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

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let limit = try args.int("--limit", command: name) ?? 100
        let engine = try CommandEngines.open(ctx, reads: .records)
        var file: String?
        if let given = args.value("--source") {
            // The path as `sources` lists it, any spelling of it, or a unique file name.
            var found: [String] = []
            for key in [SourcePaths.canonical(given), given] where found.isEmpty {
                found = try engine.strings("listings", "match", ["key": .text(key)])
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
            file = found[0]
        }
        let source: SQLValue = file.map { .text($0) } ?? .null
        // Files in the order they were read, lines in order; `--limit 0` (or less) for all.
        let table = try engine.statement("listings", "rejects", ["source": source, "limit": .int(limit <= 0 ? Int64.max : Int64(limit))])
        let total = try engine.count("listings", "count", ["source": source])
        try out.write(ResultDocument(report: "rejects", sections: [table]), engine: engine)
        if Int64(table.rows.count) < total {
            Console.err("pushlog: showing \(table.rows.count) of \(total) rejected lines; --limit 0 shows all")
        }
        let countedOnly = try engine.count("listings", "counted_only", ["source": source])
        if countedOnly > 0 {
            Console.err(
                "pushlog: \(countedOnly) more rejected lines were counted but not stored (\(RejectTextBound.rule)); "
                    + "`pushlog sources` counts every one")
        }
        return 0
    }
}
