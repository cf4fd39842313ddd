import Foundation
import PushLogKit

/// `pushlog --clickhouse URL COMMAND`: the commands that run against a ClickHouse server, each
/// with the same arguments and output as on SQLite; commands that never touch a database run as
/// they always do, and the others say they need the SQLite database.
enum ClickHouseCommands {
    static func url(_ text: String?) throws -> ClickHouseURL {
        guard let text, !text.isEmpty else {
            throw UsageError(
                message: "--clickhouse needs a URL", hint: "pushlog --clickhouse http://user:password@host:8123/pushlog COMMAND")
        }
        guard let url = ClickHouseURL(text) else {
            throw UsageError(
                message: "cannot read the ClickHouse URL '\(ClickHouseURL.masked(text))'",
                hint: "use http(s)://user:password@host:8123/DATABASE (the database a plain name; in the user and password, "
                    + "write / # ? % as %2F %23 %3F %25)")
        }
        return url
    }

    static func run(_ cmd: Command.Type, _ args: [String], _ ctx: Context, _ url: ClickHouseURL) throws -> Int32 {
        switch cmd.name {
        // These take the engine the context names (ReportCommand, IngestCommand, CommandEngines).
        case ReportCommand.name, ExplainCommand.name, IngestCommand.name, QueryCommand.name, SourcesCommand.name, SchemaCommand.name,
            TokensCommand.name, RejectsCommand.name, MetricsCommand.name, TraceCommand.name:
            return try cmd.run(args, ctx)
        // These read no database (export reads logs; with --from-db it names a SQLite file).
        case ReportsCommand.name, FormatsCommand.name, CompletionCommand.name, ExportCommand.name: return try cmd.run(args, ctx)
        default:
            throw UsageError(
                message: "\(cmd.name) does not run on ClickHouse yet",
                hint:
                    "on ClickHouse: ingest, report, explain, query, sources, schema, tokens, trace, metrics, rejects; drop --clickhouse (and $PUSHLOG_CLICKHOUSE) for the SQLite database"
            )
        }
    }
}
