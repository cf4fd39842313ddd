import Foundation
import XCTest
@testable import PushLogKit

/// Parse-only lines/s (no SQLite, no decompression), for BENCHMARKS.md: skipped unless
/// PUSHLOG_BENCH_PARSE=1; run it in a release build:
///   PUSHLOG_BENCH_PARSE=1 swift test -c release -Xswiftc -enable-testing --filter ParseRateBenchmark
final class ParseRateBenchmark: XCTestCase {
    func demoLines() throws -> [[UInt8]] {
        let dir = NSTemporaryDirectory() + "parse-bench-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var o = DemoOptions()
        o.devices = 2000
        o.weeks = 2
        o.gzipLevel = 1
        let r = try DemoGenerator(o).write(to: dir)
        var lines: [[UInt8]] = []
        for f in r.files where f.hasSuffix(".gz") {
            let src = try GzipByteSource(input: FileByteSource(path: f))
            try LineReader(source: src).forEachLine { lines.append(Array($0.bytes)) }
        }
        return lines
    }

    /// Best of thirty passes over `lines`: lines per second and records read.
    func rate(_ lines: [[UInt8]], _ parse: (UnsafeBufferPointer<UInt8>) -> Bool) -> (Double, Int) {
        var best = 0.0, records = 0
        for _ in 0..<30 {
            records = 0
            let t0 = Date()
            for l in lines { if l.withUnsafeBufferPointer(parse) { records += 1 } }
            best = max(best, Double(lines.count) / Date().timeIntervalSince(t0))
        }
        return (best, records)
    }

    func testNDJSONParseRate() throws {
        guard ProcessInfo.processInfo.environment["PUSHLOG_BENCH_PARSE"] != nil else { throw XCTSkip("set PUSHLOG_BENCH_PARSE=1") }
        let lines = try demoLines()
        let f = NDJSONFormat()
        let sink = CountingSink()
        let (r, n) = rate(lines) { buf in
            if ANSIEscapes.present(buf) { return false }
            return sink.read(buf, f)
        }
        print(String(format: "PARSE-RATE ndjson: %d lines, %d records, %.0f lines/s", lines.count, n, r))
    }

    func testUserDefinedFormatParseRate() throws {
        guard ProcessInfo.processInfo.environment["PUSHLOG_BENCH_PARSE"] != nil else { throw XCTSkip("set PUSHLOG_BENCH_PARSE=1") }
        let lib = try FormatLibrary.load()
        let def = try XCTUnwrap(lib.definition("parse-server"))
        var lines: [[UInt8]] = []
        for i in 0..<50_000 {
            let token = String(format: "%064x", i * 7919)
            let t = TimeFormat.rfc3339(ms: 1_793_606_400_000 + Int64(i) * 10)
            lines.append(
                Array(
                    (i % 10 == 0
                        ? "\(t) - error: APNS error transmitting to device \(token) with status 410 and reason Unregistered"
                        : "\(t) - verbose: APNS transmitted to \(token)").utf8))
        }
        let f = DefinedFormat(def)
        let sink = CountingSink()
        let (r, n) = rate(lines) { buf in
            if ANSIEscapes.present(buf) { return false }
            return sink.read(buf, f)
        }
        print(String(format: "PARSE-RATE parse-server definition: %d lines, %d records, %.0f lines/s", lines.count, n, r))
    }

}

/// Counts the records a format reports, and nothing else: the format's own cost.
final class CountingSink: RecordSink {
    let builder = EventBuilder()
    var records = 0

    /// Whether the line was a record.
    func read(_ line: UnsafeBufferPointer<UInt8>, _ format: LineFormat) -> Bool {
        let before = records
        format.parse(line, number: 1, lineTime: nil, into: self)
        return records > before
    }

    func record(_ span: RecordSpan?) { records += 1 }
    func reject(_ reason: RejectReason, _ span: RecordSpan?) {}
    func skip() {}
    func ignore() {}
    func metric(_ count: DailyCount) {}
    func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?) {}
}
