import PushLogKit

extension TokensCommand {
    /// `tokens` on a ClickHouse server: the same arguments, rows, masking and output as on
    /// SQLite, from the kept facts (rebuilt first when the records changed since).
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let req = try parse(argv)
        let engine = try ClickHouseEngine(ClickHouseClient(url), rebuilding: Console.factsRebuildNotice)
        let doc = try TokenCleanup.run(on: engine.client, req.kinds, since: req.since)
        return try finish(req, doc, hasRecords: { try engine.hasRecords(since: $0, until: .max, .any, topic: nil, env: nil) }) { doc in
            let mask = req.args.has("--reveal-tokens") ? nil : try engine.facts.mask
            try OutputTarget(req.args).write(doc, db: nil, mask: mask)
        }
    }
}
