/// The ClickHouse SQL of the commands besides `report` (Queries/clickhouse/tokens.sql, trace.sql,
/// metrics.sql, listings.sql): each a file of named sections, one statement each, in the reports'
/// header format, run with ClickHouse query parameters. The SQLite engine's statements of the same
/// names are SQLiteCommandQueries.
extension ClickHouseQueries {
    /// The statements of `command`, nil when Queries/clickhouse has no file of its name.
    static func commands(_ command: String) -> [UInt8]? { ClickHouseSQL.files[command].map { Array($0.utf8) } }
}

/// One command's statements on a server: a section is run by name, its `{name:Type}` placeholders
/// bound from `values` as the report engine binds them; the SQL text is never built from a value.
public struct ClickHouseStatements {
    let client: ClickHouseClient
    let definition: ReportDefinition

    init(_ client: ClickHouseClient, command: String) throws {
        self.client = client
        guard let bytes = ClickHouseQueries.commands(command) else { throw CatalogError("no ClickHouse statements for \(command)") }
        let text = ClickHouseQueries.qualified(String(decoding: bytes, as: UTF8.self), database: client.url.database)
        definition = try ReportDefinition.parse(name: command, text: text, origin: "built-in")
    }

    /// Runs section `name` and returns its rows as a table of that name; `lists` are the values
    /// of `Array(String)` placeholders.
    func run(_ name: String, _ values: [String: SQLValue] = [:], lists: [String: [String]] = [:]) throws -> ResultTable {
        guard let sql = definition.sections.first(where: { $0.name == name })?.sql else {
            throw CatalogError("no section \(name) in the ClickHouse statements of \(definition.name)")
        }
        var params: [String: String] = [:]
        for (param, type) in ClickHouseEngine.placeholders(sql) {
            if type == "Array(String)" {
                params[param] = ClickHouseStatements.array(lists[param] ?? [])
            } else {
                params[param] = ClickHouseEngine.text(values[param] ?? .null, as: type)
            }
        }
        return try client.table(name, sql: sql, params: params)
    }

    /// A list of strings as an `Array(String)` parameter: each quoted, quotes and backslashes escaped.
    static func array(_ values: [String]) -> String {
        "[" + values.map { "'" + ClickHouseClient.parameter($0).replacingOccurrences(of: "'", with: "\\'") + "'" }.joined(separator: ",")
            + "]"
    }
}
