import Foundation
import XCTest
@testable import PushLogKit

/// A batch of RowBinary rows becomes one Native block: whole columns, each Nullable column's
/// null map before its values, a default value standing in for each NULL.
final class NativeBlockTests: XCTestCase {
    func testRowsBecomeColumns() {
        let columns: [NativeBlock.Column] = [
            .init(name: "s", type: "String", layout: .string, nullable: false),
            .init(name: "n", type: "Nullable(Int16)", layout: .fixed(2), nullable: true),
            .init(name: "t", type: "Nullable(String)", layout: .string, nullable: true),
            .init(name: "f", type: "FixedString(2)", layout: .fixed(2), nullable: false),
        ]
        // Row 1: "ab", 258, NULL, "xy"; row 2: "", NULL, "q", "zw".
        let rows: [UInt8] = [2, 0x61, 0x62, 0, 2, 1, 1, 0x78, 0x79] + [0, 1, 0, 1, 0x71, 0x7a, 0x77]
        func header(_ name: String, _ type: String) -> [UInt8] {
            [UInt8(name.utf8.count)] + name.utf8 + [UInt8(type.utf8.count)] + type.utf8
        }
        var want: [UInt8] = [4, 2]
        want += header("s", "String") + [2, 0x61, 0x62, 0]
        want += header("n", "Nullable(Int16)") + [0, 1] + [2, 1, 0, 0]
        want += header("t", "Nullable(String)") + [1, 0] + [0, 1, 0x71]
        want += header("f", "FixedString(2)") + [0x78, 0x79, 0x7a, 0x77]
        XCTAssertEqual([UInt8](NativeBlock.block(rowBinary: rows, count: 2, columns: columns)), want)
    }
}
