import Foundation
import XCTest
@testable import PushLogKit

/// LineReader and UTF8Check on their own (whole ingests cover them too, but a failure here
/// points at the line of code).
final class InputUnitTests: XCTestCase {
    /// A source that hands out its bytes `step` at a time, so lines straddle reads.
    final class Trickle: ByteSource {
        let bytes: [UInt8]
        let step: Int
        var at = 0
        init(_ s: String, step: Int) { bytes = Array(s.utf8); self.step = step }
        init(bytes: [UInt8], step: Int) { self.bytes = bytes; self.step = step }
        func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
            let n = min(step, count, bytes.count - at)
            for k in 0..<n { buffer[k] = bytes[at + k] }
            at += n
            return n
        }
    }

    func lines(_ source: ByteSource, startOffset: Int64 = 0, startLine: Int = 0) throws -> [(String, Int, Int64, Bool)] {
        var out: [(String, Int, Int64, Bool)] = []
        try LineReader(source: source, startOffset: startOffset, startLine: startLine).forEachLine {
            out.append((String(decoding: $0.bytes, as: UTF8.self), $0.number, $0.endOffset, $0.oversized))
        }
        return out
    }

    func testLinesEndingsOffsetsAndNumbersWhateverTheReadSize() throws {
        let text = "a\nbb\r\n\nccc"  // LF, CRLF, a blank line (counted, not given), a last line without newline
        for step in [1, 2, 3, 7, 1 << 20] {
            let got = try lines(Trickle(text, step: step))
            XCTAssertEqual(got.map(\.0), ["a", "bb", "ccc"], "step \(step)")
            XCTAssertEqual(got.map(\.1), [1, 2, 4])
            XCTAssertEqual(got.map(\.2), [2, 6, 10], "end offsets count the bytes of the stream, CR included")
        }
        // A resumed read numbers and places lines after where it started.
        let resumed = try lines(Trickle("x\ny\n", step: 1), startOffset: 100, startLine: 9)
        XCTAssertEqual(resumed.map(\.1), [10, 11])
        XCTAssertEqual(resumed.map(\.2), [102, 104])
        XCTAssertTrue(try lines(Trickle("", step: 1)).isEmpty)
    }

    /// Blank lines (spaces, tabs, CRs, nothing) are skipped however they fall across reads,
    /// in runs shorter and longer than the eight newlines skipped at once, and still numbered.
    func testBlankLinesAreCountedButNeverGiven() throws {
        let ten = String(repeating: "\n", count: 10)
        let text = "\n\n \t\r\n" + "a\n" + ten + "  b \n" + "\r\n \n" + ten + ten + "\u{FEFF}\n" + "c" + "\n   \t"
        let numbers = [4, 5 + 10, 5 + 10 + 2 + 20 + 1, 5 + 10 + 2 + 20 + 2]
        for step in [1, 2, 3, 7, 9, 1 << 20] {
            let got = try lines(Trickle(text, step: step))
            XCTAssertEqual(got.map(\.0), ["a", "  b ", "\u{FEFF}", "c"], "step \(step)")
            XCTAssertEqual(got.map(\.1), numbers, "step \(step)")
            XCTAssertEqual(got.last?.2, Int64(text.utf8.count - 4), "step \(step)")  // after c's newline
        }
        // A resumed read counts the blank lines it passes over too.
        XCTAssertEqual(try lines(Trickle("\n\n\nx\n", step: 2), startOffset: 10, startLine: 5).map(\.1), [9])
        // Nothing but blank lines, as many as a large file holds: no line is given.
        XCTAssertTrue(try lines(Trickle(String(repeating: "\n", count: 3 << 20) + " \r\n", step: 1 << 20)).isEmpty)
    }

    /// A gzip stream of more lines than its file's bytes allow (`LineReader.bytesPerLine`) is
    /// stopped with the reason; the same lines in a plain file are all read.
    func testAGzipStreamMayNotGiveMoreLinesThanItsBytes() throws {
        let tmp = TempDir()
        let junk = Array(String(repeating: "x\n", count: LineReader.lineSlack + 200_000).utf8)
        let gz = tmp.write("junk.gz", bytes: try GzipWriter.compress(junk))
        let file = try FileByteSource(path: gz)
        var given = 0
        XCTAssertThrowsError(try LineReader(source: try GzipByteSource(input: file), file: file).forEachLine { _ in given += 1 }) {
            guard case InputError.tooManyLines = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertLessThan(given, LineReader.lineSlack + Int(file.consumed) / LineReader.bytesPerLine + 4096)
        var plain = 0
        try LineReader(source: try FileByteSource(path: tmp.write("junk.log", bytes: junk))).forEachLine { _ in plain += 1 }
        XCTAssertEqual(plain, LineReader.lineSlack + 200_000)
    }

    func testOversizedLinesAreCutToAPrefixAndCountedOnce() throws {
        let big = String(repeating: "x", count: LineReader.maxLineBytes + 10)
        for step in [4096, 1 << 20] {
            let got = try lines(Trickle("ok\n" + big + "\nafter\n", step: step))
            XCTAssertEqual(got.map(\.1), [1, 2, 3], "step \(step)")
            XCTAssertEqual(got[1].3, true)
            XCTAssertEqual(got[1].0.count, 512)
            XCTAssertEqual(got[2].0, "after")
            XCTAssertEqual(got[2].2, Int64(3 + big.utf8.count + 1 + 6))
        }
    }

    func testUTF8CheckAgreesWithTheStandardLibrary() throws {
        func check(_ bytes: [UInt8]) {
            let got = bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) }
            XCTAssertEqual(got, String(validating: bytes, as: UTF8.self) != nil, "\(bytes)")
        }
        for s in ["", "plain ascii, longer than eight bytes", "é", "日本語", "🙂", "mixed é 日 🙂 text"] { check(Array(s.utf8)) }
        // Overlong forms, surrogates, out-of-range code points, truncated sequences, stray continuations.
        for bad: [UInt8] in [
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xE6, 0x97], [0x80], [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xFF], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ] {
            XCTAssertFalse(bad.withUnsafeBufferPointer { UTF8Check.isValid($0) }, "\(bad)")
            check(bad)
        }
        // Random bytes, biased towards multi-byte lead and continuation bytes.
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xA0, 0x9F, 0x90]
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...12, using: &rng)
            check((0..<n).map { _ in alphabet.randomElement(using: &rng)! })
        }
    }
}
