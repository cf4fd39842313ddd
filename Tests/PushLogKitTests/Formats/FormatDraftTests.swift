import Foundation
import XCTest
@testable import PushLogKit

/// `pushlog formats draft`: a definition proposed from a log's own lines reads, unedited, the
/// APNs answers of logs shaped like real tools' (read here as if no built-in format knew them).
final class FormatDraftTests: XCTestCase {
    /// Drafts a definition from `fixture`, then ingests the fixture with it alone.
    func readWithDraft(_ fixture: String) throws -> (summary: IngestSummary, draft: String) {
        let path = Fixtures.path(fixture)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let text = try XCTUnwrap(FormatDraft.draft(lines: lines, name: "drafted", source: fixture))
        let tmp = TempDir(), db = tmp.file("d.db")
        var o = IngestOptions()
        var lib = FormatLibrary()
        try lib.add(LineDefinition.parse(text, file: "drafted.format"))
        o.formats = lib
        o.inputFormat = .defined("drafted")
        let s = try Ingester(db: try Store.openForWriting(path: db), options: o).run(paths: [path])
        return (s, text)
    }

    func testADraftReadsTheAnswersOfThreeToolsLogs() throws {
        // aioapns's status lines and sygnal's rejected tokens.
        let a = try readWithDraft("aioapns-sygnal.log")
        XCTAssertEqual(kinds(a.summary), ["response": 2, "send": 1], a.draft)
        // Mattermost's push proxy, Go log and structured plain lines.
        let m = try readWithDraft("mattermost-push-proxy.log")
        XCTAssertEqual(kinds(m.summary), ["response": 3], m.draft)
        // Go apns2 printouts with and without a reason.
        let g = try readWithDraft("apns2.log")
        XCTAssertEqual(kinds(g.summary), ["response": 3], g.draft)
        XCTAssertTrue(g.draft.contains("sample: 2026/11/03 13:00:01 400 8c1d2e3f-0000-4000-8000-00000000e001 BadDeviceToken"))
    }

    func testALogWithNoAnswersDraftsNothing() {
        XCTAssertNil(FormatDraft.draft(lines: ["starting", "2026-11-03 10:00:00 connected to api.push.apple.com"], name: "x", source: "x"))
    }

    func testTheDraftCommandWritesADefinitionThatChecks() throws {
        let tmp = TempDir()
        let r = try Run.pushlog(["formats", "draft", Fixtures.path("apns2.log")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("name: drafted-apns2\n"), r.stdout)  // apns2 is a built-in's name
        let f = tmp.write("drafted-apns2.format", r.stdout)
        let check = try Run.pushlog(["formats", "check", f])
        XCTAssertEqual(check.status, 0, check.stderr)
    }
}
