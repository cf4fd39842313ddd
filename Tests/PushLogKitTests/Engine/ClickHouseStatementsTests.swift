import Foundation
import XCTest
@testable import PushLogKit

/// The ClickHouse statements of tokens, trace, metrics and rejects, without a server: every
/// section the commands run is in its file, every placeholder is declared, values reach the
/// server as the text it parses back to them. Their figures are compared with SQLite's by
/// scripts/clickhouse_cli_check.py (in .ci/run), output against output.
final class ClickHouseStatementsTests: XCTestCase {
    let client = ClickHouseClient(ClickHouseURL("http://127.0.0.1:9/eu")!)

    func testEachCommandHasTheSectionsItRuns() throws {
        let wanted: [String: [String]] = [
            "tokens": TokenCleanup.Kind.allCases.map(\.rawValue),
            "trace": [
                "apns_id", "device", "user", "tokens", "apns_prefix", "token_devices", "device_tokens", "apns_tokens", "user_devices",
                "user_tokens", "timeline",
            ],
            "metrics": ["responses", "pairs", "errors", "accepted_share", "rejected", "newest"],
            "rejects": ["match", "rejects", "count"],
        ]
        XCTAssertEqual(Set(wanted.keys), Set(ClickHouseQueries.commands.keys))
        for (command, sections) in wanted {
            let s = try ClickHouseStatements(client, command: command)
            XCTAssertEqual(Set(s.definition.sections.map(\.name)), Set(sections), command)
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
        XCTAssertEqual(ClickHouseStatements.escaped("a\\tb\tc\nd"), "a\\\\tb\\tc\\nd")
        XCTAssertEqual(ClickHouseStatements.escaped("plain…é"), "plain…é")
        XCTAssertEqual(ClickHouseStatements.array([]), "[]")
        XCTAssertEqual(ClickHouseStatements.array(["ab", "it's", "c\\d"]), "['ab','it\\'s','c\\\\d']")
    }

    func testTraceKeysAreReadAsSQLiteReadsThem() {
        XCTAssertEqual(ClickHouseTrace.apnsKey("7613216A-FB3D-457D-8B46-797EBAA45E74"), "7613216a-fb3d-457d-8b46-797ebaa45e74")
        XCTAssertEqual(ClickHouseTrace.apnsKey("Msg-ABC"), "Msg-ABC")
        XCTAssertEqual(ClickHouseTrace.hexPrefix("7613216A-fb"), "7613216afb")
        XCTAssertEqual(ClickHouseTrace.hexPrefix("msg-1"), "")
        XCTAssertEqual(ClickHouseTrace.hexPrefix(String(repeating: "a", count: 33)), "")
        XCTAssertEqual(Trace.tokenKey("ABCD1234…9F0E").prefix, "abcd1234")
        XCTAssertEqual(Trace.tokenKey("ABCD1234...9F0E").suffix, "9f0e")
        XCTAssertEqual(Trace.tokenKey("Tok_en").prefix, "Tok_en")
    }
}
