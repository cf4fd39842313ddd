import PushLogKit

extension RejectsCommand {
    /// The `rejects` table `pushlog --clickhouse URL ingest` fills (Queries/clickhouse/rejects.sql).
    struct ClickHouseSource: Source {
        let statements: ClickHouseStatements

        func files(matching key: String) throws -> [String] {
            try statements.run("match", ["key": .text(key)]).rows.compactMap { if case .text(let p) = $0[0] { p } else { nil } }
        }

        func lines(of file: String?, limit: Int) throws -> ResultTable {
            try statements.run(
                "rejects", ["source": file.map { .text($0) } ?? .null, "limit": .int(limit <= 0 ? Int64.max : Int64(limit))])
        }

        func count(of file: String?) throws -> Int64 {
            guard case .int(let n)? = try statements.run("count", ["source": file.map { .text($0) } ?? .null]).rows.first?.first else {
                return 0
            }
            return n
        }

        /// Not said on ClickHouse: its `sources` row and its stored lines are kept per read of a file.
        func countedOnly(of file: String?) throws -> Int64 { 0 }
    }

    /// `rejects` on a ClickHouse server: the same arguments, columns, order and notes as on SQLite.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let limit = try args.int("--limit", command: name) ?? 100
        let client = ClickHouseClient(url)
        let source = ClickHouseSource(statements: try ClickHouseStatements(client, command: name))
        return try list(args, limit: limit, from: source) { try out.write($0, db: nil, mask: try TokenMask(clickhouse: client)) }
    }
}
