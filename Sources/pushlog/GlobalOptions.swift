import PushLogKit

/// The options that come before (or, for the stores, after) any command, and the environment
/// variables pushlog reads: declared once, read by the parser, `pushlog --help`, the man page and
/// the completion scripts.
enum GlobalOptions {
    static let table = OptionTable(
        column: 19,
        [
            .value("--db", placeholder: "FILE", help: "database file (default: $PUSHLOG_DB, else ./pushlog.db)"),
            .value(
                "--clickhouse", placeholder: "URL",
                help: "run on a ClickHouse server instead (default: $PUSHLOG_CLICKHOUSE",
                "unless --db is given), e.g. http://user:password@host:8123/pushlog",
                "(docs/clickhouse.md); not with --db"),
            .flag("--version", "-V", help: "print the version"),
            .flag(
                "--help", "-h", help: "show help (also: pushlog help COMMAND, pushlog COMMAND --help;",
                "pushlog help --man prints the man page)"),
        ])

    /// The stores a command runs on; the only global options also taken after the command.
    static let stores = ["--db", "--clickhouse"]

    /// An environment variable pushlog reads and what it means.
    struct Variable {
        let name: String
        let help: String
        /// A ClickHouse setting's check: what a valid value is, and an example; a malformed one is
        /// a usage error of every command on ClickHouse.
        var setting: (valid: @Sendable (String) -> Bool, expects: String, example: String)? = nil
    }

    static let environment: [Variable] = [
        Variable(name: "PUSHLOG_DB", help: "the database when --db is not given"),
        Variable(
            name: "PUSHLOG_CLICKHOUSE",
            help: "the ClickHouse server (a URL, as --clickhouse takes) when neither --db nor --clickhouse is given"),
        Variable(
            name: "PUSHLOG_CLICKHOUSE_TIMEOUT", help: "seconds without an answer from ClickHouse before giving up (default 600)",
            setting: ({ ClickHouseClient.timeout($0) != nil }, "seconds without an answer before giving up", "120")),
        Variable(
            name: "PUSHLOG_CLICKHOUSE_BATCH",
            help: "records per insert of an ingest into ClickHouse when --batch is not given (default 100000)",
            setting: ({ Int($0).map { $0 > 0 } ?? false }, "a number of records above 0", "50000")),
        Variable(
            name: "PUSHLOG_CLICKHOUSE_TOUCHED_ROWS",
            help: "the records from which a ClickHouse load updates only the kept facts it touched (default 5000000)",
            setting: (
                { ClickHouseFacts.touchedLeastRows($0) != nil }, "the records from which a load updates only what it touched", "5000000"
            )),
        Variable(name: "PUSHLOG_QUERIES", help: "a directory of user reports (NAME.sql), as report --queries DIR"),
        Variable(name: "PUSHLOG_FORMATS", help: "a directory of line-format definitions, as ingest --formats DIR"),
        Variable(name: "PUSHLOG_TIMINGS", help: "when set, how long each phase of the command took, on stderr"),
        Variable(name: "PAGER", help: "the pager for long output on a terminal (default: less -FRX)"),
        Variable(name: "NO_COLOR", help: "no colour on a terminal"),
        Variable(name: "COLUMNS", help: "the width tables fit on a terminal (default: the terminal's own)"),
    ]

    /// Every spelling, for the parser's "unknown global option" message.
    static var spelled: String {
        table.entries.filter(\.listed).map(\.label).joined(separator: ", ")
    }
}
