import Foundation

/// Long output on a terminal goes through a pager, as git does: `$PAGER`, default `less -FRX`
/// (quit if one screen, keep colours, leave the text on screen). Off a terminal, or with
/// `--no-pager`, text is written as it is.
enum Pager {
    /// Writes `text` to stdout, through the pager when it is longer than the terminal.
    static func write(_ text: String, enabled: Bool) {
        guard enabled, Console.stdoutIsTTY, let rows = Console.terminalRows,
            text.reduce(0, { $0 + ($1 == "\n" ? 1 : 0) }) >= rows - 1
        else {
            Console.out(text)
            return
        }
        let env = ProcessInfo.processInfo.environment
        let command = env["PUSHLOG_PAGER"] ?? env["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -FRX"
        if command == "cat" { Console.out(text); return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        var e = env
        if e["LESS"] == nil { e["LESS"] = "FRX" }
        p.environment = e
        let pipe = Pipe()
        p.standardInput = pipe
        do { try p.run() } catch { Console.out(text); return }
        // A pager that quits early (q in less) closes the pipe: stop writing, not an error.
        signal(SIGPIPE, SIG_IGN)
        pipe.fileHandleForWriting.write(Data(text.utf8))
        try? pipe.fileHandleForWriting.close()
        p.waitUntilExit()
    }
}
