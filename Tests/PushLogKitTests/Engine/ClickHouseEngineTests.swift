import Foundation
import XCTest
@testable import PushLogKit

/// The ClickHouse engine's pieces that need no server: reading its answers, its URL, binding
/// parameters, and the queries built into the binary. The engine itself is run against chDB by
/// scripts/clickhouse_cli_check.py (in .ci/run), figure by figure against the SQLite engine.
final class ClickHouseEngineTests: XCTestCase {
    func testTSVWithNamesAndTypesIsReadByType() throws {
        let body =
            [
                "n\trate\tname\tv\tmaybe",
                "UInt64\tNullable(Float64)\tLowCardinality(Nullable(String))\tVariant(Float64, UInt64)\tNullable(Int64)",
                "3\t1\ta\\tb\\\\c\\nd\t0.25\t\\N",
                "0\t\\N\t\\N\tnot observable\t-7",
            ].joined(separator: "\n") + "\n"
        let t = try ClickHouseTSV.table("s", Data(body.utf8))
        XCTAssertEqual(t.columns, ["n", "rate", "name", "v", "maybe"])
        XCTAssertEqual(t.rows[0], [.int(3), .double(1), .text("a\tb\\c\nd"), .double(0.25), .null])
        XCTAssertEqual(t.rows[1], [.int(0), .null, .null, .text("not observable"), .int(-7)])
        XCTAssertEqual(try ClickHouseTSV.table("e", Data()).rows.count, 0)
        XCTAssertThrowsError(try ClickHouseTSV.table("bad", Data("a\tb\nInt64\tInt64\n1\n".utf8)))
    }

    func testURLKeepsCredentialsOutOfMessages() throws {
        let u = try XCTUnwrap(ClickHouseURL("http://ops:p%40ss%20word@ch.example:8123/pushlog_eu"))
        XCTAssertEqual(u.user, "ops")
        XCTAssertEqual(u.password, "p@ss word")
        XCTAssertEqual(u.database, "pushlog_eu")
        XCTAssertEqual(u.endpoint.absoluteString, "http://ch.example:8123/")
        XCTAssertFalse(u.description.contains("ss"), u.description)
        XCTAssertEqual(ClickHouseURL("https://ch.example")?.database, "pushlog")
        XCTAssertNil(ClickHouseURL("ch.example:8123"))
        XCTAssertNil(ClickHouseURL("http://ch.example:8123/db;DROP"))
    }

    func testParametersAreBoundByPlaceholderType() {
        let sql = "SELECT 1 WHERE t >= pushlog_ms({since:DateTime64(3)}) AND ({topic:String} = '' OR x = {topic:String}) LIMIT {n:UInt32}"
        XCTAssertEqual(ClickHouseEngine.placeholders(sql), ["since": "DateTime64(3)", "topic": "String", "n": "UInt32"])
        XCTAssertEqual(ClickHouseEngine.text(.int(1_762_092_000_120), as: "DateTime64(3)"), "2025-11-02 14:00:00.120")
        XCTAssertEqual(ClickHouseEngine.text(.int(-9_000_000_000_000_000), as: "DateTime64(3)"), "1900-01-01 00:00:00.000")
        XCTAssertEqual(ClickHouseEngine.text(.int(9_000_000_000_000_000), as: "DateTime64(3)"), "2299-12-31 23:59:59.999")
        XCTAssertEqual(ClickHouseEngine.text(.int(-1), as: "DateTime64(3)"), "1969-12-31 23:59:59.999")
        XCTAssertEqual(ClickHouseEngine.text(.null, as: "String"), "")
        // A string parameter is read escaped, as TSV: a topic with a backslash must arrive whole.
        XCTAssertEqual(ClickHouseEngine.text(.text("com.a\\b\tc"), as: "String"), "com.a\\\\b\\tc")
        XCTAssertEqual(ClickHouseEngine.text(.null, as: "Nullable(Int64)"), "\\N")
        XCTAssertEqual(ClickHouseEngine.text(.text("it's"), as: "String"), "it's")
    }

    func testBuiltInQueriesAreTheFilesOfQueriesClickhouse() throws {
        let dir = Fixtures.root.appendingPathComponent("Queries/clickhouse").path
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".sql") }
        // Every file is compiled in as it is; those named as a built-in report are its versions.
        XCTAssertEqual(Set(files.map { String($0.dropLast(4)) }), Set(ClickHouseSQL.files.keys))
        for f in files {
            XCTAssertEqual(ClickHouseSQL.files[String(f.dropLast(4))], try String(contentsOfFile: dir + "/" + f, encoding: .utf8), f)
        }
        let names = Set(files.map { String($0.dropLast(4)) })
        XCTAssertEqual(Set(ClickHouseQueries.reports.keys), names.intersection(BuiltInQueries.files.keys))
        XCTAssertNotNil(ClickHouseQueries.reports["gone"])
        XCTAssertNil(ClickHouseQueries.reports["schema"])
        let statements = ClickHouseQueries.schemaStatements(database: "pushlog")
        XCTAssertTrue(statements.contains { $0.hasPrefix("CREATE TABLE IF NOT EXISTS pushlog.records") })
        XCTAssertTrue(statements.contains { $0.hasPrefix("CREATE TABLE IF NOT EXISTS pushlog.sources") })
        XCTAssertTrue(statements.contains { $0.hasPrefix("CREATE OR REPLACE VIEW pushlog.responses_v") })
        XCTAssertFalse(statements.contains { $0.contains("--") || $0.hasSuffix(";") })
        let other = ClickHouseQueries.schemaStatements(database: "eu")
        XCTAssertEqual(other.first, "CREATE DATABASE IF NOT EXISTS `eu`")
        XCTAssertFalse(other.contains { $0.contains("pushlog.") })
    }

    /// The facts rebuild replaces each kept table atomically, ends with kept_state (what marks the
    /// facts complete), and every table a report reads is one it builds.
    func testFactsRebuildEndsWithItsStateAndCoversWhatReportsRead() throws {
        let statements = ClickHouseQueries.factsStatements(database: "eu")
        XCTAssertTrue(statements.allSatisfy { $0.hasPrefix("CREATE OR REPLACE ") && !$0.contains("pushlog.") })
        XCTAssertTrue(try XCTUnwrap(statements.last).hasPrefix("CREATE OR REPLACE TABLE `eu`.kept_state "))
        XCTAssertTrue(try XCTUnwrap(statements.first).hasPrefix("CREATE OR REPLACE TABLE `eu`.kept_pending "))
        let built = Set(statements.compactMap { $0.split(separator: " ").dropFirst(4).first.map { String($0.dropFirst(5)) } })
        for (name, bytes) in ClickHouseQueries.reports {
            let sql = String(decoding: bytes, as: UTF8.self)
            var rest = Substring(sql)
            while let r = rest.range(of: "pushlog.") {
                let table = rest[r.upperBound...].prefix { $0.isLetter || $0 == "_" }
                // Besides the kept facts, only what ingest writes directly (sources, Apple's metrics).
                XCTAssertTrue(
                    table.hasPrefix("kept_") ? built.contains(String(table)) : ["sources", "apple_metrics"].contains(table),
                    "\(name): pushlog.\(table)")
                rest = rest[r.upperBound...]
            }
        }
    }
}
