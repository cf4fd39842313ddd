import Foundation
import PushLogKit

extension IngestCommand {
    /// `ingest` into a ClickHouse server: the same readers and summary; resumable and exactly
    /// once (ClickHouseIngest), `--follow` included.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        let args = try Arguments(
            argv, command: name, valued: ["--input-format", "--format", "--formats", "--interval"],
            boolean: ["--quiet", "-q", "--verbose", "-v", "--follow", "-f"])
        guard !args.positionals.isEmpty else {
            throw UsageError(message: "ingest needs at least one PATH", hint: "pushlog --clickhouse URL ingest logs/")
        }
        let (library, format) = try formats(args)
        let missing = args.positionals.filter { $0 != "-" && !FileManager.default.fileExists(atPath: $0) }
        if missing.count == args.positionals.count {
            for m in missing { Console.err("pushlog: \(m): no such file or directory") }
            return 1
        }
        var ingest = ClickHouseIngest(client: ClickHouseClient(url))
        ingest.options.inputFormat = args.value("--input-format").map { InputFormat($0, library: library) }
        ingest.options.formats = library
        if let b = ProcessInfo.processInfo.environment["PUSHLOG_CLICKHOUSE_BATCH"].flatMap(Int.init), b > 0 { ingest.batchRows = b }
        let quiet = args.has("--quiet") || args.has("-q")
        // On a terminal the progress line says when the rebuild starts; `--follow` has none, so
        // the notice says it when the follow stops.
        let showProgress = !quiet && Console.stderrIsTTY
        if showProgress { ingest.options.progress = ProgressLine.show }
        if args.has("--follow") || args.has("-f") {
            let interval = try followInterval(args)
            signal(SIGINT) { _ in IngestCommand.stopFollowing.store(1, ordering: .relaxed) }
            signal(SIGTERM) { _ in IngestCommand.stopFollowing.store(1, ordering: .relaxed) }
            ingest.options.progress = nil
            if !quiet, let notice = Console.factsRebuildNotice { ingest.rebuilding = notice }
            if !quiet { Console.err("pushlog: following \(args.positionals.joined(separator: " ")) into \(url) (Ctrl-C to stop)") }
            try ingest.follow(
                paths: args.positionals, interval: interval, stop: { IngestCommand.stopFollowing.load(ordering: .relaxed) != 0 }
            ) { s in
                for f in s.files where f.error != nil { Console.err("pushlog: \(f.path): \(f.error!)") }
                for p in s.problems { Console.err("pushlog: \(p)") }
                if !quiet { Console.err(IngestReport.table(s).split(separator: "\n").last.map(String.init) ?? "") }
            }
            if !quiet { Console.err("pushlog: stopped following; everything read is in ClickHouse") }
            return 0
        }
        ingest.options.stop = stopOnSignals()
        let summary = try ProgressLine.clearing(showProgress) { try ingest.run(paths: args.positionals) }
        printDiagnostics(summary)
        if format == "json" {
            Console.out(IngestReport.json(summary))
        } else if !quiet {
            Console.err(IngestReport.table(summary, verbose: args.has("--verbose") || args.has("-v")))
        }
        return exitStatus(summary)
    }
}
