import Foundation
import XCTest
@testable import PushLogKit

/// kill -9 during an ingest, then a re-run: every count equals an uninterrupted ingest.
final class CrashResumeTests: XCTestCase {
    func counts(_ db: String) throws -> [Int64] {
        try [
            "sends", "registers", "settings", "receipts", "token_facts", "token_runs", "device_facts", "token_stale", "background_hourly",
            "retry_links", "backoff_retries",
        ]
        .map {
            try count("SELECT count(*) FROM \($0)", db: db)
        } + [
            try count("SELECT count(receipt_ms) + coalesce(sum(receipt_ms - time_ms), 0) FROM background_pushes", db: db),
            try count("SELECT sum(pushes) * 1000 + sum(accepted) + sum(received) * 7 + sum(length(lags)) FROM background_hourly", db: db),
            try count("SELECT sum(responses) * 1000 + sum(gone) FROM hourly_responses", db: db),
        ]
    }

    func testKillNineAtSeveralPointsThenResume() throws {
        let tmp = TempDir()
        let o = smallDemo(devices: 600)
        _ = try DemoGenerator(o).write(to: tmp.path + "/logs")
        let reference = tmp.file("ref.db")
        XCTAssertEqual(try Run.pushlog(["--db", reference, "ingest", "--quiet", tmp.path + "/logs"]).status, 0)
        let expected = try counts(reference)
        for (i, delay) in [0.05, 0.15, 0.3, 0.6].enumerated() {
            let db = tmp.file("k\(i).db")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Fixtures.binary)
            p.arguments = ["--db", db, "ingest", "--quiet", "--batch", "500", tmp.path + "/logs"]
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let again = try Run.pushlog(["--db", db, "ingest", "--quiet", tmp.path + "/logs"])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(try counts(db), expected, "after kill -9 at \(delay)s")
        }
    }
}
