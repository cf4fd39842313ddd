import PushLogKit

/// `pushlog tokens --gone|--superseded|--bad|--mismatched`
enum TokensCommand: Command {
    static let name = "tokens"
    static let summary = "The tokens to remove or fix in your own database, with the evidence."
    static let usage =
        "pushlog tokens (--gone | --superseded | --bad | --mismatched)... [--since TIME] [--format FMT|lines] [-o FILE] [--reveal-tokens]"
    static let optionTable = OptionTable(
        [
            .flag(
                "--gone", help: "a 410 (or ExpiredToken) and no registration of the token after the",
                "APNs timestamp of its latest 410: delete it"),
            .flag("--superseded", help: "its device registered a different token later: replace it"),
            .flag(
                "--bad", help: "BadDeviceToken or DeviceTokenNotForTopic at least twice since its last",
                "accepted send: delete or fix its topic"),
            .flag("--mismatched", help: "registered in one APNs env and sent to the other: fix the env"),
            .value(
                "--since", placeholder: "TIME", help: "only tokens whose evidence (latest 410, replacement, latest bad or",
                "mismatched response) is at or after TIME, e.g. --since yesterday"),
            .value(
                "--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html, or lines (one token per",
                "line, for xargs; needs --reveal-tokens)"),
            .value("-o", placeholder: "FILE", help: "write to FILE"),
            .flag("--reveal-tokens", help: "print tokens in full (a masked list cannot be acted on)"),
        ],
        unlisted: OptionTable.output,
        notes: """

            The flags combine: one row per token, `why` lists every kind that applies.

            """)
    static let kindFlags = TokenCleanup.Kind.allCases.map { "--" + $0.rawValue }

    /// What a `tokens` command line asks for.
    struct Request {
        let args: Arguments
        let kinds: Set<TokenCleanup.Kind>
        let since: Int64?
        let asLines: Bool
    }

    static func parse(_ argv: [String]) throws -> Request {
        let args = try Arguments(argv, command: name, table: optionTable)
        if let stray = args.positionals.first {
            throw UsageError(message: "tokens takes no argument '\(stray)'", hint: "pushlog tokens --gone [--since yesterday]")
        }
        let kinds = Set(TokenCleanup.Kind.allCases.filter { args.has("--" + $0.rawValue) })
        guard !kinds.isEmpty else {
            throw UsageError(
                message: "tokens needs at least one of --gone, --superseded, --bad, --mismatched",
                hint: "pushlog tokens --gone --reveal-tokens --format lines")
        }
        let since = try TimeRangeOptions.time(args, "--since")
        let asLines = args.value("--format")?.lowercased() == "lines"
        if let f = args.value("--format"), !asLines, OutputFormat(rawValue: f.lowercased()) == nil {
            throw UsageError(
                message: "unknown --format '\(f)'",
                hint: "use one of: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")), lines")
        }
        // One token per line is a list to act on (delete, fix): masked tokens would do nothing.
        if asLines && !args.has("--reveal-tokens") {
            throw UsageError(
                message: "--format lines prints tokens to act on, and masked tokens cannot be acted on: add --reveal-tokens",
                hint:
                    "pushlog tokens \(argv.filter { $0.hasPrefix("--") && kindFlags.contains($0) }.joined(separator: " ")) --reveal-tokens --format lines"
            )
        }
        return Request(args: args, kinds: kinds, since: since, asLines: asLines)
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let req = try parse(argv)
        let engine = try CommandEngines.open(ctx, reads: .facts)
        var doc = try TokenCleanup(engine: engine).run(req.kinds, since: req.since)
        if let since = req.since, doc.sections.allSatisfy(\.rows.isEmpty),
            try !engine.hasRecords(since: since, until: .max, .any, topic: nil, env: nil)
        {
            Console.err("pushlog: no records since \(TimeFormat.rfc3339(ms: since)): no evidence in that window, so no tokens")
        }
        if !req.args.has("--reveal-tokens") {
            doc = TokenCleanup.masked(doc)
            if doc.sections.contains(where: { !$0.rows.isEmpty }) {
                Console.err(
                    "pushlog: tokens are masked (first 8 … last 4 characters): a masked list cannot be acted on; add --reveal-tokens to print them in full"
                )
            }
        }
        if req.asLines {
            let text = TokenCleanup.lines(doc)
            if let path = req.args.value("-o") ?? req.args.value("--output") {
                try AtomicFile.write(text, to: path)
            } else {
                Console.out(text)
            }
        } else {
            try OutputTarget(req.args).write(doc, engine: engine)
        }
        return 0
    }
}
