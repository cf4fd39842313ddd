/// One entry of a command's OPTIONS: an option (its spellings and whether it takes a value) or
/// a positional argument, with its help. A command declares its entries once, in an
/// `OptionTable`; the parser, `--help`, completion and the man page all read that table.
struct OptionSpec: Sendable {
    enum Kind: Sendable { case flag, value, positional }
    /// The spellings, the main one first (`--follow`, `-f`); a positional's name (`PATH...`).
    let names: [String]
    let kind: Kind
    /// What the help shows in the option column (`--input-format NAME`, `--follow, -f`).
    let label: String
    /// The help text, one string per line.
    let help: [String]
    /// Whether `--help` lists it and completion offers it; an unlisted spelling still parses.
    let listed: Bool

    /// A boolean flag.
    static func flag(_ names: String..., help: String...) -> OptionSpec {
        OptionSpec(names: names, kind: .flag, label: names.joined(separator: ", "), help: help, listed: true)
    }

    /// An option that takes a value, shown as `NAME PLACEHOLDER`.
    static func value(_ names: String..., placeholder: String, help: String...) -> OptionSpec {
        OptionSpec(names: names, kind: .value, label: names.joined(separator: ", ") + " " + placeholder, help: help, listed: true)
    }

    /// A positional argument (or a subcommand word), listed for its help only.
    static func positional(_ label: String, help: String...) -> OptionSpec {
        OptionSpec(names: [label], kind: .positional, label: label, help: help, listed: true)
    }

    /// Spellings that parse but the help does not list (short forms, output options a command
    /// takes without advertising them).
    static func unlisted(flags: [String] = [], values: [String] = []) -> [OptionSpec] {
        flags.map { OptionSpec(names: [$0], kind: .flag, label: $0, help: [], listed: false) }
            + values.map { OptionSpec(names: [$0], kind: .value, label: $0, help: [], listed: false) }
    }
}

/// A command's options in the order its help lists them.
struct OptionTable: Sendable {
    /// Where the help text starts in each line.
    let column: Int
    let entries: [OptionSpec]
    /// Text after the options (how the flags combine, what the output holds).
    let notes: String

    init(column: Int = 19, _ entries: [OptionSpec], unlisted: [OptionSpec] = [], notes: String = "") {
        self.column = column
        self.entries = entries + unlisted
        self.notes = notes
    }

    /// Every spelling of the options that take a value.
    var valued: [String] { entries.filter { $0.kind == .value }.flatMap(\.names) }
    /// Every spelling of the boolean flags.
    var boolean: [String] { entries.filter { $0.kind == .flag }.flatMap(\.names) }
    /// The main spelling of each listed option, in help order (for completion).
    var listed: [String] { entries.filter { $0.listed && $0.kind != .positional }.map { $0.names[0] } }

    /// The OPTIONS section of `--help`.
    var text: String {
        var s = ""
        let pad = String(repeating: " ", count: column)
        for e in entries where e.listed {
            let label = "  " + e.label
            s += label.padding(toLength: max(column, label.count + 1), withPad: " ", startingAt: 0) + (e.help.first ?? "") + "\n"
            for more in e.help.dropFirst() { s += pad + more + "\n" }
        }
        return s + notes
    }
}

extension OptionTable {
    /// The output options every command that prints a table takes (`OutputTarget`).
    static let output = OptionSpec.unlisted(flags: OutputTarget.boolean, values: OutputTarget.valued)
}
