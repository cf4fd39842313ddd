import Foundation
import XCTest
@testable import PushLogKit

/// Paths and helpers shared by the tests.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let dir = root.appendingPathComponent("Tests/Fixtures")
    static func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// The built `pushlog` binary (swift test builds it alongside the tests).
    static var binary: String {
        let candidates = [".build/debug/pushlog", ".build/x86_64-unknown-linux-gnu/debug/pushlog", ".build/release/pushlog"]
        for c in candidates {
            let p = root.appendingPathComponent(c).path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return root.appendingPathComponent(candidates[0]).path
    }
}

/// Fixture logs ingested once per test run, for the suites that only read them. Static lets
/// (initialised once, thread-safely): Swift 6 refuses shared mutable statics.
enum IngestedFixtures {
    static let dir = TempDir()
    static let reports = ingested("reports.ndjson")
    static let tokens = ingested("tokens.ndjson")

    static func ingested(_ fixture: String) -> String {
        let path = dir.file(fixture + ".db")
        _ = try! ingest([Fixtures.path(fixture)], db: path)
        return path
    }
}

/// A fresh temporary directory removed at the end of the test.
final class TempDir: Sendable {  // immutable: one path
    let path: String
    init() {
        path = NSTemporaryDirectory() + "pushlog-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        try! text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }
    func write(_ name: String, bytes: [UInt8]) -> String {
        let p = file(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }
}

/// Runs a command and returns its status and outputs.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String

    @discardableResult
    static func pushlog(_ args: [String], stdin: Data? = nil, env: [String: String] = [:]) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.binary)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        e.removeValue(forKey: "PUSHLOG_DB")
        e.removeValue(forKey: "PUSHLOG_CLICKHOUSE")
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let r = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: r, as: UTF8.self))
    }
}

/// Ingests paths into a database through the library.
func ingest(_ paths: [String], db path: String, format: String? = nil) throws -> IngestSummary {
    let db = try Store.openForWriting(path: path)
    var o = IngestOptions()
    o.inputFormat = format.map { InputFormat($0, library: o.formats) }
    return try Ingester(db: db, options: o).run(paths: paths)
}

/// Counts rows with a read-only connection.
func count(_ sql: String, db path: String) throws -> Int64 {
    let db = try Store.openForReading(path: path)
    return try db.scalarInt(sql) ?? -1
}

func kinds(_ s: IngestSummary) -> [String: Int] {
    var d: [String: Int] = [:]
    for k in EventKind.allCases where s.records[k] > 0 { d[k.name] = s.records[k] }
    return d
}

/// Demo-generator options for a small test corpus (three weeks, fast gzip).
func smallDemo(devices: Int, weeks: Int = 3) -> DemoOptions {
    var o = DemoOptions()
    o.devices = devices
    o.weeks = weeks
    o.gzipLevel = 1
    return o
}

extension XCTestCase {
    /// Every row of `sql` on a read-only connection to `db`.
    func rows(_ sql: String, _ db: String) throws -> [[SQLValue]] {
        let c = try Store.openForReading(path: db)
        let s = try c.prepare(sql)
        var out: [[SQLValue]] = []
        while try s.step() { out.append((0..<s.columnCount).map { s.value($0) }) }
        return out
    }

    /// A 64-hex-digit token made of `n` (fixtures written by make-format-fixtures.py use the same).
    static func token(_ n: Int) -> String { String(repeating: String(format: "%04x", n), count: 16) }
}

extension ReportRunner {
    /// The SQLite store a runner made with `init(db:)` reads.
    var db: Database { (engine as! SQLiteEngine).db }

    /// A runner on the companion connection of the read snapshot in progress
    /// (`Database.readSnapshot(lanes: true)`), or nil.
    func companion() throws -> ReportRunner? {
        try db.companion.map { try ReportRunner(db: $0, catalog: catalog) }
    }
}
