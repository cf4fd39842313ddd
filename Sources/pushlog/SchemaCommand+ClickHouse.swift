import PushLogKit

extension SchemaCommand {
    /// `schema [TABLE]` on a ClickHouse server: the tables and views of its pushlog database
    /// (system.tables, system.columns), or one table's columns with their types.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued, boolean: OutputTarget.boolean)
        try args.allowPositionals(1, command: name)
        let out = try OutputTarget(args)
        let client = ClickHouseClient(url)
        if let table = args.positionals.first {
            let t = try client.table(
                table,
                sql:
                    "SELECT name AS column, type, comment AS meaning FROM system.columns WHERE database = {db:String} AND table = {t:String} ORDER BY position",
                params: ["db": url.database, "t": table])
            guard !t.rows.isEmpty else {
                throw UsageError(
                    message: "no table '\(table)' in the ClickHouse database \(url.database)",
                    hint: "pushlog --clickhouse URL schema lists them")
            }
            try out.write(ResultDocument(report: "schema", title: "\(url.database).\(table)", sections: [t]), db: nil)
        } else {
            let t = try client.table(
                "tables",
                sql: """
                    SELECT t.name AS table, any(t.engine) AS engine,
                           arrayStringConcat(arrayMap(x -> x.2, arraySort(groupArray((c.position, c.name)))), ' ') AS columns
                    FROM system.tables AS t
                    LEFT JOIN (SELECT table, name, position FROM system.columns WHERE database = {db:String}) AS c ON c.table = t.name
                    WHERE t.database = {db:String} AND NOT startsWith(t.name, '.inner')
                    GROUP BY t.name ORDER BY t.name
                    """,
                params: ["db": url.database])
            try out.write(ResultDocument(report: "schema", sections: [t]), db: nil)
        }
        return 0
    }
}
