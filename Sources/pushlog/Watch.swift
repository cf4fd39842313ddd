import Foundation
import PushLogKit
import Synchronization

/// `report … --watch [SECONDS]`: reruns a report and redraws it, like watch(1), until Ctrl-C
/// (which ends it with status 0). Relative times (`--since -2h`) slide with the clock.
enum Watch {
    /// Set by the SIGINT/SIGTERM handler, read by the loop: an atomic, which a signal handler may
    /// store to and Swift 6 lets two contexts share.
    static let stop = Atomic<Int32>(0)

    /// The seconds of a `--watch` in `argv` (2 when no number follows it), and argv without it.
    static func extract(_ argv: [String]) throws -> (Double?, [String]) {
        var out: [String] = []
        var seconds: Double?
        var i = 0
        while i < argv.count {
            let a = argv[i]
            if a == "--watch" {
                if i + 1 < argv.count, let s = Double(argv[i + 1]) { seconds = s; i += 2; continue }
                seconds = 2
            } else if a.hasPrefix("--watch=") {
                guard let s = Double(a.dropFirst(8)) else {
                    throw UsageError(message: "--watch expects seconds, got '\(a.dropFirst(8))'", hint: "--watch 5")
                }
                seconds = s
            } else {
                out.append(a)
            }
            i += 1
        }
        if let s = seconds, !(s >= 0.1 && s <= 86_400) {
            throw UsageError(message: "--watch expects 0.1 to 86400 seconds, got \(s)", hint: "--watch 5")
        }
        return (seconds, out)
    }

    /// A report's parameters for one round, read again from its arguments so relative times
    /// (--since -2h) slide with the clock; with `--compare previous`, the shift back.
    static func roundParams(_ req: ReportCommand.Request) throws -> (ReportParams, compare: Bool, shift: Int64) {
        var p = try ReportCommand.parseParams(req.args)
        let previous = try ReportCommand.comparePrevious(req.args, req.def, &p)
        _ = ReportCommand.alignRange(req.args, req.def, &p, compare: previous)
        return (p, previous, previous ? try ReportCommand.compareShift(req.args, req.def, p) : 0)
    }

    /// Calls `frame` every `seconds` and shows what it returns: redrawn in place on a terminal,
    /// one block after another into a pipe.
    static func loop(every seconds: Double, title: String, frame: () throws -> String) throws -> Int32 {
        signal(SIGINT) { _ in Watch.stop.store(1, ordering: .relaxed) }
        signal(SIGTERM) { _ in Watch.stop.store(1, ordering: .relaxed) }
        let tty = Console.stdoutIsTTY
        while Watch.stop.load(ordering: .relaxed) == 0 {
            let text = try frame()
            let stamp = TimeFormatNow.string()
            if tty {
                Console.out("\u{1B}[H\u{1B}[2J" + "Every \(seconds)s: \(title)    \(stamp)\n\n" + text)
            } else {
                Console.out("# \(stamp) \(title)\n" + text + "\n")
            }
            var waited = 0.0
            while waited < seconds && Watch.stop.load(ordering: .relaxed) == 0 {
                usleep(50_000)
                waited += 0.05
            }
        }
        return 0
    }
}

enum TimeFormatNow {
    static func string() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date())
    }
}
