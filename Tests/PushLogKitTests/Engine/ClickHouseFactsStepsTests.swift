import Foundation
import XCTest
@testable import PushLogKit

/// The kept facts are rebuilt a few statements at once: each statement must wait for what it
/// reads, or a table would be built from the one it replaces.
final class ClickHouseFactsStepsTests: XCTestCase {
    func testEachStepWaitsForWhatItReads() throws {
        let steps = ClickHouseQueries.factsSteps(database: "eu")
        let index = Dictionary(uniqueKeysWithValues: steps.enumerated().map { ($1.name, $0) })
        XCTAssertEqual(steps.count, Set(steps.map(\.name)).count, "each name is created once")
        XCTAssertEqual(steps.first?.name, "kept_pending")
        XCTAssertNil(index["kept_state"], "stored by the caller, after all the rest")
        let functions = steps.indices.filter { steps[$0].sql.hasPrefix("CREATE OR REPLACE FUNCTION") }
        for (i, step) in steps.enumerated() {
            XCTAssertTrue(step.after.allSatisfy { $0 < i }, step.name)
            if i > 0 { XCTAssertTrue(step.after.contains(0), "\(step.name) waits for kept_pending") }
            let functionsBefore = functions.filter { $0 < i }
            XCTAssertTrue(functionsBefore.allSatisfy(step.after.contains), "\(step.name) waits for earlier functions")
            XCTAssertFalse(step.sql.contains("pushlog."), step.name)
        }
        func waits(_ a: String, for b: String) throws -> Bool {
            try steps[XCTUnwrap(index[a])].after.contains(XCTUnwrap(index[b]))
        }
        XCTAssertTrue(try waits("kept_sends", for: "kept_token_facts"))
        XCTAssertTrue(try waits("kept_responses", for: "kept_sends"))
        XCTAssertTrue(try waits("kept_retries", for: "kept_retry_links"))
        XCTAssertTrue(try waits("kept_hygiene_rules", for: "kept_hygiene_violation_hours"))
        XCTAssertFalse(try waits("kept_registers", for: "kept_sends"), "independent steps run at once")
        // A step must not read a name that a later step creates (it would run before, or beside, it).
        for (i, step) in steps.enumerated() {
            let words = Set(step.sql.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
            for (j, later) in steps.enumerated() where j > i {
                XCTAssertFalse(words.contains(later.name), "\(step.name) mentions \(later.name), created after it")
            }
        }
    }

    /// A table kept per key comes up to date as a copy without the touched keys' rows, those rows
    /// computed by the table's own SELECT with its filters in force, swapped in; every filter of
    /// facts.sql belongs to such a table, and names the run's own touched sets.
    func testKeptTablesComeUpToDateByTheirKeys() throws {
        let steps = ClickHouseQueries.factsSteps(database: "eu")
        let kept = steps.filter { $0.kept != nil }
        XCTAssertEqual(
            Set(kept.map(\.name)),
            [
                "kept_token_facts", "kept_sends", "kept_errors", "kept_registers", "kept_retry_links", "kept_rate_retries",
                "kept_background_pushes", "kept_gone", "kept_observations", "kept_token_runs", "kept_token_stale",
                "kept_superseded", "kept_device_facts", "kept_unit_facts", "kept_irregular_tokens",
            ])
        for step in steps where step.kept == nil {
            XCTAssertFalse(step.sql.contains("/*+"), "\(step.name) filters to touched keys but is rebuilt whole")
            XCTAssertNil(step.keyByKey(database: "eu", run: "r1"), step.name)
        }
        for step in kept {
            let (key, column) = try XCTUnwrap(step.kept)
            XCTAssertTrue(["token", "dkey", "unit"].contains(key), step.name)
            XCTAssertTrue(step.sql.contains("/*+"), "\(step.name) computes every key again")
            let sql = try XCTUnwrap(step.keyByKey(database: "eu", run: "r1"), step.name)
            XCTAssertEqual(sql.count, 5, step.name)
            XCTAssertEqual(sql[0], "CREATE TABLE `eu`.`\(step.name)_next_r1` CLONE AS `eu`.`\(step.name)`")
            XCTAssertEqual(
                sql[1],
                "DELETE FROM `eu`.`\(step.name)_next_r1` WHERE \(column) IN `eu`.kept_touched_r1_\(key) SETTINGS lightweight_deletes_sync = 2"
            )
            XCTAssertTrue(
                sql[2].hasPrefix("INSERT INTO `eu`.`\(step.name)_next_r1` SELECT ")
                    || sql[2].hasPrefix("INSERT INTO `eu`.`\(step.name)_next_r1` WITH "), step.name)
            XCTAssertFalse(sql[2].contains("/*+"), step.name)
            XCTAssertFalse(sql[2].contains("kept_touched_token") || sql[2].contains("kept_touched_dkey"), step.name)
            XCTAssertTrue(sql[2].contains("kept_touched_r1_"), step.name)
            XCTAssertEqual(sql[3], "EXCHANGE TABLES `eu`.`\(step.name)` AND `eu`.`\(step.name)_next_r1`")
        }
        let touched = ClickHouseQueries.touchedStatements(database: "eu", run: "r1")
        let created = touched.compactMap { $0.firstMatch(of: /^CREATE OR REPLACE TABLE `eu`\.(\w+)/).map { String($0.1) } }
        XCTAssertEqual(created, ClickHouseQueries.touchedTables(database: "eu", run: "r1"), "the tables a run drops after")
    }

    /// An older server refuses a table setting it does not know: the schema's records table is
    /// created without the newer ones, and keeps the others.
    func testAnOlderServerGetsTheTableWithoutNewerSettings() throws {
        let records = try XCTUnwrap(
            ClickHouseQueries.schemaStatements(database: "eu").first { $0.hasPrefix("CREATE TABLE IF NOT EXISTS `eu`.records") })
        XCTAssertTrue(records.contains("merge_selector_base"))
        let older = ClickHouseQueries.withoutNewerSettings(records)
        XCTAssertFalse(older.contains("merge_selector_base"))
        XCTAssertTrue(older.hasSuffix("SETTINGS non_replicated_deduplication_window = 10000"), String(older.suffix(80)))
    }

    func testStepsRunAfterTheirWaitsAndStopAtAnError() throws {
        let steps = (0..<12).map { (i: Int) -> ClickHouseQueries.FactsStep in
            var after: [Int] = i == 0 ? [] : [0]
            if i % 3 == 0 && i > 0 { after += [i - 1, i - 2] }
            return ClickHouseQueries.FactsStep(name: "s\(i)", sql: "", after: after)
        }
        let log = Log()
        try ClickHouseFacts.run(steps, width: 3) { step in
            let i = Int(step.name.dropFirst())!
            log.add(.start(i))
            Thread.sleep(forTimeInterval: 0.002)
            log.add(.end(i))
        }
        let events = log.events
        func at(_ e: Log.Event) -> Int { events.firstIndex(of: e)! }
        for (i, step) in steps.enumerated() {
            for w in step.after { XCTAssertLessThan(at(.end(w)), at(.start(i)), "s\(i) after s\(w)") }
        }
        XCTAssertEqual(events.count, 24)

        // s1 fails while s0 runs: s0 ends, and neither s2 (after s1) nor s3 (after s0) starts.
        struct Failed: Error {}
        let failing = [[], [], [1], [0]].enumerated().map { ClickHouseQueries.FactsStep(name: "s\($0)", sql: "", after: $1) }
        let tried = Log()
        XCTAssertThrowsError(
            try ClickHouseFacts.run(failing, width: 2) { step in
                let i = Int(step.name.dropFirst())!
                tried.add(.start(i))
                if i == 1 { throw Failed() }
                // s0 ends well after s1 has failed.
                for _ in 0..<500 where !tried.events.contains(.start(1)) { Thread.sleep(forTimeInterval: 0.01) }
                Thread.sleep(forTimeInterval: 0.1)
                tried.add(.end(i))
            }
        ) { XCTAssertTrue($0 is Failed) }
        XCTAssertEqual(Set(tried.events), [.start(0), .start(1), .end(0)], "nothing starts after a failed step")
    }

    private final class Log: @unchecked Sendable {
        enum Event: Hashable {
            case start(Int)
            case end(Int)
        }
        private let lock = NSLock()
        private var list: [Event] = []
        func add(_ e: Event) { lock.withLock { list.append(e) } }
        var events: [Event] { lock.withLock { list } }
    }
}
