import Foundation
import XCTest
@testable import PushLogKit

/// The binary at a real terminal: a pseudo-terminal of its own (Tests/Tools/pty-session.py)
/// whose session and foreground process group are pushlog's, the real `less`, keys typed.
final class TerminalTests: XCTestCase {
    struct Session: Decodable {
        let exit: Int32?
        let hung: Bool
        let transcript: String
    }

    /// Runs `args` in a pty of `rows` lines, typing each step's keys once its text is shown.
    static func session(
        _ args: [String], env: [String: String] = [:], rows: Int = 10, cols: Int = 100, steps: [(String, String)] = []
    ) throws -> Session {
        let driver = Fixtures.root.appendingPathComponent("Tests/Tools/pty-session.py").path
        var argv = [driver, "--rows", String(rows), "--cols", String(cols), "--timeout", "10"]
        for (text, keys) in steps { argv += ["--expect", text, "--send", keys] }
        argv += ["--", "/usr/bin/env"] + env.map { "\($0.key)=\($0.value)" } + [Fixtures.binary] + args
        let r = try Shell.run((["python3"] + argv).map { "'\($0)'" }.joined(separator: " ") + " < /dev/null")
        XCTAssertEqual(r.status, 0, r.stderr)
        return try JSONDecoder().decode(Session.self, from: Data(r.stdout.utf8))
    }

    static let hundredRows = ["query", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT i FROM n"]

    func testLongOutputPagesInTheForegroundAndQReturnsToTheShell() throws {
        guard Shell.has("less"), Shell.has("python3") else { throw XCTSkip("needs less and python3") }
        let db = IngestedFixtures.reports
        let s = try Self.session(["--db", db] + Self.hundredRows, env: ["PAGER": "less"], steps: [(":", "q")])
        XCTAssertFalse(s.hung, "the pager was stopped or never quit:\n\(s.transcript)")
        XCTAssertEqual(s.exit, 0)
        XCTAssertTrue(s.transcript.contains("7"), s.transcript)
        XCTAssertFalse(s.transcript.contains("100"), "less showed the first screen only:\n\(s.transcript)")
    }

    func testDefaultPagerToo() throws {
        guard Shell.has("less"), Shell.has("python3") else { throw XCTSkip("needs less and python3") }
        let s = try Self.session(["--db", IngestedFixtures.reports] + Self.hundredRows, steps: [(":", "G"), ("100", "q")])
        XCTAssertFalse(s.hung, s.transcript)
        XCTAssertEqual(s.exit, 0)
        XCTAssertTrue(s.transcript.contains("100"), "G went to the end:\n\(s.transcript)")
    }

    func testPagerThatCannotStartMeansPlainOutput() throws {
        guard Shell.has("python3") else { throw XCTSkip("needs python3") }
        let s = try Self.session(["--db", IngestedFixtures.reports] + Self.hundredRows, env: ["PAGER": "no-such-pager-here"])
        XCTAssertFalse(s.hung, s.transcript)
        XCTAssertEqual(s.exit, 0)
        XCTAssertTrue(s.transcript.contains("100"), s.transcript)
    }

    /// At 80 columns every table fits: paths shortened or left out first, times and masked tokens
    /// never cut; what still does not fit is shown a row at a time.
    func testTablesFitEightyColumnsWithoutCuttingTimesOrTokens() throws {
        guard Shell.has("python3") else { throw XCTSkip("needs python3") }
        let db = IngestedFixtures.reports
        let commands = [
            ["report", "errors"], ["report", "gone", "--since", "2026-11-03", "--until", "2026-11-05", "--compare", "previous"],
            ["report", "weekly", "--week", "2026-W45"], ["tokens", "--gone", "--superseded"], ["trace", "aaaa0000"],
            ["report", "hygiene"], ["sources"],
        ]
        for args in commands {
            let s = try Self.session(["--db", db] + args + ["--no-pager"], rows: 200, cols: 80)
            XCTAssertEqual(s.exit, 0, "\(args): \(s.transcript)")
            let lines = s.transcript.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
            // The title's parameter line may run on (one line of key=value pairs), and so may
            // diagnostics on stderr.
            for line in lines where !line.contains("=") && !line.hasPrefix("pushlog:") {
                XCTAssertLessThanOrEqual(line.count, 80, "\(args): \(line)")
            }
            XCTAssertNil(s.transcript.range(of: #"\d{4}-\d\d-\d\dT[0-9:]*…"#, options: .regularExpression), "a time was cut: \(args)")
            XCTAssertNil(s.transcript.range(of: #"[0-9a-f]{8}…[0-9a-f]{0,3}…"#, options: .regularExpression), "a token was cut: \(args)")
        }
    }

    /// At 120 columns the catalog and the hygiene rules are tables, not a row at a time: prose
    /// (descriptions, advice) wraps inside its column with every word kept, and the hygiene rows'
    /// evidence columns are left out, as the table says.
    func testProseWrapsInsideItsColumnAt120Columns() throws {
        guard Shell.has("python3") else { throw XCTSkip("needs python3") }
        let db = IngestedFixtures.reports
        let catalog = try Self.session(["--db", db, "reports", "--no-pager"], rows: 300, cols: 120)
        XCTAssertEqual(catalog.exit, 0, catalog.transcript)
        let text = catalog.transcript.replacingOccurrences(of: "\r", with: "")
        XCTAssertFalse(text.contains("-[ row"), text)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.count <= 120 }, text)
        // Every word of the gone report's description is on screen, none cut.
        let words = try QueryCatalog().report("gone")!.description.split(separator: " ").filter { !$0.contains("/") }
        let shown = Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        for w in words { XCTAssertTrue(shown.contains(String(w)), "\(w) missing:\n\(text)") }

        let hygiene = try Self.session(["--db", db, "report", "hygiene", "--no-pager"], rows: 300, cols: 120)
        XCTAssertEqual(hygiene.exit, 0, hygiene.transcript)
        XCTAssertFalse(hygiene.transcript.contains("-[ row"), hygiene.transcript)
        XCTAssertTrue(hygiene.transcript.contains("(left out to fit: example, example_token"), hygiene.transcript)
        XCTAssertTrue(hygiene.transcript.contains("non_retryable_retried"), hygiene.transcript)
    }
}
