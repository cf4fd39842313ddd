import PushLogKit

extension SourcesCommand {
    /// `sources` on a ClickHouse server: the files `pushlog --clickhouse URL ingest` read, with
    /// the columns `sources` shows on SQLite.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued, boolean: OutputTarget.boolean)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let table = try ClickHouseIngest.sources(ClickHouseClient(url))
        try out.write(ResultDocument(report: "sources", sections: [table]), db: nil)
        return 0
    }
}
