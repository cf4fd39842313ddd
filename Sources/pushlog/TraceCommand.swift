import PushLogKit

/// `pushlog trace KEY`
enum TraceCommand: Command {
    static let name = "trace"
    static let summary = "Timeline of one token (or prefix), device, user or apns-id across all records."
    static let usage = "pushlog trace KEY [--format FMT] [-o FILE] [--reveal-tokens]"
    static let optionTable = OptionTable(
        [
            .positional(
                "KEY", help: "a token, a token prefix or its masked form (abcd1234…9f0e), a device id,", "a user id, or an apns-id"),
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
            .flag("--reveal-tokens", help: "show device tokens in full"),
        ],
        unlisted: OptionTable.output)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        guard let key = args.positionals.first, !key.isEmpty else {
            throw UsageError(message: "trace needs a KEY", hint: "pushlog trace 3f2a9c1e  (a token prefix, device, user or apns-id)")
        }
        try args.allowPositionals(1, command: name)
        let out = try OutputTarget(args)
        let engine = try CommandEngines.open(ctx, reads: .facts)
        do {
            try out.write(try Trace(engine: engine).run(key), engine: engine)
        } catch TraceError.notFound(let m) {
            // A key that matches nothing is exit 1; one that matches several things a usage error.
            Console.err("pushlog: trace: \(m)")
            return 1
        } catch TraceError.ambiguous(let m) {
            // Not enough of the key: a usage problem, with the fix in the message.
            throw UsageError(message: "trace: \(m)", hint: "pushlog trace KEY with more characters")
        }
        return 0
    }
}
