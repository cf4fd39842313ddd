import Foundation
import XCTest
@testable import PushLogKit

/// The incremental refresh of derived facts gives exactly the tables a full rebuild gives.
final class DerivedTests: XCTestCase {
    func dump(_ db: String) throws -> [String: [[SQLValue]]] {
        let c = try Store.openForReading(path: db)
        var out: [String: [[SQLValue]]] = [:]
        for (table, order) in [("token_facts", "token_id"), ("token_runs", "device, start"), ("device_facts", "dkey"),
                               ("token_stale", "token_id, from_t")] {
            let s = try c.prepare("SELECT * FROM \(table) ORDER BY \(order)")
            var rows: [[SQLValue]] = []
            while try s.step() { rows.append((0..<s.columnCount).map { s.value($0) }) }
            out[table] = rows
        }
        return out
    }

    func testIncrementalRefreshEqualsFullRebuild() throws {
        let tmp = TempDir()
        var o = DemoOptions()
        o.devices = 400
        o.weeks = 3
        o.gzipLevel = 1
        let result = try DemoGenerator(o).write(to: tmp.path + "/logs")
        // Day by day, as a provider would ingest them: every run after the first is incremental.
        let files = result.files.sorted { ($0 as NSString).lastPathComponent.split(separator: "-").suffix(3).joined() < ($1 as NSString).lastPathComponent.split(separator: "-").suffix(3).joined() }
        let incremental = tmp.file("inc.db")
        for chunk in stride(from: 0, to: files.count, by: 6) {
            let s = try ingest(Array(files[chunk..<min(chunk + 6, files.count)]), db: incremental)
            XCTAssertFalse(s.failed)
        }
        // The reports' own fixture on top, with its rotations, 410s and user-only quirks.
        _ = try ingest([Fixtures.path("reports.ndjson")], db: incremental)
        let full = tmp.file("full.db")
        let db = try Store.openForWriting(path: full)
        var opts = IngestOptions()
        opts.fullRefresh = true
        _ = try Ingester(db: db, options: opts).run(paths: files + [Fixtures.path("reports.ndjson")])
        let a = try dump(incremental), b = try dump(full)
        for table in b.keys.sorted() {
            XCTAssertEqual(a[table]?.count, b[table]?.count, table)
            XCTAssertTrue(a[table]! == b[table]!, "\(table) differs between incremental and full refresh")
        }
        XCTAssertGreaterThan(b["token_runs"]!.count, 100)
    }
}
