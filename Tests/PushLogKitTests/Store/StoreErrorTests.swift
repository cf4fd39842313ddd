import Foundation
import XCTest
@testable import PushLogKit

/// StoreError: a case per failure, SQLite's code and statement only where SQLite failed.
final class StoreErrorTests: XCTestCase {
    func testAMissingDatabaseIsItsOwnCaseWithTheSameAdvice() throws {
        let tmp = TempDir()
        let path = tmp.file("none.db")
        XCTAssertThrowsError(try Store.openForReading(path: path)) { e in
            guard case StoreError.missingDatabase(let p) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(p, path)
            XCTAssertNil((e as? StoreError)?.sqliteCode, "not a SQLite failure: no borrowed code")
        }
        let r = try Run.pushlog(["--db", path, "report", "gone"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "pushlog: no database at \(path) (run `pushlog ingest PATH...` first, or pass --db FILE)\n")
    }

    func testAFailedStatementCarriesItsSQL() throws {
        let tmp = TempDir()
        let db = try Store.openForWriting(path: tmp.file("p.db"))
        XCTAssertThrowsError(try db.prepare("SELECT nonsense FROM sends")) { e in
            guard case StoreError.sqlite(let code, let message, let sql) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(code, 1)  // SQLITE_ERROR
            XCTAssertEqual(message, "no such column: nonsense")
            XCTAssertEqual(sql, "SELECT nonsense FROM sends")
            XCTAssertEqual("\(e)", "database error 1: no such column: nonsense (while running: SELECT nonsense FROM sends)")
        }
        XCTAssertThrowsError(try db.exec("CREATE TABLE sends(x)")) { e in
            XCTAssertEqual((e as? StoreError)?.sql, "CREATE TABLE sends(x)")
        }
    }

    /// A bind that SQLite refuses (no parameter 5 in a one-parameter statement) stops the step.
    func testAFailedBindIsThrownByTheNextStep() throws {
        let tmp = TempDir()
        let db = try Store.openForWriting(path: tmp.file("p.db"))
        let s = try db.prepare("SELECT ?1")
        s.bind(5, Int64(7))
        XCTAssertThrowsError(try s.step()) { e in
            guard case StoreError.bind(let code, let parameter, let sql) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(code, 25)  // SQLITE_RANGE
            XCTAssertEqual(parameter, 5)
            XCTAssertEqual(sql, "SELECT ?1")
        }
        s.reset()
        s.bind(1, Int64(7))
        XCTAssertTrue(try s.step())
        XCTAssertEqual(s.int(0), 7)
    }

    func testABusyWriterLockIsItsOwnCase() throws {
        let tmp = TempDir()
        let path = tmp.file("p.db")
        let holder = try WriterLock(databasePath: path)
        XCTAssertThrowsError(try WriterLock(databasePath: path, wait: false)) { e in
            guard case StoreError.busy(let p) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(p, path)
            XCTAssertEqual("\(e)", "the database is busy: another pushlog ingest or prune is writing to \(path)")
        }
        withExtendedLifetime(holder) {}
    }
}
