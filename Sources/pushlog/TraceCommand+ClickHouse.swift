import PushLogKit

extension TraceCommand {
    /// `trace KEY` on a ClickHouse server: the same resolution, sections, masking and exit codes
    /// as on SQLite, from its records and kept facts (rebuilt first when the records changed).
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let (key, out) = try parse(argv)
        let engine = try ClickHouseEngine(ClickHouseClient(url), rebuilding: Console.factsRebuildNotice)
        let mask = out.revealTokens ? nil : try engine.facts.mask
        return try show { try out.write(try ClickHouseTrace(engine.client).run(key), db: nil, mask: mask) }
    }
}
