import Foundation
import XCTest

/// scripts/clickhouse_http.py (chDB behind ClickHouse's HTTP interface) on a free port, for one
/// test. The test is skipped, saying why, only when chdb is not importable; a front that does not
/// start is a failure, never a skip, so a broken front cannot pass a comparison silently.
final class ChDBServer {
    let process: Process
    let port: String
    let user: String
    let password: String
    let dir: TempDir

    private init(process: Process, port: String, user: String, password: String, dir: TempDir) {
        (self.process, self.port, self.user, self.password, self.dir) = (process, port, user, password, dir)
    }

    static func start(user: String = "default", password: String = "") throws -> ChDBServer {
        guard (try? Shell.run("python3 -c 'import chdb'"))?.status == 0 else {
            throw XCTSkip("chdb is not importable by python3 (pip install chdb): the ClickHouse engine is not tested here")
        }
        let dir = TempDir()
        let portFile = dir.file("port")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "python3", Fixtures.root.appendingPathComponent("scripts/clickhouse_http.py").path, "--port", "0", "--path", dir.file("data"),
            "--port-file", portFile, "--user", user, "--password", password, "--reader", "reader:read",
            "--fault-file", dir.file("fault"),
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle(forWritingAtPath: dir.write("front.log", ""))
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && p.isRunning {
            if let port = try? String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
                !port.isEmpty
            {
                return ChDBServer(process: p, port: port, user: user, password: password, dir: dir)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if p.isRunning { p.terminate() }
        let log = (try? String(contentsOfFile: dir.file("front.log"), encoding: .utf8)) ?? ""
        throw CLIFailure("clickhouse_http.py did not start: \(log.suffix(500))")
    }

    /// The URL of `database` on this front, with its credentials.
    func url(_ database: String) -> String {
        "http://\(user)\(password.isEmpty ? "" : ":" + password)@127.0.0.1:\(port)/\(database)"
    }

    /// Makes the front misbehave as `line` says (scripts/clickhouse_http.py, `--fault-file`), or
    /// behave again (nil).
    func fault(_ line: String?) throws {
        if let line { _ = dir.write("fault", line + "\n") } else { try? FileManager.default.removeItem(atPath: dir.file("fault")) }
    }

    /// The URL of `database` for the front's read-only user (every request `readonly=1`).
    func readerURL(_ database: String) -> String { "http://reader:read@127.0.0.1:\(port)/\(database)" }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A failure of the program a test drives, with what it said.
struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}
