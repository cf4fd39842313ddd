import Foundation
import PushLogKit

extension IngestCommand {
    /// `ingest` into a ClickHouse server: the same readers and summary; resumable and exactly
    /// once (ClickHouseIngest). `--follow` does not run on ClickHouse yet.
    static func runOnClickHouse(_ argv: [String], _ url: ClickHouseURL) throws -> Int32 {
        if argv.contains("--follow") || argv.contains("-f") {
            throw UsageError(
                message: "ingest --follow does not run on ClickHouse yet",
                hint: "run `pushlog --clickhouse URL ingest PATH...` every minute: unchanged files are skipped, new and grown ones read")
        }
        let args = try Arguments(
            argv, command: name, valued: ["--input-format", "--format", "--formats"], boolean: ["--quiet", "-q", "--verbose", "-v"])
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
        let summary = try ingest.run(paths: args.positionals)
        for f in summary.files {
            if let e = f.error { Console.err("pushlog: \(f.path): \(e)") }
            for w in f.warnings { Console.err("pushlog: \(f.path): warning: \(w)") }
            if let why = f.refused, !f.unchanged { Console.err("pushlog: skipped \(f.path): \(why)") }
        }
        for p in summary.problems { Console.err("pushlog: \(p)") }
        if format == "json" {
            Console.out(IngestReport.json(summary))
        } else if !(args.has("--quiet") || args.has("-q")) {
            Console.err(IngestReport.table(summary, verbose: args.has("--verbose") || args.has("-v")))
        }
        return summary.failed ? 1 : 0
    }
}
