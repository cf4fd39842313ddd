import PushLogKit

/// Hand-written argument parsing: `--flag value`, `--flag=value`, boolean flags, positionals.
struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `args` with the options a command declares.
    init(_ args: [String], command: String, table: OptionTable) throws {
        try self.init(args, command: command, valued: table.valued, boolean: table.boolean)
    }

    /// Parses `args` given the options that take a value and the boolean flags the command knows.
    init(_ args: [String], command: String, valued: [String], boolean: [String]) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            // SQL that starts with a `-- comment`, or any text with spaces, is an argument, not a flag.
            if onlyPositionals || a == "-" || !a.hasPrefix("-") || a.contains(" ") || a.contains("\n") {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = a
            var inline: String?
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            if valued.contains(name) {
                guard let v = inline ?? (i < args.count ? args[i] : nil) else {
                    throw UsageError(message: "\(name) needs a value", hint: "pushlog \(command) --help")
                }
                if inline == nil { i += 1 }
                // Given twice, a single-valued option would quietly take the last one.
                if let first = values[name]?.first, !Arguments.repeatable.contains(name), first != v {
                    throw UsageError(
                        message: "\(name) given twice ('\(first)' and '\(v)')", hint: "give it once (pushlog \(command) --help)")
                }
                values[name, default: []].append(v)
            } else if boolean.contains(name) {
                flags.insert(name)
            } else {
                let known = valued + boolean
                let guess = Arguments.closest(name, known)
                throw UsageError(
                    message: "unknown option \(name) for '\(command)'",
                    hint: guess.map { "did you mean \($0)? (pushlog \(command) --help)" } ?? "pushlog \(command) --help")
            }
        }
    }

    /// Options that may be given several times, each adding a value.
    static let repeatable: Set<String> = ["--fail-if"]

    /// Refuses positionals beyond the first `max`: a stray word is never silently ignored.
    /// A stray TIME (`report gone yesterday`) gets the hint of the option it was probably meant for.
    func allowPositionals(_ max: Int, command: String, timeOption: String? = nil) throws {
        guard positionals.count > max else { return }
        let stray = positionals[max]
        var hint = "pushlog \(command) --help"
        if let timeOption, TimeArgument.parse(stray) != nil {
            hint = "did you mean `\(timeOption) \(stray)`? (\(hint))"
        } else if stray.hasPrefix("—") || stray.hasPrefix("–") {
            hint = "options start with two ASCII hyphens (--); \(hint)"
        }
        throw UsageError(message: "unexpected argument '\(stray)' for '\(command)'", hint: hint)
    }

    /// Options given on the command line, in the order seen (for per-report checks).
    var given: [String] { Array(values.keys) + Array(flags) }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func int(_ name: String, command: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let i = Int(v), i >= 0 else {
            throw UsageError(message: "\(name) expects a whole number, got '\(v)'", hint: "for example \(name) 10")
        }
        return i
    }

    /// The known name nearest to `s` by edit distance, when close enough.
    static func closest(_ s: String, _ candidates: [String]) -> String? {
        var best: (String, Int)?
        for c in candidates {
            let d = editDistance(s, c)
            if d <= max(2, c.count / 3), best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        var prev = Array(0...y.count)
        for i in 1...x.count {
            var cur = [i] + [Int](repeating: 0, count: y.count)
            for j in 1...max(y.count, 1) where j <= y.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[y.count]
    }
}
