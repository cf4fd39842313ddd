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
        if let table = args.positionals.first {
            guard let doc = Schema.docs.first(where: { $0.name == table.lowercased() }) else {
                let guess = Arguments.closest(table, Schema.docs.map(\.name))
                throw UsageError(
                    message: "no table '\(table)' for ad-hoc SQL",
                    hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "pushlog schema lists them")
            }
            var t = ResultTable(name: doc.name, columns: ["column", "meaning"])
            t.rows = doc.columns.map { [.text($0.0), .text($0.1)] }
            try out.write(ResultDocument(report: "schema", title: "\(doc.name): \(doc.meaning)", sections: [t]), db: nil)
        } else {
            var t = ResultTable(name: "tables", columns: ["table", "meaning", "columns"])
            t.rows = Schema.docs.map { [.text($0.name), .text($0.meaning), .text($0.columns.map(\.0).joined(separator: " "))] }
            try out.write(ResultDocument(report: "schema", sections: [t]), db: nil)
        }
        return 0
    }
}
