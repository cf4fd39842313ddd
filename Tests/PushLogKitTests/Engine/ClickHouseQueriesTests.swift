import Foundation
import XCTest
@testable import PushLogKit

/// Queries/clickhouse keeps pace with Queries: the same header format, the same sections in the
/// same order and the same parameter names, one statement per section. The figures themselves
/// are compared by scripts/clickhouse-check.sh (run by .ci/run); this test needs no ClickHouse,
/// so a report changed here without its ClickHouse twin fails `swift test` at once.
final class ClickHouseQueriesTests: XCTestCase {
    /// The built-in reports with a ClickHouse version (the others run their one text there).
    static let reports = ClickHouseQueries.reports.keys.sorted()
    func clickhouse(_ name: String) throws -> ReportDefinition {
        let path = Fixtures.root.appendingPathComponent("Queries/clickhouse/\(name).sql").path
        return try ReportDefinition.parse(name: name, text: try String(contentsOfFile: path, encoding: .utf8), origin: path)
    }

    func testSameSectionsInTheSameOrder() throws {
        let catalog = try QueryCatalog()
        for name in Self.reports {
            let def = try XCTUnwrap(catalog.report(name))
            // Every section of the report (by_bucket of env-mismatch and silent: with --by only); of
            // a KPI page, its own sections, which the page composes with its reports' on both engines.
            XCTAssertEqual(try clickhouse(name).sections.map(\.name), def.sections.map(\.name), "Queries/clickhouse/\(name).sql")
        }
    }

    func testSameParameterNamesAndHeaders() throws {
        let catalog = try QueryCatalog()
        for name in Self.reports {
            let def = try XCTUnwrap(catalog.report(name)), ch = try clickhouse(name)
            XCTAssertEqual(ch.title, def.title, name)
            XCTAssertFalse(ch.description.isEmpty, name)
            if def.isKPIPage {
                // A page's own sections run on one week at a time: its bounds, not its name.
                XCTAssertTrue(Set(ch.paramNames).isSubset(of: Set(def.paramNames).union(["since", "until"])), name)
                XCTAssertFalse(ch.paramNames.contains("week"), name)
            } else {
                XCTAssertEqual(ch.paramNames, def.paramNames, name)
            }
            // Every --by value, time unit or dimension, in the same order.
            XCTAssertEqual(ch.byValues, def.byValues, name)
            for key in ch.paramNames {
                let type = key == "budget" ? "UInt32" : ["since", "until"].contains(key) ? "DateTime64(3)" : "String"
                for (section, sql) in ch.sections where sql.contains("{\(key):") {
                    XCTAssertTrue(sql.contains("{\(key):\(type)}"), "\(name).\(section): {\(key):\(type)}")
                }
            }
        }
    }

    func testOneStatementPerSection() throws {
        for name in Self.reports {
            for (section, sql) in try clickhouse(name).sections {
                let code = sql.split(separator: "\n").map {
                    $0.split(separator: "--", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                }
                .joined(separator: "\n")
                // A ';' inside a string literal (hygiene's advice) separates nothing.
                let outsideStrings = code.split(separator: "'", omittingEmptySubsequences: false).enumerated()
                    .filter { $0.offset % 2 == 0 }.map(\.element).joined()
                XCTAssertFalse(outsideStrings.contains(";"), "\(name).\(section) holds more than one statement")
                XCTAssertTrue(sql.contains("SELECT"), "\(name).\(section)")
            }
        }
    }
}
