import Foundation
import PushLogKit

extension QueryCommand {
    /// `query` on a ClickHouse server: one statement, sent with `readonly=1` so the server
    /// refuses anything that writes or changes a setting.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let (_, out, sql) = try parse(argv, example: "SELECT count() FROM pushlog.responses")
        var statement = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        while statement.hasSuffix(";") { statement = String(statement.dropLast()).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard !statement.isEmpty else {
            throw UsageError(message: "query has no SQL statement", hint: "pushlog query 'SELECT count() FROM pushlog.responses'")
        }
        let client = ClickHouseClient(url)
        let table = try client.table("result", sql: statement, settings: ["readonly": "1"])
        let mask = out.revealTokens ? nil : try TokenMask(clickhouse: client)
        try out.write(ResultDocument(report: "query", params: [("sql", .text(sql))], sections: [table]), db: nil, mask: mask)
        return 0
    }
}
