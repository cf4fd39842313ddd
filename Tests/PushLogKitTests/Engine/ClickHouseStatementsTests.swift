import Foundation
import XCTest
@testable import PushLogKit

/// The statements of tokens, trace, metrics and the listings, without a server: each engine has
/// the same statements, every ClickHouse placeholder is declared, values reach the server as the
/// text it parses back to them. The commands' output on both engines is compared by
/// CommandParityTests.
final class ClickHouseStatementsTests: XCTestCase {
    let client = ClickHouseClient(ClickHouseURL("http://127.0.0.1:9/eu")!)

    func testEachCommandHasTheSectionsItRuns() throws {
        let wanted: [String: [String]] = [
            "tokens": TokenCleanup.Kind.allCases.map(\.rawValue),
            "trace": [
                "apns_id", "device", "user", "tokens", "apns_prefix", "token_devices", "device_tokens", "apns_tokens", "user_devices",
                "user_tokens", "timeline",
            ],
            "metrics": ["responses", "pairs", "errors", "rejected", "newest"],
            "listings": ["sources", "match", "rejects", "count", "counted_only"],
        ]
        // Only on ClickHouse: what SQLite has in Swift (its tables' docs and mask).
        let clickhouseOnly: [String: Set<String>] = ["listings": ["irregular_tokens", "tables", "columns"]]
        for command in wanted.keys { XCTAssertNotNil(ClickHouseQueries.commands(command), command) }
        XCTAssertEqual(Set(wanted.keys), Set(SQLiteCommandQueries.statements.keys))
        for (command, sections) in wanted {
            let s = try ClickHouseStatements(client, command: command)
            XCTAssertEqual(Set(s.definition.sections.map(\.name)), Set(sections).union(clickhouseOnly[command] ?? []), command)
            XCTAssertEqual(Set(SQLiteCommandQueries.statements[command]!.keys), Set(sections), command)
            for (name, sql) in s.definition.sections {
                // Qualified with the URL's database; placeholders declared in the header.
                XCTAssertFalse(sql.contains("pushlog."), "\(command).\(name)")
                for p in ClickHouseEngine.placeholders(sql).keys {
                    XCTAssertTrue(s.definition.paramNames.contains(p), "\(command).\(name): {\(p)} is not a -- param:")
                }
            }
        }
        XCTAssertThrowsError(try ClickHouseStatements(client, command: "report"))
    }

    /// The server reads a parameter's text escaped as in TSV, and an array's strings quoted.
    func testValuesAreEscapedAsTheServerReadsThem() {
        XCTAssertEqual(ClickHouseClient.parameter("a\\tb\tc\nd"), "a\\\\tb\\tc\\nd")
        XCTAssertEqual(ClickHouseClient.parameter("plain…é"), "plain…é")
        XCTAssertEqual(ClickHouseStatements.array([]), "[]")
        XCTAssertEqual(ClickHouseStatements.array(["ab", "it's", "c\\d"]), "['ab','it\\'s','c\\\\d']")
    }

    func testTraceKeysAreReadAsSQLiteReadsThem() {
        XCTAssertEqual(Trace.apnsKey("7613216A-FB3D-457D-8B46-797EBAA45E74"), "7613216a-fb3d-457d-8b46-797ebaa45e74")
        XCTAssertEqual(Trace.apnsKey("Msg-ABC"), "Msg-ABC")
        XCTAssertEqual(Trace.hexPrefix("7613216A-fb"), "7613216afb")
        XCTAssertEqual(Trace.hexPrefix("msg-1"), "")
        XCTAssertEqual(Trace.hexPrefix(String(repeating: "a", count: 33)), "")
        XCTAssertEqual(Trace.tokenKey("ABCD1234…9F0E").prefix, "abcd1234")
        XCTAssertEqual(Trace.tokenKey("ABCD1234...9F0E").suffix, "9f0e")
        XCTAssertEqual(Trace.tokenKey("Tok_en").prefix, "Tok_en")
    }
}
