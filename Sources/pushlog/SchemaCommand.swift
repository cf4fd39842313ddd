import PushLogKit

/// `pushlog schema [TABLE]`
enum SchemaCommand: Command {
    static let name = "schema"
    static let summary = "List the tables meant for ad-hoc SQL, or one table's columns, each with its meaning."
    static let usage = "pushlog schema [TABLE] [--format FMT] [-o FILE]"
    static let optionTable = OptionTable(
        [
            .positional("TABLE", help: "one table: its columns with their meaning"),
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
        ],
        unlisted: OptionTable.output)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(1, command: name)
        let out = try OutputTarget(args)
        let engine = try CommandEngines.open(ctx, reads: .schema)
        if let table = args.positionals.first {
            guard let (title, columns) = try engine.schemaTable(table) else {
                let names = try engine.schemaTables().rows.compactMap { if case .text(let n) = $0.first { n } else { nil } }
                let guess = Arguments.closest(table, names)
                throw UsageError(
                    message: "no table '\(table)' for ad-hoc SQL",
                    hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "pushlog schema lists them")
            }
            try out.write(ResultDocument(report: "schema", title: title, sections: [columns]), engine: engine)
        } else {
            try out.write(ResultDocument(report: "schema", sections: [try engine.schemaTables()]), engine: engine)
        }
        return 0
    }
}
