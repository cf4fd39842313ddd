import Foundation
import XCTest
@testable import PushLogKit

/// The follow's status line counts what each round did, rejected lines too, and tells a file
/// refused whole once (unless a problem of the round names it already).
final class FollowStatusTests: XCTestCase {
    func testRejectsAreCountedAndARefusedFileIsToldOnce() {
        var status = FollowStatus()
        var round = IngestSummary()
        var good = FileSummary(path: "/logs/app.log")
        good.records[.send] = 1
        good.rejects = 6
        var photo = FileSummary(path: "/logs/photo.jpg")
        photo.refused = "not text (binary data in its first bytes)"
        var named = FileSummary(path: "/logs/named.bin")
        named.refused = "not text"
        round.files = [good, photo, named]
        round.problems = ["/logs/named.bin: not text"]
        XCTAssertEqual(
            status.add(round, followed: 3, rotations: 0), ["/logs/photo.jpg: not read: not text (binary data in its first bytes)"])
        XCTAssertEqual(
            status.line(now: 0),
            "following 3 files: 1 record added, 6 lines rejected (pushlog rejects), 0 lines passed over, 0 rotations seen")
        // The next round reads the same refusal again: not told twice.
        XCTAssertEqual(status.add(round, followed: 3, rotations: 0), [])
        XCTAssertTrue(status.line(now: 0).contains("2 records added, 12 lines rejected"))
        // Without rejects the line stays as it was.
        XCTAssertEqual(FollowStatus().line(now: 0), "following 0 files: 0 records added, 0 lines passed over, 0 rotations seen")
    }
}
