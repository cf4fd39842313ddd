import Foundation
import XCTest
@testable import PushLogKit

/// At home in the shell: completion scripts and the man page from the help texts, a pager and
/// colour on a terminal (through a real pseudo-terminal made by script(1)), `--watch`.
final class ShellHabitsTests: XCTestCase {
    func testBashCompletionOffersCommandsReportsAndValues() throws {
        let script = try Run.pushlog(["completion", "bash"]).stdout
        let tmp = TempDir()
        let file = tmp.write("c.bash", script)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let r = try Shell.run(
                "source \(file); COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _pushlog; printf '%s\\n' \"${COMPREPLY[@]}\"")
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try complete(["pushlog", "rep"]), ["report", "reports"])
        XCTAssertEqual(try complete(["pushlog", "report", "op"]), ["opt-out"])
        XCTAssertTrue(try complete(["pushlog", "report", "gone", "--by", ""]).contains("week"))
        XCTAssertEqual(try complete(["pushlog", "report", "gone", "--env", ""]), ["production", "sandbox"])
        XCTAssertTrue(try complete(["pushlog", "ingest", "--"]).contains("--input-format"))
        // Every format --input-format takes: the built-in readers and the built-in definitions.
        let formats = try complete(["pushlog", "ingest", "--input-format", ""])
        XCTAssertTrue(formats.contains("gorush") && formats.contains("pushy") && formats.contains("rpush"), "\(formats)")
        // Exactly what a report takes: its own parameters and --by values, nothing it refuses.
        let weekly = try complete(["pushlog", "report", "weekly", "--"])
        XCTAssertTrue(weekly.contains("--week") && weekly.contains("--fail-if"), "\(weekly)")
        XCTAssertFalse(weekly.contains("--since") || weekly.contains("--by") || weekly.contains("--compare"), "\(weekly)")
        XCTAssertEqual(try complete(["pushlog", "report", "weekly", "--by", ""]), [])
        XCTAssertFalse(try complete(["pushlog", "report", "errors", "--by", ""]).contains("week"))
        XCTAssertTrue(try complete(["pushlog", "--db", "x.db", "report", "gone", "--by", ""]).contains("5m"))
        // The global options, from their one declaration: the stores too, and a URL is skipped.
        XCTAssertEqual(try complete(["pushlog", "--c"]), ["--clickhouse"])
        XCTAssertEqual(try complete(["pushlog", "--clickhouse", "http://h:8123/p", "report", "go"]), ["gone"])
        XCTAssertFalse(try complete(["pushlog", "report", "gone", "-"]).contains("-FRX"), "help prose is not an option")
        for shell in ["zsh", "fish"] {
            let r = try Run.pushlog(["completion", shell])
            XCTAssertEqual(r.status, 0)
            XCTAssertTrue(r.stdout.contains("opt-out") && r.stdout.contains("reveal-tokens") && r.stdout.contains("clickhouse"), shell)
        }
        XCTAssertEqual(try Run.pushlog(["completion", "tcsh"]).status, 2)
    }

    /// A release binary newer than every source is installed as it is, with no build; a source
    /// edited since brings the build back.
    func testInstallScriptDoesNotRebuildAnUpToDateBinary() throws {
        let tmp = TempDir()
        let repo = tmp.path + "/repo"
        for dir in ["scripts", "Sources", "Queries", "Plugins", ".build/release", "fakebin"] {
            try FileManager.default.createDirectory(atPath: repo + "/" + dir, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: Fixtures.root.appendingPathComponent("scripts/install.sh").path, toPath: repo + "/scripts/install.sh")
        _ = tmp.write("repo/Package.swift", "// a package\n")
        _ = tmp.write("repo/Queries/gone.sql", "-- a report\n")
        // A `swift` that only says it was asked, so a build shows.
        _ = tmp.write("repo/fakebin/swift", "#!/bin/sh\necho \"swift $*\" >> \(repo)/built\necho \(repo)/.build/release\n")
        XCTAssertEqual(try Shell.run("chmod +x \(repo)/fakebin/swift").status, 0)
        sleep(1)
        try FileManager.default.copyItem(atPath: Fixtures.binary, toPath: repo + "/.build/release/pushlog")
        let install = "cd \(repo) && PATH=\(repo)/fakebin:$PATH DESTDIR=\(tmp.path)/dest scripts/install.sh /usr"
        let fresh = try Shell.run(install)
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertTrue(fresh.stderr.contains("up to date"), fresh.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: repo + "/built"), "an up-to-date binary was rebuilt")
        sleep(1)
        _ = tmp.write("repo/Queries/gone.sql", "-- a report, edited\n")
        XCTAssertEqual(try Shell.run(install).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: repo + "/built"), "an edited source did not bring the build back")
    }

    /// One step installs the binary, the man page and the completions where the shells look.
    func testInstallScriptPutsEverythingWhereShellsLook() throws {
        let tmp = TempDir()
        let script = Fixtures.root.appendingPathComponent("scripts/install.sh").path
        let r = try Shell.run("DESTDIR=\(tmp.path) PUSHLOG_BIN=\(Fixtures.binary) \(script) /usr")
        XCTAssertEqual(r.status, 0, r.stderr)
        let root = tmp.path + "/usr"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: root + "/bin/pushlog"))
        let man = try String(contentsOfFile: root + "/share/man/man1/pushlog.1", encoding: .utf8)
        XCTAssertTrue(man.hasPrefix(".TH PUSHLOG 1"))
        for (file, marker) in [
            ("share/bash-completion/completions/pushlog", "complete -F _pushlog pushlog"),
            ("share/zsh/site-functions/_pushlog", "#compdef pushlog"),
            ("share/fish/vendor_completions.d/pushlog.fish", "complete -c pushlog"),
        ] {
            XCTAssertTrue(try String(contentsOfFile: root + "/" + file, encoding: .utf8).contains(marker), file)
        }
        XCTAssertEqual(try Shell.run("\(root)/bin/pushlog --version").status, 0)
    }

    func testManPageListsEveryCommandAndOption() throws {
        let man = try Run.pushlog(["help", "--man"]).stdout
        XCTAssertTrue(man.hasPrefix(".TH PUSHLOG 1"))
        for name in ["\\-\\-clickhouse", "PUSHLOG_CLICKHOUSE", "PUSHLOG_FORMATS"] { XCTAssertTrue(man.contains(name), name) }
        let help = try Run.pushlog(["help"]).stdout
        for line in help.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            guard let cmd = line.split(separator: " ").first, !cmd.hasPrefix("-") else { continue }
            XCTAssertTrue(man.contains(".SS \(cmd)\n"), "man page lacks \(cmd)")
            let options = try Run.pushlog([String(cmd), "--help"]).stdout
            for word in options.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("--") && word.count > 2 {
                let flag = word.split(separator: "=").first.map(String.init)!.trimmingCharacters(in: CharacterSet(charactersIn: "[]|(),`"))
                XCTAssertTrue(man.contains(flag.replacingOccurrences(of: "-", with: "\\-")), "man page lacks \(flag) of \(cmd)")
            }
        }
        if Shell.has("man") {
            let tmp = TempDir()
            let r = try Shell.run("man -l \(tmp.write("pushlog.1", man)) | head -5")
            XCTAssertTrue(r.stdout.contains("PUSHLOG(1)"), r.stdout + r.stderr)
            // No word (node-apn-console, --format) is broken across lines, at any width.
            for width in [80, 100, 120] {
                let page = try Shell.run("MANWIDTH=\(width) man -l \(tmp.path)/pushlog.1 2>/dev/null").stdout
                let broken = page.split(separator: "\n").filter {
                    $0.hasSuffix("\u{2010}") || $0.range(of: "[a-z]-$", options: .regularExpression) != nil
                }
                XCTAssertEqual(broken, [], "hyphenated at \(width) columns")
            }
        }
    }

    func testPagerAndColourOnATerminal() throws {
        guard Shell.has("script") else { throw XCTSkip("script(1) is needed for a pseudo-terminal") }
        let tmp = TempDir()
        let db = tmp.file("r.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let bin = Fixtures.binary
        // Longer than the 10-line screen: through $PAGER.
        let paged = try Shell.tty("unset NO_COLOR; LINES=10 COLUMNS=120 PAGER='sed s/^/PAGED:/'", "\(bin) --db \(db) report gone")
        XCTAssertTrue(paged.stdout.contains("PAGED:## summary"), paged.stdout)
        let unpaged = try Shell.tty(
            "unset NO_COLOR; LINES=10 COLUMNS=120 PAGER='sed s/^/PAGED:/'", "\(bin) --db \(db) report gone --no-pager")
        XCTAssertFalse(unpaged.stdout.contains("PAGED:"), unpaged.stdout)
        // Into a pipe: never paged.
        let piped = try Shell.run("PAGER='sed s/^/PAGED:/' \(bin) --db \(db) report gone --format table")
        XCTAssertFalse(piped.stdout.contains("PAGED:"))
        // Colour: compared changes, on a terminal unless NO_COLOR (which swift test sets, so the
        // coloured run unsets it); --color always/never. (The fixture's weekly page is a partial
        // week, whose moves are not coloured.)
        let compared = [
            "report", "gone", "--since", "2026-11-04", "--until", "2026-11-06", "--compare", "previous", "--format", "table", "--no-pager",
        ]
        let coloured = try Shell.tty("unset NO_COLOR; COLUMNS=400", "\(bin) --db \(db) \(compared.joined(separator: " "))")
        XCTAssertTrue(
            coloured.stdout.contains("\u{1B}[3"),
            coloured.stdout.replacingOccurrences(of: "\u{1B}", with: "ESC").replacingOccurrences(of: "\r", with: ""))
        let noColor = try Shell.tty("NO_COLOR=1 COLUMNS=400", "\(bin) --db \(db) \(compared.joined(separator: " "))")
        XCTAssertFalse(noColor.stdout.contains("\u{1B}[3"))
        XCTAssertTrue(try Run.pushlog(["--db", db] + compared + ["--color", "always"]).stdout.contains("\u{1B}[3"))
        XCTAssertFalse(try Run.pushlog(["--db", db] + compared).stdout.contains("\u{1B}["), "no colour into a pipe")
        XCTAssertEqual(try Run.pushlog(["--db", db] + compared + ["--color", "sometimes"]).status, 2)
    }

    /// A terminal whose locale is not UTF-8 (LANG unset: the C locale) gets a table with ASCII
    /// rules through the real `less` (which would show `─` as `<E2><94><80>`); a UTF-8 one keeps
    /// the line-drawing rule.
    func testTablesInAnASCIILocaleThroughTheRealPager() throws {
        guard Shell.has("script"), Shell.has("less") else { throw XCTSkip("script(1) and less are needed for a real terminal") }
        let tmp = TempDir()
        let db = tmp.file("r.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        func screen(_ locale: String) throws -> String {
            try Shell.tty(
                "env -u LC_ALL -u LC_CTYPE -u LANG \(locale) LINES=60 COLUMNS=100 PAGER='less -FRX'",
                "\(Fixtures.binary) --db \(db) report gone"
            ).stdout
        }
        let ascii = try screen("")
        XCTAssertTrue(ascii.contains("---------"), ascii)
        XCTAssertFalse(ascii.contains("─") || ascii.contains("<E2>"), ascii)
        let utf8 = try screen("LANG=C.UTF-8")
        XCTAssertTrue(utf8.contains("─────"), utf8)
    }

    func testWatchRedrawsUntilInterrupted() throws {
        let tmp = TempDir()
        let db = tmp.file("r.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.binary)
        p.arguments = ["--db", db, "report", "gone", "--watch", "0.2", "--format", "tsv"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        Thread.sleep(forTimeInterval: 1.0)
        p.interrupt()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "Ctrl-C ends a watch normally")
        XCTAssertGreaterThanOrEqual(text.components(separatedBy: "# summary").count - 1, 2, text)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--watch", "0"]).status, 2)
    }
}

/// Runs a bash command line.
enum Shell {
    /// A command under script(1)'s pseudo-terminal; stdin stays open meanwhile (script stops
    /// relaying output at the end of its input).
    static func tty(_ env: String, _ command: String) throws -> Run {
        try run("\(env) script -qec \"\(command)\" /dev/null")
    }

    static func run(_ command: String) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", command]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func has(_ tool: String) -> Bool { (try? run("command -v \(tool)"))?.status == 0 }
}
