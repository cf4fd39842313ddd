import Foundation
import PushLogKit
import Synchronization

/// A usage error: exit 2 with a one-line message and a hint.
struct UsageError: Error {
    let message: String
    let hint: String
}

/// A failure that has already been explained on stderr, with its exit status.
struct ExitStatus: Error { let code: Int32 }

/// Hand-written argument parsing: `--flag value`, `--flag=value`, boolean flags, positionals.
struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

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
                values[name, default: []].append(v)
            } else if boolean.contains(name) {
                flags.insert(name)
            } else {
                let known = valued + boolean
                let guess = Arguments.closest(name, known)
                throw UsageError(message: "unknown option \(name) for '\(command)'",
                                 hint: guess.map { "did you mean \($0)? (pushlog \(command) --help)" } ?? "pushlog \(command) --help")
            }
        }
    }

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

/// Where output goes and in which format, from `--format` and `-o`.
struct OutputTarget {
    let format: OutputFormat
    let path: String?
    let revealTokens: Bool
    let pager: Bool
    let color: Bool

    static let valued = ["--format", "-o", "--output", "--color"]
    static let boolean = ["--reveal-tokens", "--no-pager"]

    init(_ args: Arguments, defaultFormat: OutputFormat? = nil) throws {
        path = args.value("-o") ?? args.value("--output")
        revealTokens = args.has("--reveal-tokens")
        if revealTokens { Console.revealTokens.store(true, ordering: .relaxed) }
        pager = !args.has("--no-pager")
        color = try Console.colorWanted(args.value("--color"), path: args.value("-o") ?? args.value("--output"))
        if let f = args.value("--format") {
            guard let fmt = OutputFormat(rawValue: f.lowercased()) else {
                throw UsageError(message: "unknown --format '\(f)'",
                                 hint: "use one of: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            format = fmt
        } else if let path, let fmt = OutputFormat.fromExtension(path) {
            format = fmt
        } else if let path, let ext = path.split(separator: "/").last?.split(separator: ".").dropFirst().last {
            throw UsageError(message: "-o \(path): no output format for the extension .\(ext)",
                             hint: "use .csv, .tsv, .json, .ndjson, .md, .html or .txt, or give --format")
        } else if let defaultFormat {
            format = defaultFormat
        } else {
            // Aligned for a person at a terminal; tab-separated for a pipe or a file (SPEC §1).
            format = path == nil && !Console.stdoutIsTTY ? .tsv : .table
        }
    }

    /// The document as text, tokens masked by value unless `--reveal-tokens` (the database
    /// supplies the tokens whose shape is not hex).
    func render(_ doc: ResultDocument, db: Database?) -> String {
        let d = revealTokens ? doc : TokenMask(db: db).apply(doc)
        return format.render(d, terminalWidth: path == nil ? Console.terminalColumns : nil, color: color)
    }

    /// Writes a rendered document to the file or stdout (through the pager when long).
    func write(_ doc: ResultDocument, db: Database?) throws {
        let text = render(doc, db: db)
        if let path {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var t = text
            t.withUTF8 { _ = Foundation.write(fd, $0.baseAddress, $0.count) }
        } else {
            Pager.write(text, enabled: pager)
        }
    }
}

/// A runtime failure with a message (exit 1).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ s: String) { description = s }
}

/// stdout/stderr helpers.
enum Console {
    static func out(_ s: String) {
        var s = s
        s.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Foundation.write(1, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return }
                off += n
            }
        }
    }
    /// A diagnostic: control characters escaped, device tokens masked by value (a message may
    /// quote a log line or a key the user typed).
    static func err(_ s: String) {
        let text = revealTokens.load(ordering: .relaxed) ? s : TokenMask(irregular: []).maskText(s)
        FileHandle.standardError.write((TerminalText.safe(text) + "\n").data(using: .utf8)!)
    }
    /// Set by commands given --reveal-tokens (an atomic: Swift 6 refuses a shared mutable static).
    static let revealTokens = Atomic<Bool>(false)
    static var stderrIsTTY: Bool { isatty(2) == 1 }
    static var stdinIsTTY: Bool { isatty(0) == 1 }
    static var stdoutIsTTY: Bool { isatty(1) == 1 }
    /// Rows of the terminal on stdout ($LINES first); nil off a terminal.
    static var terminalRows: Int? {
        guard stdoutIsTTY else { return nil }
        if let r = ProcessInfo.processInfo.environment["LINES"].flatMap(Int.init), r > 2 { return r }
        var w = winsize()
        return ioctl(1, UInt(TIOCGWINSZ), &w) == 0 && w.ws_row > 2 ? Int(w.ws_row) : nil
    }

    /// `--color auto|always|never`: auto colours a terminal unless NO_COLOR is set (no-color.org).
    static func colorWanted(_ when: String?, path: String?) throws -> Bool {
        switch when ?? "auto" {
        case "always": return true
        case "never": return false
        case "auto":
            let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
            return path == nil && stdoutIsTTY && !noColor
        default:
            throw UsageError(message: "unknown --color '\(when!)'", hint: "use auto, always or never")
        }
    }

    /// Columns of the terminal on stdout ($COLUMNS first, as `ls` does); nil off a terminal.
    static var terminalColumns: Int? {
        guard stdoutIsTTY else { return nil }
        if let c = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), c > 20 { return c }
        var w = winsize()
        return ioctl(1, UInt(TIOCGWINSZ), &w) == 0 && w.ws_col > 20 ? Int(w.ws_col) : nil
    }
}
