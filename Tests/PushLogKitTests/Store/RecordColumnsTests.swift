import Foundation
import XCTest
@testable import PushLogKit

/// The writer's column lists (one declaration per table) and per-kind counts.
final class RecordColumnsTests: XCTestCase {
    /// The generated names, in parameter order, are the columns the writer always filled.
    func testColumnNamesInParameterOrder() {
        let identity = ["time_ms", "line_hash", "source_id", "line"]
        XCTAssertEqual(
            SendColumn.names,
            identity + [
                "kind", "token_id", "apns_id", "env_id", "topic_id", "push_type_id", "priority",
                "collapse_id", "expiration", "payload_bytes", "content_available", "mutable_content", "has_alert", "has_sound",
                "has_badge", "aps_category", "thread_id", "interruption_level", "relevance", "custom_keys", "status", "reason_id",
                "category_id", "apns_ts", "apns_unique_id", "latency_ms", "attempt", "error",
            ])
        XCTAssertEqual(
            RegisterColumn.names,
            identity + [
                "token_id", "device_id", "user_id", "env_id", "app_version_id", "os_version_id",
                "auth_id", "topic_id",
            ])
        XCTAssertEqual(
            SettingsColumn.names,
            identity + [
                "device_id", "user_id", "auth_id", "alert_setting_id", "sound_setting_id",
                "badge_setting_id", "lock_screen_id", "notification_center_id",
            ])
        XCTAssertEqual(ReceiptColumn.names, identity + ["apns_id", "device_id", "token_id", "receipt_id", "result_id"])
        XCTAssertEqual(UnregisterColumn.names, identity + ["token_id", "device_id", "user_id"])
        // A case's raw value is its position among the names (1-based).
        XCTAssertEqual(SendColumn.names[Int(SendColumn.error.rawValue) - 1], "error")
        XCTAssertEqual(SettingsColumn.names[Int(SettingsColumn.notificationCenterID.rawValue) - 1], "notification_center_id")
    }

    /// Every generated column exists in its table of a fresh database.
    func testColumnsExistInTheSchema() throws {
        let tmp = TempDir()
        let db = try Store.openForWriting(path: tmp.file("c.db"))
        func columns(_ table: String) throws -> Set<String> {
            let s = try db.prepare("SELECT name FROM pragma_table_info('\(table)')")
            var out = Set<String>()
            while try s.step() { out.insert(s.string(0)!) }
            return out
        }
        XCTAssertTrue(Set(SendColumn.names).isSubset(of: try columns(SendColumn.table)))
        XCTAssertTrue(Set(RegisterColumn.names).isSubset(of: try columns(RegisterColumn.table)))
        XCTAssertTrue(Set(SettingsColumn.names).isSubset(of: try columns(SettingsColumn.table)))
        XCTAssertTrue(Set(ReceiptColumn.names).isSubset(of: try columns(ReceiptColumn.table)))
        XCTAssertTrue(Set(UnregisterColumn.names).isSubset(of: try columns(UnregisterColumn.table)))
    }

    func testKindCountsAddAndTotal() {
        var a = KindCounts()
        a[.send] = 3
        a[.receipt] = 1
        var b = KindCounts()
        b[.send] = 2
        b[.unregister] = 4
        a += b
        XCTAssertEqual(a[.send], 5)
        XCTAssertEqual(a[.receipt], 1)
        XCTAssertEqual(a[.unregister], 4)
        XCTAssertEqual(a[.register], 0)
        XCTAssertEqual(a.total, 10)
    }
}
