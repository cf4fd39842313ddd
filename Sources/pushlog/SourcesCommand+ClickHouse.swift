import PushLogKit

extension SourcesCommand {
    /// `sources` on a ClickHouse server: the files `pushlog --clickhouse URL ingest` read, with
    /// the columns `sources` shows on SQLite.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued, boolean: OutputTarget.boolean)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let client = ClickHouseClient(url)
        let table = try ClickHouseIngest.sources(client)
        try out.write(ResultDocument(report: "sources", sections: [table]), db: nil, mask: try TokenMask(clickhouse: client))
        return 0
    }
}
