import PushLogKit

extension MetricsCommand {
    /// `metrics` on a ClickHouse server: the same families and text as on SQLite, the counts from
    /// its kept facts and the rates from its reports (rebuilt first when the records changed).
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let req = try parse(argv)
        let engine = try ClickHouseEngine(ClickHouseClient(url), rebuilding: Console.factsRebuildNotice)
        let source = try ClickHouseMetricsSource(engine: engine)
        return try write(req, try MetricsExport(source: source).collect(since: req.since, until: req.until, budget: req.budget))
    }
}
