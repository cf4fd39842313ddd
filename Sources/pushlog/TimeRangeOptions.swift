import PushLogKit

/// `--since TIME` and `--until TIME` as every command that takes a range reads them: each TIME
/// in any form `TimeArgument` knows (relative ones counted back from now), and since before until.
enum TimeRangeOptions {
    /// The range `[since, until)`; either end nil when not given. `word` names it in the error.
    static func read(_ args: Arguments, word: String = "range") throws -> (since: Int64?, until: Int64?) {
        let since = try time(args, "--since"), until = try time(args, "--until")
        if let since, let until, since >= until {
            throw UsageError(message: "--since must be before --until", hint: "the \(word) is [since, until)")
        }
        return (since, until)
    }

    /// The time an option gives, nil when it is not given.
    static func time(_ args: Arguments, _ flag: String) throws -> Int64? {
        guard let v = args.value(flag) else { return nil }
        guard let t = TimeArgument.parse(v) else {
            throw UsageError(
                message: "cannot read \(flag) '\(v)'",
                hint: "TIME is RFC 3339, 2026-11-02, 2026-W45, epoch, now, today, yesterday or -2h/7d/90m")
        }
        return t
    }
}
