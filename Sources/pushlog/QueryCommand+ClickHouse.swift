import Foundation
import PushLogKit

extension QueryCommand {
    /// `query` on a ClickHouse server: one statement, sent with `readonly=1` so the server
    /// refuses anything that writes or changes a setting.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued + ["-f"], boolean: OutputTarget.boolean)
        let out = try OutputTarget(args)
        var sql: String
        if let f = args.value("-f") {
            if f == "-" {
                sql = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let s = try? String(contentsOfFile: f, encoding: .utf8) else { throw CLIError("cannot read \(f)") }
                sql = s
            }
        } else {
            guard !args.positionals.isEmpty else {
                throw UsageError(message: "query needs SQL or -f FILE", hint: "pushlog query 'SELECT count() FROM pushlog.responses'")
            }
            sql = args.positionals.joined(separator: " ")
        }
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
