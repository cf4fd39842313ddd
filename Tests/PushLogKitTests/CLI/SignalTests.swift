import Foundation
import XCTest
@testable import PushLogKit

/// An ingest meets FIFOs and signals as a cron job or a shell does: a FIFO in a folder is passed
/// over, one named on the command line is read as a stream, and SIGTERM or SIGINT ends the run
/// within a second whatever it waits on, keeping what is complete.
final class SignalTests: XCTestCase {
    /// The built binary, started and left running.
    final class Running {
        let process = Process()
        let err = Pipe()
        init(_ args: [String]) throws {
            process.executableURL = URL(fileURLWithPath: Fixtures.binary)
            process.arguments = args
            var e = ProcessInfo.processInfo.environment
            e.removeValue(forKey: "PUSHLOG_DB")
            e.removeValue(forKey: "PUSHLOG_CLICKHOUSE")
            process.environment = e
            process.standardOutput = FileHandle.nullDevice
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Sends `signal` and waits for the exit: its status, stderr and the seconds it took.
        func stop(_ signal: Int32) -> (status: Int32, stderr: String, seconds: Double) {
            let sent = Date()
            kill(process.processIdentifier, signal)
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let seconds = Date().timeIntervalSince(sent)
            let status = process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
            return (status, String(decoding: stderr, as: UTF8.self), seconds)
        }
    }

    /// A writer of `fifo` on a thread of its own: it opens the FIFO (waiting for the reader),
    /// writes `text` and holds the FIFO open until `close`.
    final class FIFOWriter: @unchecked Sendable {  // fd is set by the thread before `opened` signals
        let opened = DispatchSemaphore(value: 0)
        var fd: Int32 = -1
        init(_ fifo: String, _ text: String) {
            Thread {
                self.fd = open(fifo, O_WRONLY)
                _ = text.utf8CString.withUnsafeBufferPointer { write(self.fd, $0.baseAddress!, $0.count - 1) }
                self.opened.signal()
            }.start()
        }
        func close() {
            opened.wait()
            _ = Glibc.close(fd)
        }
    }

    func sends(_ n: Int) -> String {
        (1...n).map {
            #"{"time":"2026-11-02T10:00:\#(String(format: "%02d", $0))Z","type":"send","token":"\#(Self.token($0))","status":200}"# + "\n"
        }
        .joined()
    }

    func mkfifo(_ path: String) {
        XCTAssertEqual(Glibc.mkfifo(path, 0o600), 0)
    }

    func testAFIFOInAFolderIsSkippedWithANote() throws {
        let tmp = TempDir()
        try FileManager.default.createDirectory(atPath: tmp.file("logs"), withIntermediateDirectories: true)
        _ = tmp.write("logs/a.ndjson", sends(3))
        mkfifo(tmp.file("logs/pipe.ndjson"))  // nobody ever writes to it
        let run = try Running(["--db", tmp.file("t.db"), "ingest", tmp.file("logs")])
        let deadline = Date().addingTimeInterval(20)
        while run.process.isRunning && Date() < deadline { usleep(50_000) }
        let r = run.stop(SIGKILL)  // already exited, unless it hung in the FIFO
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("logs/pipe.ndjson: a FIFO, not a log file; skipped"), r.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: tmp.file("t.db")), 3)
    }

    func testAFIFONamedOnTheCommandLineIsReadAsAStream() throws {
        let tmp = TempDir()
        let fifo = tmp.file("live.ndjson")
        mkfifo(fifo)
        let writer = FIFOWriter(fifo, sends(4))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { writer.close() }
        let r = try Run.pushlog(["--db", tmp.file("t.db"), "ingest", fifo])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: tmp.file("t.db")), 4)
    }

    /// Nobody opens the FIFO for writing: the ingest waits for a writer, and a signal ends it.
    func testASignalEndsAnIngestWaitingForAWriter() throws {
        for (signal, status) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let tmp = TempDir()
            let fifo = tmp.file("never.ndjson")
            mkfifo(fifo)
            let run = try Running(["--db", tmp.file("t.db"), "ingest", fifo])
            usleep(700_000)
            let r = run.stop(signal)
            XCTAssertEqual(r.status, status, r.stderr)
            XCTAssertLessThan(r.seconds, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("interrupted by \(signal == SIGTERM ? "SIGTERM" : "SIGINT")"), r.stderr)
        }
    }

    /// A first load that waits for more lines: a signal keeps its complete records (not the
    /// line half-written), and the next ingest finishes the load.
    func testASignalKeepsWhatAFirstLoadRead() throws {
        let tmp = TempDir()
        let db = tmp.file("t.db"), fifo = tmp.file("live.ndjson")
        mkfifo(fifo)
        let writer = FIFOWriter(fifo, sends(3) + #"{"time":"2026-11-02T10:00:59Z","type":"se"#)
        defer { writer.close() }
        let run = try Running(["--db", db, "ingest", fifo])
        usleep(1_000_000)
        let r = run.stop(SIGTERM)
        XCTAssertEqual(r.status, 143, r.stderr)
        XCTAssertLessThan(r.seconds, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("every complete record read is kept"), r.stderr)
        let more = try Run.pushlog(["--db", db, "ingest", tmp.write("more.ndjson", sends(5))])
        XCTAssertEqual(more.status, 0, more.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 3 + 5 - 3)  // more's first three are the same records
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 0)
    }

    /// Busy reading a large file, not waiting: a signal still ends the run within a second, and
    /// the next ingest reads on from what was kept to the same total.
    func testASignalEndsAnIngestBusyReading() throws {
        let tmp = TempDir()
        let db = tmp.file("t.db")
        let big = tmp.write("big.ndjson", (0..<40).map { _ in sends(59) }.joined() + String(repeating: sends(50), count: 4_000))
        let run = try Running(["--db", db, "ingest", big])
        usleep(1_500_000)
        let r = run.stop(SIGTERM)
        XCTAssertEqual(r.status, 143, r.stderr)
        XCTAssertLessThan(r.seconds, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("stopped at \(big): interrupted by SIGTERM"), r.stderr)
        let again = try Run.pushlog(["--db", db, "ingest", big])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 40 * 59 + 4_000 * 50)
    }

    /// An ingest into a database that holds records is one transaction: a signal leaves the
    /// database as it was, readable.
    func testASignalLeavesAnIncrementalRunUndone() throws {
        let tmp = TempDir()
        let db = tmp.file("t.db"), fifo = tmp.file("live.ndjson")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", tmp.write("first.ndjson", sends(2))]).status, 0)
        mkfifo(fifo)
        let writer = FIFOWriter(fifo, sends(6))
        defer { writer.close() }
        let run = try Running(["--db", db, "ingest", fifo])
        usleep(1_000_000)
        let r = run.stop(SIGINT)
        XCTAssertEqual(r.status, 130, r.stderr)
        XCTAssertLessThan(r.seconds, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("nothing of this run was kept"), r.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 2)
    }
}
