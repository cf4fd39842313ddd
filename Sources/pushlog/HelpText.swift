import PushLogKit

/// What completion scripts and the man page take from the commands' option tables, so help,
/// completion and man page cannot drift: an option exists for them when a command's help lists it.
enum HelpText {
    /// The options a command's help shows (`--since`, `-o`, …), in order: those its usage line
    /// names (when the command takes them), then those its OPTIONS list.
    static func options(of c: Command.Type) -> [String] {
        let table = c.optionTable
        let accepted = Set(table.valued + table.boolean)
        var out: [String] = []
        for word in c.usage.split(whereSeparator: { " [](|),".contains($0) }) where word.hasPrefix("-") {
            let name = word.split(separator: "=").first.map(String.init) ?? String(word)
            if accepted.contains(name), !out.contains(name) { out.append(name) }
        }
        for name in table.listed where !out.contains(name) { out.append(name) }
        return out + ["--help"]
    }

    /// Values an option takes, where they are a closed list (for completion).
    static func values(of option: String, catalog: QueryCatalog?) -> [String] {
        switch option {
        case "--format": return OutputFormat.allCases.map(\.rawValue) + ["lines"]
        case "--by", "--unit":
            // What the reports' headers declare (`-- param: by enum(...)`), each value once.
            let all = catalog?.reports.compactMap { $0.parameter(String(option.dropFirst(2)))?.type.allowed }.flatMap { $0 } ?? []
            var seen: [String] = []
            for v in all where !seen.contains(v) { seen.append(v) }
            return seen
        case "--env": return ["production", "sandbox"]
        case "--compare": return ["previous"]
        case "--color": return ["auto", "always", "never"]
        case "--input-format":
            // The built-in readers and line-format definitions (a user's --formats folder is not
            // known while completing).
            let defined = (try? FormatLibrary.load())?.definitions.map(\.name) ?? []
            return FormatDetector.names + defined.filter { !FormatDetector.names.contains($0) }
        default: return []
        }
    }
}

/// The man page `pushlog.1` (`pushlog help --man`), written from the same help texts as
/// `pushlog help` and `pushlog COMMAND --help`.
enum ManPage {
    static func render() -> String {
        var s = """
            .TH PUSHLOG 1 "" "pushlog \(PushLog.version)" "User Commands"
            .\" Option and format names are pasted into shells: never hyphenated at a line's end.
            .nh
            .SH NAME
            pushlog \\- APNs delivery logs into SQLite, and the answers ops need from them
            .SH SYNOPSIS
            .B pushlog
            [\\fB\\-\\-db\\fR \\fIFILE\\fR] \\fICOMMAND\\fR [\\fIoptions\\fR]
            .SH DESCRIPTION
            pushlog ingests an iOS push provider's send logs, APNs responses and app telemetry (plain or
            gzipped) into one SQLite file and answers delivery questions from it: reports, ad-hoc SQL,
            traces and a weekly page. The database is \\fB\\-\\-db\\fR \\fIFILE\\fR, else \\fB$PUSHLOG_DB\\fR,
            else \\fI./pushlog.db\\fR.
            .SH GLOBAL OPTIONS
            .nf

            """
        s += GlobalOptions.table.text.split(separator: "\n").map { escape(String($0)) }.joined(separator: "\n") + "\n.fi\n"
        s += """
            .SH COMMANDS

            """
        for c in commands {
            s += ".SS \(escape(c.name))\n\(escape(c.summary))\n.PP\n.B Usage:\n\(escape(c.usage))\n"
            let lines = c.options.split(separator: "\n", omittingEmptySubsequences: true)
            if !lines.isEmpty {
                s += ".PP\n.nf\n" + lines.map { escape(String($0)) }.joined(separator: "\n") + "\n.fi\n"
            }
        }
        s += """
            .SH EXIT STATUS
            0 success; 1 runtime failure (unreadable file, corrupt gzip, database error); 2 usage error;
            3 a \\fB\\-\\-fail\\-if\\fR threshold breached; 4 a \\fB\\-\\-fail\\-if\\fR over a range that holds no
            records (nothing to check is not a pass).
            .SH ENVIRONMENT

            """
        for v in GlobalOptions.environment { s += ".TP\n.B \(escape(v.name))\n\(escape(v.help))\n" }
        s += """
            .SH SEE ALSO
            .BR sqlite3 (1),
            .BR jq (1)

            """
        return s
    }

    /// roff-safe text: backslashes doubled, hyphens as \-, a leading dot or quote escaped.
    static func escape(_ t: String) -> String {
        var s = t.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "-", with: "\\-")
        if s.hasPrefix(".") || s.hasPrefix("'") { s = "\\&" + s }
        return s
    }
}
