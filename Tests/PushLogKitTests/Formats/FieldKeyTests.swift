import Foundation
import XCTest
@testable import PushLogKit

/// FieldKeyTable: a key is a known field only when its folded bytes are that field's.
final class FieldKeyTests: XCTestCase {
    func hash(_ s: String) -> UInt64 {
        let b = Array(s.utf8)
        return b.withUnsafeBufferPointer { FieldKeyTable.hash($0.baseAddress!, $0.count) }
    }

    func lookup(_ t: FieldKeyTable, _ key: String, hash h: UInt64) -> Field? {
        let b = Array(key.utf8)
        return b.withUnsafeBufferPointer { t.field($0.baseAddress!, $0.count, hash: h) }
    }

    func testAliasesFoldCaseAndSeparators() {
        let t = FieldKeyTable()
        XCTAssertEqual(t.field("Device-Token"), .token)
        XCTAssertEqual(t.field("APNS_ID"), .apnsID)
        XCTAssertEqual(t.field("apnsid"), .apnsID)
        XCTAssertNil(t.field("tokens"))
        XCTAssertNil(t.field("toke"))
        XCTAssertNil(t.field("-_-"))
    }

    /// `key622` lands in the same one of the 512 slots as `token` (FNV-1a 0xef589f35460eb352
    /// and 0x26c4b17d50b3c152, both 338 mod 512) but is a different key.
    func testAKeyInTheSameSlotAsAKnownFieldIsUnknown() {
        XCTAssertEqual(hash("key622") & 511, hash("token") & 511)
        XCTAssertNotEqual(hash("key622"), hash("token"))
        let t = FieldKeyTable()
        XCTAssertNil(t.field("key622"))
        XCTAssertEqual(t.field("token"), .token)
    }

    /// A crafted key whose whole 64-bit hash equals a known field's (forced here, since such a
    /// pair is costly to find) is still unknown: the folded bytes are compared after the hit.
    func testAKeyWhoseHashCollidesWithAKnownFieldIsUnknown() {
        let t = FieldKeyTable()
        let h = hash("token")
        XCTAssertNil(lookup(t, "tokem", hash: h))
        XCTAssertNil(lookup(t, "token!", hash: h))
        XCTAssertNil(lookup(t, "toke", hash: h))
        XCTAssertEqual(lookup(t, "To-Ken", hash: h), .token, "the same folded key still matches")
    }
}
