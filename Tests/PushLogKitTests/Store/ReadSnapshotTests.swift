import Foundation
import XCTest
@testable import PushLogKit

/// A report's two lanes (`readSnapshot(lanes: true)`) read one committed state while a writer
/// commits, with no lock file involved: the sections of one run always agree.
final class ReadSnapshotTests: XCTestCase {
    /// gone's summary sums its by_bucket rows; the two sections run on different lanes.
    private func sectionsAgree(_ doc: ResultDocument, _ file: StaticString = #filePath, _ line: UInt = #line) {
        guard let summary = doc.section("summary"), let buckets = doc.section("by_bucket") else {
            return XCTFail("gone has no summary or by_bucket", file: file, line: line)
        }
        for column in ["responses", "gone"] {
            let i = buckets.columns.firstIndex(of: column)!
            let sum = buckets.rows.map { $0[i].asDouble ?? 0 }.reduce(0, +)
            XCTAssertEqual(summary.first(column)?.asDouble, sum, column, file: file, line: line)
        }
    }

    private func demoDatabase(_ tmp: TempDir) throws -> (db: String, files: [String]) {
        let result = try DemoGenerator(smallDemo(devices: 150, weeks: 2)).write(to: tmp.path + "/logs")
        return (tmp.file("demo.db"), result.files.sorted())
    }

    /// A commit that falls between the starts of the two snapshots: the second lane is begun
    /// again until none falls, or the report runs on one lane. Either way its sections agree.
    func testACommitBetweenTheTwoSnapshotsIsNeverMixedIn() throws {
        let tmp = TempDir()
        let (path, files) = try demoDatabase(tmp)
        _ = try ingest(files, db: path)
        let writer = try Store.openForWriting(path: path)
        let reader = try Store.openForReading(path: path)
        let runner = try ReportRunner(db: reader)
        var commits = 0
        func gone(commitsBetween: Int) throws -> (lanes: Bool, doc: ResultDocument) {
            commits = 0
            reader.betweenSnapshots = {
                guard commits < commitsBetween else { return }
                commits += 1
                try? writer.exec(
                    "UPDATE hourly_responses SET responses = responses + 1, gone = gone + 1 WHERE hour = (SELECT min(hour) FROM hourly_responses)"
                )
            }
            defer { reader.betweenSnapshots = nil }
            return try reader.readSnapshot(lanes: true) { () throws -> (Bool, ResultDocument) in
                let other = try runner.companion()
                if let other {  // the same figures on each lane's own connection
                    let def = try XCTUnwrap(runner.catalog.report("gone"))
                    XCTAssertEqual(
                        JSONRenderer.render(try other.run(def, params: ReportParams())),
                        JSONRenderer.render(try runner.run(def, params: ReportParams())))
                }
                return (other != nil, try runner.run(name: "gone", params: ReportParams(by: "day")))
            }
        }
        let before = try gone(commitsBetween: 0)
        XCTAssertTrue(before.lanes)
        sectionsAgree(before.doc)
        // Three commits fall between, then none: two lanes, on the state after the third.
        let retried = try gone(commitsBetween: 3)
        XCTAssertEqual(commits, 3)
        XCTAssertTrue(retried.lanes)
        sectionsAgree(retried.doc)
        let responses = { (d: ResultDocument) in d.section("summary")?.first("responses")?.asDouble ?? 0 }
        XCTAssertEqual(responses(retried.doc), responses(before.doc) + 3)
        // A commit every time: the report runs on one lane, on one state.
        let busy = try gone(commitsBetween: .max)
        XCTAssertEqual(commits, Database.snapshotTries)
        XCTAssertFalse(busy.lanes)
        sectionsAgree(busy.doc)
        XCTAssertEqual(responses(busy.doc), responses(before.doc) + 3 + Double(Database.snapshotTries))
    }

    /// As an operator meets it: `ingest` rounds (as `--follow` runs them) adding files to the
    /// database while a report runs again and again. Every run has both lanes and agrees.
    func testTwoLanesDuringARealIngest() throws {
        let tmp = TempDir()
        let (path, files) = try demoDatabase(tmp)
        let half = files.count / 2
        _ = try ingest(Array(files[..<half]), db: path)
        let done = Flag()
        let rounds = Thread {
            defer { done.set() }
            for f in files[half...] { _ = try? ingest([f], db: path) }
        }
        let reader = try Store.openForReading(path: path)
        let runner = try ReportRunner(db: reader)
        var runs = 0
        var totals = Set<String>()
        rounds.start()
        while !done.isSet || runs == 0 {
            let (lanes, doc) = try reader.readSnapshot(lanes: true) {
                (try runner.companion() != nil, try runner.run(name: "gone", params: ReportParams(by: "day")))
            }
            XCTAssertTrue(lanes, "run \(runs) fell back to one lane")
            totals.insert(CellFormat.plain(doc.section("summary")?.first("responses") ?? .null))
            sectionsAgree(doc)
            runs += 1
        }
        XCTAssertGreaterThan(totals.count, 1, "no run saw the ingest's progress")
    }
}

/// A flag one thread sets and another polls.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
