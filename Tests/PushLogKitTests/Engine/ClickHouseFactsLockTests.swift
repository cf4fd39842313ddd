import Foundation
import XCTest
@testable import PushLogKit

/// The lock on a ClickHouse database's kept facts, on chDB behind its HTTP front: a holder killed
/// on this host is taken over at once, a live one is waited for, and a lock left by a version
/// that did not name its holder is neither misread nor taken early.
final class ClickHouseFactsLockTests: XCTestCase {
    func testAKilledHolderOnThisHostIsTakenOverAtOnceALiveOneIsWaitedFor() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let client = ClickHouseClient(try XCTUnwrap(ClickHouseURL(server.url("locks"))))
        _ = try client.execute("CREATE DATABASE IF NOT EXISTS locks", inDatabase: false)
        func lock(pid: Int32) throws {
            _ = try client.execute(
                "CREATE TABLE locks.kept_lock ENGINE = Memory AS SELECT 'other' AS run, now() AS beat, {host:String} AS host, {pid:Int64} AS pid",
                params: ["host": ClickHouseFactsLock.host, "pid": "\(pid)"])
        }
        func exists() throws -> Bool {
            if case .int(1) = try client.table("t", sql: "EXISTS TABLE locks.kept_lock").rows.first?.first { return true }
            return false
        }

        // A holder killed with its lock fresh: its process is gone, so the lock is taken now, not
        // after the minute a stale lock waits for.
        let killed = Process()
        killed.executableURL = URL(fileURLWithPath: "/bin/sleep")
        killed.arguments = ["30"]
        try killed.run()
        try lock(pid: killed.processIdentifier)
        killed.terminate()
        killed.waitUntilExit()
        var waited = false
        let started = Date()
        try ClickHouseFactsLock.holding(client, waiting: { waited = true }) { _ in XCTAssertTrue(try exists()) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertFalse(waited, "a gone holder is not waited for")
        XCTAssertFalse(try exists(), "released at the end")

        // A live holder: waited for until it lets go.
        let live = Process()
        live.executableURL = URL(fileURLWithPath: "/bin/sleep")
        live.arguments = ["30"]
        try live.run()
        defer { live.terminate() }
        try lock(pid: live.processIdentifier)
        XCTAssertFalse(try ClickHouseFactsLock.holderIsGone(client))
        let released = Date().addingTimeInterval(1.5)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) { _ = try? client.execute("DROP TABLE locks.kept_lock") }
        var entered: Date?
        try ClickHouseFactsLock.holding(client, waiting: { waited = true }) { _ in entered = Date() }
        XCTAssertTrue(waited)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(entered).timeIntervalSince(released), -0.1, "entered only once released")

        // A lock of a version that named no holder (run, beat): not gone, and read without an error.
        _ = try client.execute("CREATE TABLE locks.kept_lock ENGINE = Memory AS SELECT 'old' AS run, now() AS beat")
        XCTAssertFalse(try ClickHouseFactsLock.holderIsGone(client))
        XCTAssertFalse(try ClickHouseFactsLock.isStale(client))
    }
}
