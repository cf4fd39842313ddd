import Foundation

/// The rows after each file's last full batch, gathered from several files into one block.
///
/// Daily log files are often smaller than a batch; gathered, their rows make one part for the
/// server to write and merge instead of one per file. Exactly once, under a kill at any moment:
/// - Before the block is sent, its members' `sources` rows are written in one insert (all or
///   none arrive), each naming the block (`pending_block`, its token) and the member's rows in it
///   (`pending_rows` after `rows_done`).
/// - The block goes under that token, then the members' final rows, in one insert.
/// - A run first settles every block still named by a row (`settleSharedBlocks`): the rows of
///   the members that still name it are cut again from their files and sent under the same
///   token, which the server drops if the block arrived. Those members' rows then count them as
///   in, and their reads go on from there.
final class SharedBlock {
    /// The members' records, RowBinary, in member order.
    private(set) var rows: [UInt8] = []
    private(set) var count = 0
    /// Each member's row announcing its part, and its final row once the block is in.
    private(set) var members: [(announce: [String: String], final: [String: String])] = []

    func add(rows more: [UInt8], count n: Int, announce: [String: String], final: [String: String]) {
        rows += more
        count += n
        members.append((announce, final))
    }

    func removeAll() {
        rows.removeAll(keepingCapacity: true)
        count = 0
        members = []
    }

    /// The block's token: named by its members' reads, first rows and sizes.
    var token: String {
        let names = members.map { m in
            "\(m.announce["segment"] ?? ""):\(m.announce["rows_done"] ?? ""):\(m.announce["pending_rows"] ?? "")"
        }
        let (a, b) = Array(names.joined(separator: "\n").utf8).withUnsafeBufferPointer { LineHash.hash($0) }
        return "shared:\(ClickHouseIngest.hex(UInt64(bitPattern: a)))\(ClickHouseIngest.hex(UInt64(bitPattern: b)))"
    }
}

extension ClickHouseIngest {
    /// Queues the shared block (announcement, block, final rows) and empties it.
    func send(_ shared: SharedBlock, _ inserts: InsertQueue) throws {
        guard !shared.members.isEmpty else { return }
        let token = shared.token
        let announce = shared.members.map { m in m.announce.merging(["pending_block": token]) { $1 } }
        let finals = shared.members.map(\.final)
        let data = NativeBlock.block(rowBinary: shared.rows, count: shared.count, columns: RecordRows.binaryColumns)
        let empty = shared.count == 0
        shared.removeAll()
        let client = self.client, db = self.db
        try inserts.add(holdsBlock: true) {
            try ClickHouseIngest.writeSources(client, db, announce)
            if !empty { try ClickHouseIngest.insertRecords(client, db, data, token: token) }
            try ClickHouseIngest.writeSources(client, db, finals)
        }
    }

    /// Settles the shared blocks a killed run announced and may not have sent, whichever files
    /// this run reads. Every member that still names a block has its rows sent again under the
    /// block's token: all of them if the block never went, a part of it (dropped by the server)
    /// if it did; a member that went on since, read into another block by another run, sent its
    /// rows there. A member whose file can no longer give the same rows (gone, or other bytes)
    /// is read again from its start, as a replaced file is: its records collapse by identity if
    /// the block had arrived.
    func settleSharedBlocks(_ pool: ChunkPool) throws {
        let waiting = try sourceStates(where: "pending_block != '' AND complete = 0")
        guard !waiting.isEmpty else { return }
        let columns = try sourceColumns()
        // Each member's row again with its block settled. Expressions, not aliases: an alias
        // named like a column would stand for that column elsewhere in the SELECT on the
        // servers' older query analysis.
        let settled: [String: String] = [
            "segment": "if(has({lost:Array(String)}, path), '', segment)",
            "rows_done": "if(has({lost:Array(String)}, path), 0, rows_done + pending_rows)",
            "pending_rows": "0", "pending_block": "''", "version": "greatest(version + 1, {version:UInt64})",
        ]
        let select = columns.map { settled[$0] ?? "`\($0)`" }.joined(separator: ", ")
        for (token, members) in Dictionary(grouping: waiting, by: \.pendingBlock).sorted(by: { $0.key < $1.key }) {
            let batch = EncodedRows()
            var lost: [String] = []
            for m in members.sorted(by: { $0.path < $1.path }) {
                if try !memberRows(m, pool, into: batch) { lost.append(m.path) }
            }
            // Those stored since (the block arrived, or another file holds them) are not sent again.
            try dropStored(batch, rows: nil, ownAt: nil, file: "", shared: nil, nil)
            if batch.count > 0 {
                let data = NativeBlock.block(rowBinary: batch.bytes, count: batch.count, columns: RecordRows.binaryColumns)
                try ClickHouseIngest.insertRecords(client, db, data, token: token)
            }
            let version = ClickHouseIngest.versions.next(UInt64(Date().timeIntervalSince1970 * 1_000_000))
            _ = try client.execute(
                """
                INSERT INTO \(db).sources (\(columns.map { "`\($0)`" }.joined(separator: ", ")))
                SELECT \(select)
                FROM (SELECT * FROM \(db).sources FINAL WHERE pending_block = {token:String} AND complete = 0)
                """,
                params: [
                    "lost": ClickHouseStatements.array(lost), "token": ClickHouseClient.parameter(token), "version": "\(version)",
                ])
        }
    }

    /// Adds a member's rows in its shared block to `batch`, cut again from the same read of its
    /// file; false when the file no longer gives them (gone, other first bytes, fewer rows). A
    /// file that is there but cannot be read is an error: the block stays to be settled later.
    func memberRows(_ m: SourceState, _ pool: ChunkPool, into batch: EncodedRows) throws -> Bool {
        guard FileManager.default.fileExists(atPath: m.path) else { return false }
        guard let st = Ingester.fileInfo(m.path) else { throw IngestError.cannotStat(file: m.path) }
        guard m.isSameFile(m.path, size: st.size) else { return false }
        var fs = FileSummary(path: m.path)
        guard
            case .opened(var opened) = try OpenedStream.open(
                InputFile(path: m.path), offset: m.segmentOffset, lines: m.segmentLines, st, options: options, &fs)
        else { return false }
        struct Enough: Error {}
        let rows = RecordRows(encoding: .rowBinary)
        rows.keepRejects = false
        rows.start(path: m.path)
        let mark = batch.count
        var repeats = RepeatLedger(ClickHouseIngest.runs(m.segmentRuns), fresh: m.segmentLines == 0)
        opened.openRuns = ClickHouseIngest.runs(m.segmentRuns)
        do {
            _ = try ClickHouseIngest.readRows(
                opened, rows, pool: pool, skip: m.rowsDone, into: batch, repeats: &repeats,
                identities: identities(m.path, base: m.segmentBase) {},
                row: { if batch.count - mark == m.pendingRows { throw Enough() } })
        } catch is Enough {}
        guard batch.count - mark == m.pendingRows else {
            batch.cut(at: mark)
            return false
        }
        return true
    }
}
