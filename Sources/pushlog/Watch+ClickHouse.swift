import PushLogKit

extension Watch {
    /// `report … --watch` on a ClickHouse server: each round checks the kept facts against the
    /// records (rebuilt when an ingest added rows meanwhile), then runs the report as the SQLite
    /// loop does and redraws it.
    static func reportOnClickHouse(_ argv0: [String], _ url: ClickHouseURL) throws -> Int32 {
        let (watch, argv) = try extract(argv0)
        let req = try ReportCommand.request(argv)
        let client = ClickHouseClient(url)
        // A round that rebuilds the kept facts (an ingest added rows meanwhile) says so below the
        // frame on screen, which the next frame clears.
        let notice: (@Sendable (String) -> Void)? = Console.factsRebuildNotice.map { say in
            guard Console.stdoutIsTTY else { return say }
            return { text in
                Console.out("\n")
                say(text)
            }
        }
        // A new engine per round: it checks the kept facts against the records (an ingest may
        // have added rows meanwhile) and reads their span and irregular tokens afresh.
        func run(_ engine: ClickHouseEngine, _ p: ReportParams, compare: Bool, shift: Int64) throws -> ResultDocument {
            let runner = EngineReportRunner(engine: engine, catalog: req.catalog)
            return compare
                ? try runner.runComparingPrevious(name: req.name, params: p, shift: shift)
                : try runner.run(name: req.name, params: p)
        }
        // The first round's checks, as on SQLite: a --fail-if column the report lacks is a usage error.
        try ReportCommand.checkColumns(
            req, try run(try ClickHouseEngine(client, rebuilding: notice), req.params, compare: req.compare, shift: req.shift))
        guard req.out.path == nil else {
            throw UsageError(message: "--watch redraws a terminal; it does not write -o files", hint: "drop -o")
        }
        return try loop(every: watch ?? 2, title: "pushlog report " + argv.joined(separator: " ")) {
            let engine = try ClickHouseEngine(client, rebuilding: notice)
            let (p, previous, back) = try roundParams(req)
            let d = try run(engine, p, compare: previous, shift: back)
            return req.out.render(d, db: nil, mask: req.out.revealTokens ? nil : try engine.facts.mask)
        }
    }
}
