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
        let engine = try CommandEngines.open(ctx, reads: .records)
        try out.write(ResultDocument(report: "sources", sections: [try engine.statement("listings", "sources")]), engine: engine)
        return 0
    }
}
