import Foundation

/// Long output on a terminal goes through a pager, as git does: `$PAGER`, default `less -FRX`
/// (quit if one screen, keep colours, leave the text on screen). Off a terminal, or with
/// `--no-pager`, text is written as it is.
///
/// The pager is spawned in pushlog's own process group, which is the terminal's foreground
/// group: a pager in a group of its own (what Foundation's `Process` makes) is stopped by
/// SIGTTOU the moment it sets up the terminal, and the shell never comes back.
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
        guard command != "cat", let outcome = run(command, text: text, env: env) else {
            Console.out(text)
            return
        }
        // `sh -c` exits 126/127 when the pager cannot be run: nothing was shown, so print it plain.
        if outcome == 126 || outcome == 127 { Console.out(text) }
    }

    /// Runs `/bin/sh -c command` with `text` on its standard input and waits for it: its exit
    /// status, or nil when it could not be spawned at all.
    static func run(_ command: String, text: String, env: [String: String]) -> Int32? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        var e = env
        if e["LESS"] == nil { e["LESS"] = "FRX" }
        let argv: [UnsafeMutablePointer<CChar>?] = [String](["/bin/sh", "-c", command]).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = e.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return nil
        }
        // The pager shares the terminal's foreground group: Ctrl-C reaches it and pushlog alike,
        // and pushlog waits for the pager to restore the terminal instead of dying under it. A
        // pager that quits early (q in less) closes the pipe: stop writing, not an error.
        signal(SIGPIPE, SIG_IGN)
        let oldInt = signal(SIGINT, SIG_IGN)
        let oldQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, oldInt)
            signal(SIGQUIT, oldQuit)
        }
        var t = text
        t.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Foundation.write(writeEnd, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                off += n
            }
        }
        close(writeEnd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
