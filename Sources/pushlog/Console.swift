import Foundation
import PushLogKit
import Synchronization

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

    /// Whether the locale's character set is UTF-8 (the first of LC_ALL, LC_CTYPE and LANG that
    /// is set decides, as for every C program); unset means the C locale, which is ASCII.
    static var localeIsUTF8: Bool {
        let env = ProcessInfo.processInfo.environment
        guard let value = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap({ env[$0] }).first(where: { !$0.isEmpty }) else {
            return false
        }
        let v = value.lowercased()
        return v.contains("utf-8") || v.contains("utf8")
    }
    /// What a command on ClickHouse says before it brings the kept facts up to date, which may
    /// read the whole history (a minute or more on a large one): on a terminal only, so cron's
    /// mail stays empty.
    static var factsRebuildNotice: (@Sendable (String) -> Void)? {
        guard stderrIsTTY else { return nil }
        return { notice in Console.err("pushlog: \(notice)…") }
    }
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
