import Foundation
import XCTest
@testable import PushLogKit

/// The ingest layer's own failures name the file, with the wording the summary always showed.
final class IngestErrorTests: XCTestCase {
    func testAnUnknownForcedFormatNamesTheFile() throws {
        let tmp = TempDir()
        let log = Fixtures.path("canonical.ndjson")
        let s = try ingest([log], db: tmp.file("p.db"), format: "no-such-format")
        XCTAssertEqual(s.files.count, 1)
        XCTAssertFalse(s.files[0].complete)
        XCTAssertEqual(s.files[0].error, "\(log): cannot read: unknown input format no-such-format")
        XCTAssertEqual("\(IngestError.cannotStat(file: "/x/a.log"))", "/x/a.log: cannot read: cannot stat")
    }
}
