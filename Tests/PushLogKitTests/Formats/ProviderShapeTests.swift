import Foundation
import XCTest
@testable import PushLogKit

/// JSON shapes of other senders and providers: node-apn's whole result
/// object, Expo tickets and receipts, Braze Currents push events, Pinpoint push results.
final class ProviderShapeTests: XCTestCase {
    static let sendsSQL = """
        SELECT rfc3339(s.time_ms), s.kind, k.token, s.apns_id, s.status, s.reason, s.category, s.apns_ts, s.error, s.line
        FROM sends_v s LEFT JOIN tokens k ON k.id = s.token_id ORDER BY s.time_ms, s.id
        """

    func testNodeAPNWholeResultObject() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("node-apn-results.log"), Fixtures.path("node-apn-result.json")], db: db)
        XCTAssertEqual(s.files.map(\.format), ["ndjson", "json-document"])
        XCTAssertEqual(s.files.map(\.totalRecords), [3, 2])
        XCTAssertEqual(s.rejects, 1)  // the object with no time at all
        let r = try rows(Self.sendsSQL, db)
        XCTAssertEqual(
            r,
            [
                [
                    .text("2026-11-02T09:00:00Z"), .int(0), .text(Self.token(50)), .null, .int(200), .null, .text("accepted"), .null, .null,
                    .int(1),
                ],
                [
                    .text("2026-11-02T09:00:00Z"), .int(0), .text(Self.token(51)), .null, .int(410), .text("Unregistered"),
                    .text("token-gone"), .int(1793610000000), .null, .int(1),
                ],
                [
                    .text("2026-11-02T09:00:00Z"), .int(0), .text(Self.token(52)), .null, .null, .null, .text("transport"), .null,
                    .text("connection error (no detail logged)"), .int(1),
                ],
                [
                    .text("2026-11-02T09:05:00Z"), .int(0), .text(Self.token(54)), .null, .int(200), .null, .text("accepted"), .null, .null,
                    .int(1),
                ],
                [
                    .text("2026-11-02T09:05:00Z"), .int(0), .text(Self.token(55)), .null, .int(400), .text("BadDeviceToken"),
                    .text("token-bad"), .null, .null, .int(1),
                ],
            ])
        XCTAssertEqual(
            try rows("SELECT line, reason FROM rejects", db),
            [
                [
                    .int(2),
                    .text("node-apn result without a time (the body has none: log it after a timestamp prefix or with a \"time\" key)"),
                ]
            ])
        // Read again from a copy: every entry is its own record, none added twice.
        let copy = tmp.file("copy.log")
        try FileManager.default.copyItem(atPath: Fixtures.path("node-apn-results.log"), toPath: copy)
        let again = try ingest([copy], db: db)
        XCTAssertEqual(again.totalRecords, 0)
        XCTAssertEqual(again.duplicates, 4)  // three records and the rejected line, all seen before
        XCTAssertEqual(again.rejects, 0)
    }

    func testExpoTicketsAndReceipts() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("expo.log")], db: db)
        XCTAssertEqual(kinds(s), ["send": 1, "request": 1, "response": 3])
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(s.ignored, 1)  // the ok ticket that names no token
        let t1 = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxx01]", t2 = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxx02]"
        XCTAssertEqual(
            try rows(Self.sendsSQL, db),
            [
                [
                    .text("2026-11-02T10:00:00Z"), .int(0), .text(t1), .null, .int(410), .text("Unregistered"), .text("token-gone"), .null,
                    .null, .int(1),
                ],
                [.text("2026-11-02T10:00:01Z"), .int(1), .text(t2), .text("aaaa-0002"), .null, .null, .null, .null, .null, .int(2)],
                [
                    .text("2026-11-02T10:30:00Z"), .int(2), .null, .text("aaaa-0001"), .int(200), .null, .text("accepted"), .null, .null,
                    .int(3),
                ],
                // The receipt joins its ticket by id: it gets the ticket's token.
                [
                    .text("2026-11-02T10:30:00Z"), .int(2), .text(t2), .text("aaaa-0002"), .int(410), .text("Unregistered"),
                    .text("token-gone"), .null, .null, .int(3),
                ],
                [
                    .text("2026-11-02T10:30:00Z"), .int(2), .null, .text("aaaa-0003"), .int(429), .text("TooManyRequests"), .text("rate"),
                    .null, .null, .int(3),
                ],
            ])
        // Expo tokens are a form of their own, not malformed APNs tokens.
        XCTAssertEqual(try count("SELECT count(*) FROM tokens WHERE malformed = 1", db: db), 0)
        // DeviceNotRegistered counts as the token gone: 2 of 4 responses, both tokens.
        let c = try Store.openForReading(path: db)
        let gone = OutputFormat.json.render(try ReportRunner(db: c).run(name: "gone", params: ReportParams()))
        XCTAssertTrue(gone.contains("\"summary\":[{\"responses\":4,\"gone\":2,\"gone_rate\":0.5,\"tokens_gone\":2,"), gone)
    }

    func testBrazeCurrentsPushEvents() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("braze-currents.ndjson")], db: db)
        XCTAssertEqual(s.files[0].format, "ndjson")
        XCTAssertEqual(kinds(s), ["send": 1, "request": 1, "register": 1, "unregister": 1])
        XCTAssertEqual(s.skipped, 1)  // the android bounce
        XCTAssertEqual(s.ignored, 1)  // a send that names no push token
        XCTAssertEqual(s.rejects, 0)
        let tok = Self.token(60)
        XCTAssertEqual(
            try rows("SELECT rfc3339(r.time_ms), k.token, r.device, r.user FROM registers_v r JOIN tokens k ON k.id = r.token_id", db),
            [[.text("2026-11-02T10:00:00Z"), .text(tok), .text("dev-7"), .text("user-7")]])
        XCTAssertEqual(
            try rows("SELECT rfc3339(u.time_ms), k.token, u.device FROM unregisters_v u JOIN tokens k ON k.id = u.token_id", db),
            [[.text("2026-11-02T10:05:00Z"), .text(tok), .text("dev-7")]])
        XCTAssertEqual(
            try rows(Self.sendsSQL, db),
            [
                [.text("2026-11-02T10:01:40Z"), .int(1), .text(tok), .text("d-1"), .null, .null, .null, .null, .null, .int(2)],
                [
                    .text("2026-11-02T10:03:20Z"), .int(0), .text(tok), .null, .int(410), .text("Unregistered"), .text("token-gone"), .null,
                    .null, .int(3),
                ],
            ])
    }

    func testPinpointPushResults() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("pinpoint.ndjson")], db: db)
        XCTAssertEqual(kinds(s), ["send": 4])
        XCTAssertEqual(s.skipped, 1)  // GCM
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(
            try rows("SELECT rfc3339(time_ms), env, apns_id, status, reason, category, error FROM sends_v ORDER BY time_ms", db),
            [
                [.text("2026-11-02T11:00:00Z"), .text("production"), .text("m-1"), .int(200), .null, .text("accepted"), .null],
                [
                    .text("2026-11-02T11:01:00Z"), .text("sandbox"), .text("m-2"), .int(400), .text("BadDeviceToken"), .text("token-bad"),
                    .null,
                ],
                [
                    .text("2026-11-02T11:02:00Z"), .text("production"), .text("m-3"), .int(410), .text("Unregistered"), .text("token-gone"),
                    .null,
                ],
                [.text("2026-11-02T11:04:00Z"), .text("production"), .null, .null, .null, .text("transport"), .text("TEMPORARY_FAILURE")],
            ])
    }

    func testCanonicalLinesAreNotReadAsAnotherShape() throws {
        // A canonical record that merely has a `data` or `failed` key stays canonical.
        let tmp = TempDir(), db = tmp.file("p.db")
        let p = tmp.write(
            "c.ndjson",
            "{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200,\"data\":[1],\"failed\":[]}\n")
        let s = try ingest([p], db: db)
        XCTAssertEqual(kinds(s), ["send": 1])
        XCTAssertEqual(try rows("SELECT status FROM sends_v", db), [[.int(200)]])
    }
}
