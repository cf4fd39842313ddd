import Foundation
import XCTest
@testable import PushLogKit

/// Requests to the server go out `width` at once whatever the client's cores.
final class ServerWaitsTests: XCTestCase {
    func testEachIndexOnceAndWidthAtOnce() {
        let seen = Seen()
        ServerWaits.run(7, width: 3) { i in
            seen.enter(i)
            Thread.sleep(forTimeInterval: 0.03)
            seen.leave()
        }
        XCTAssertEqual(seen.indexes.sorted(), Array(0..<7))
        XCTAssertEqual(seen.most, 3)
        ServerWaits.run(0) { _ in XCTFail("nothing to run") }
    }

    /// The body is not escaping: a thread that still holds it when `run` returns is a crash.
    func testManyRoundsReturnCleanly() {
        for _ in 0..<3000 { ServerWaits.run(3) { _ in } }
    }

    private final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var now = 0
        private(set) var most = 0
        private(set) var indexes: [Int] = []

        func enter(_ i: Int) {
            lock.withLock {
                indexes.append(i)
                now += 1
                most = max(most, now)
            }
        }

        func leave() { lock.withLock { now -= 1 } }
    }
}
