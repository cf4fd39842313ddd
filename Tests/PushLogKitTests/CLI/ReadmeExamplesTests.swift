import Foundation
import XCTest
@testable import PushLogKit

/// Every pushlog command README.md shows runs on the demo database without a usage error: the
/// examples are what people paste into a terminal and a crontab.
final class ReadmeExamplesTests: XCTestCase {
    /// The `pushlog …` commands of the README's code blocks and inline code, one per pipeline
    /// stage, with line continuations joined.
    static func commands(_ readme: String) -> [String] {
        var out: [String] = []
        var inBlock = false
        var pending = ""
        for raw in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if raw.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            var texts: [String] = []
            if inBlock {
                let line = pending + raw
                if line.hasSuffix("\\") {
                    pending = String(line.dropLast()) + " "
                    continue
                }
                pending = ""
                texts = [line]
            } else {
                // Inline code: `pushlog …` (a table cell escapes its pipes as \|).
                let parts = raw.replacingOccurrences(of: "\\|", with: "|").split(separator: "`", omittingEmptySubsequences: false)
                texts = parts.enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            }
            for text in texts {
                // Each stage of a pipeline, list or substitution on its own; comments dropped.
                let code = text.range(of: "  #").map { String(text[..<$0.lowerBound]) } ?? text
                for stage in Self.stages(code) {
                    let words = stage.trimmingCharacters(in: .whitespaces)
                    guard let start = words.range(of: "pushlog "),
                        words[..<start.lowerBound].allSatisfy({ $0 == " " || $0.isLetter || $0 == "=" })
                    else { continue }
                    let cmd = String(words[start.lowerBound...])
                    if cmd.contains("$") || cmd.contains("...") || cmd.contains("COMMAND") || cmd.contains("NAME")
                        || cmd.hasPrefix("pushlog demo")
                    {
                        continue
                    }
                    out.append(cmd)
                }
            }
        }
        return out
    }

    /// The simple commands of a shell line: split at `|`, `||`, `&&`, `;`, `>`, `$(` and `)`
    /// outside quotes.
    static func stages(_ line: String) -> [String] {
        var out: [String] = [], current = ""
        var quote: Character?
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if let q = quote {
                if c == q { quote = nil }
                current.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                current.append(c)
            } else if "|&;>)".contains(c) || (c == "$" && i + 1 < chars.count && chars[i + 1] == "(") {
                out.append(current)
                current = ""
                if c == "$" { i += 1 }
            } else {
                current.append(c)
            }
            i += 1
        }
        return out + [current]
    }

    /// Every example runs without a usage error and, on a demo database that ends now (as
    /// `pushlog demo` writes it), returns rows: an example that prints nothing on the demo teaches
    /// nothing.
    func testEveryReadmeCommandReturnsRowsOnTheDemo() throws {
        let readme = try String(contentsOf: Fixtures.root.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = Self.commands(readme)
        XCTAssertGreaterThan(commands.count, 20, "the README's examples were found")
        let tmp = TempDir()
        var demo = smallDemo(devices: 600, weeks: 2)
        demo.end = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try DemoGenerator(demo).write(to: tmp.path + "/logs")
        let db = tmp.file("demo.db")
        _ = try ingest([tmp.path + "/logs"], db: db)
        try FileManager.default.createDirectory(atPath: tmp.path + "/work", withIntermediateDirectories: true)
        for cmd in commands {
            // Following and redrawing run until stopped: their arguments are checked with --help off.
            if cmd.contains("--follow") || cmd.contains("--watch") { continue }
            // The README's paths are the reader's: the demo's database and a scratch folder stand in.
            var line = cmd.replacingOccurrences(of: "/var/lib/pushlog/pushlog.db", with: db)
                .replacingOccurrences(of: "/var/log/pusher/", with: tmp.path + "/logs/")
                .replacingOccurrences(of: "/var/lib/node_exporter/textfile/", with: tmp.path + "/work/")
            line = Fixtures.binary + line.dropFirst("pushlog".count)
            let out = tmp.file("work/stdout")
            let r = try Shell.run("cd \(tmp.path)/work && PUSHLOG_DB=\(db) timeout 60 \(line) < /dev/null > \(out)")
            XCTAssertNotEqual(r.status, 2, "usage error: \(cmd)\n\(r.stderr)")
            XCTAssertNotEqual(r.status, 124, "hung: \(cmd)")
            // 0, or 3 for a --fail-if that holds; 1 or 4 would be a figure the demo cannot show.
            XCTAssertTrue([0, 3].contains(r.status), "exit \(r.status): \(cmd)\n\(r.stderr)")
            if cmd.hasPrefix("pushlog ingest") { continue }
            let written = try Self.rows(String(line), stdout: String(contentsOfFile: out, encoding: .utf8), dir: tmp.path + "/work")
            XCTAssertGreaterThan(written, 0, "no rows on the demo database: \(cmd)")
        }
    }

    /// The examples' ranges are relative to the moment they run (`--since -1h`, `--at -30m`), so the
    /// demo holds responses and app events in every hour of every day, whatever the hour of the
    /// run: the check above alone would pass or fail with the time of day.
    func testTheDemoHasTrafficInEveryHour() throws {
        let tmp = TempDir()
        let demo = smallDemo(devices: 600, weeks: 2)
        _ = try DemoGenerator(demo).write(to: tmp.path + "/logs")
        let db = tmp.file("demo.db")
        _ = try ingest([tmp.path + "/logs"], db: db)
        for table in ["responses", "receipts"] {
            let hours = try rows("SELECT count(DISTINCT time_ms / 3600000) FROM \(table)", db)
            XCTAssertEqual(hours, [[.int(Int64(demo.weeks * 7 * 24))]], "hours with \(table)")
        }
    }

    /// The data lines an example printed: of its `-o FILE` when it names one, else of its output
    /// (a TSV or CSV header is not a row).
    static func rows(_ cmd: String, stdout: String, dir: String) throws -> Int {
        let words = cmd.split(separator: " ").map(String.init)
        var text = stdout
        if let o = words.firstIndex(of: "-o"), o + 1 < words.count {
            let path = words[o + 1].hasPrefix("/") ? words[o + 1] : dir + "/" + words[o + 1]
            text = try String(contentsOfFile: path, encoding: .utf8)
        }
        let lines = text.split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let format = words.firstIndex(of: "--format").map { words[$0 + 1] } ?? "tsv"
        let separator: Character = format == "csv" ? "," : "\t"
        let hasHeader = (format == "tsv" || format == "csv") && !words.contains("-o") && lines.first?.contains(separator) == true
        return lines.count - (hasHeader ? 1 : 0)
    }
}
