import Foundation

/// One update of a database's kept facts at a time. Two at once could each copy a table before the
/// other swapped its own in, and the state stored last would then vouch for rows one of them lost
/// (an ingest's update and a report started meanwhile, or `--watch` beside `--follow`). ClickHouse
/// has no lock, but `CREATE TABLE` without `IF NOT EXISTS` succeeds for one caller only: the holder
/// creates `kept_lock`, adds a row with the server's time every `beat` seconds while it works, and
/// drops it at the end. A waiter polls; a lock whose newest row (or creation) is older than
/// `stale` seconds belongs to a run that was killed, and is taken over. The rows name the holder's
/// host and process, so a waiter on the same host takes over at once from a holder that no longer
/// runs (a `kill -9` during an ingest then costs the next report no wait).
enum ClickHouseFactsLock {
    static let beat: TimeInterval = 10
    static let stale = 60
    /// ClickHouse's error code for a table that already exists.
    static let tableExists = 57

    /// Runs `body` holding the lock, after waiting for another run's (`waiting` is called once,
    /// when it has to wait); `body` gets the run's name, which also names the tables it makes.
    static func holding<T>(_ client: ClickHouseClient, waiting: () -> Void, _ body: (String) throws -> T) throws -> T {
        let db = client.url.database
        let run = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        var told = false
        while true {
            do {
                _ = try client.execute(
                    """
                    CREATE TABLE `\(db)`.kept_lock ENGINE = Memory
                    AS SELECT {run:String} AS run, now() AS beat, {host:String} AS host, {pid:Int64} AS pid
                    """, params: ["run": run, "host": host, "pid": "\(getpid())"])
                break
            } catch let e as ClickHouseError where e.code == tableExists {
                if try isStale(client) || holderIsGone(client) {
                    // Taken by renaming it away, which one waiter alone can do: another that saw it
                    // gone too finds it missing (or a new holder's) and goes round again.
                    let away = "kept_lock_gone_\(run)"
                    if (try? client.execute("RENAME TABLE `\(db)`.kept_lock TO `\(db)`.`\(away)`")) != nil {
                        _ = try? client.execute("DROP TABLE IF EXISTS `\(db)`.`\(away)`")
                    }
                    continue
                }
                if !told {
                    waiting()
                    told = true
                }
                usleep(500_000)
            }
        }
        let beating = Heartbeat(client, run: run)
        defer {
            beating.stop()
            // Dropped only if still this run's (a takeover may have replaced it).
            if let t = try? client.table("lock", sql: "SELECT any(run) = {run:String} FROM `\(db)`.kept_lock", params: ["run": run]),
                case .int(1) = t.rows.first?.first
            {
                _ = try? client.execute("DROP TABLE IF EXISTS `\(db)`.kept_lock")
            }
        }
        return try body(run)
    }

    /// Whether the lock's holder stopped beating `stale` seconds ago (or the lock is gone).
    static func isStale(_ client: ClickHouseClient) throws -> Bool {
        let db = client.url.database
        do {
            let t = try client.table(
                "lock",
                sql: """
                    SELECT dateDiff('second', greatest(coalesce(max(beat), toDateTime(0)),
                             (SELECT any(metadata_modification_time) FROM system.tables
                              WHERE database = {db:String} AND name = 'kept_lock')), now()) > {stale:UInt32}
                    FROM `\(db)`.kept_lock
                    """, params: ["db": db, "stale": String(stale)])
            guard case .int(let old) = t.rows.first?.first else { return false }
            return old == 1
        } catch let e as ClickHouseError where e.code == ClickHouseFacts.unknownTable {
            return false  // released meanwhile: the next CREATE takes it
        }
    }

    /// Where this process's id means this process: the machine's name, its boot and its process
    /// namespace (two containers of one host share the boot, not the namespace); empty where the
    /// system does not say (no /proc), and then no holder is taken for gone by its process.
    static let host: String = {
        let boot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        let namespace = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? ""
        guard !boot.isEmpty, !namespace.isEmpty else { return "" }
        return [ProcessInfo.processInfo.hostName, boot.trimmingCharacters(in: .whitespacesAndNewlines), namespace]
            .joined(separator: " ")
    }()

    /// Whether the lock's holder ran on this host as a process that is no longer there. A lock
    /// made by a version without the holder's columns is never taken for gone (it goes stale).
    static func holderIsGone(_ client: ClickHouseClient) throws -> Bool {
        let db = client.url.database
        do {
            let t = try client.table("lock", sql: "SELECT any(host), any(pid) FROM `\(db)`.kept_lock")
            guard case .text(let holder) = t.rows.first?[0], case .int(let pid) = t.rows.first?[1], !host.isEmpty, holder == host, pid > 0,
                pid != Int64(getpid())
            else { return false }
            return kill(pid_t(pid), 0) == -1 && errno == ESRCH
        } catch let e as ClickHouseError where e.code == ClickHouseFacts.unknownTable || e.code == ClickHouseFacts.unknownIdentifier {
            return false
        }
    }

    /// Adds a row with the server's time to the lock every `beat` seconds until stopped.
    private final class Heartbeat: @unchecked Sendable {
        private let cond = NSCondition()
        private var stopped = false
        private var done = false

        init(_ client: ClickHouseClient, run: String) {
            let db = client.url.database
            Thread { [self] in
                cond.lock()
                while !stopped {
                    if !cond.wait(until: Date().addingTimeInterval(ClickHouseFactsLock.beat)) && !stopped {
                        cond.unlock()
                        _ = try? client.execute(
                            "INSERT INTO `\(db)`.kept_lock SELECT {run:String}, now(), {host:String}, {pid:Int64}",
                            params: ["run": run, "host": ClickHouseFactsLock.host, "pid": "\(getpid())"])
                        cond.lock()
                    }
                }
                done = true
                cond.broadcast()
                cond.unlock()
            }.start()
        }

        func stop() {
            cond.lock()
            stopped = true
            cond.broadcast()
            while !done { cond.wait() }
            cond.unlock()
        }
    }
}
