import Foundation

/// The rows after each file's last full batch, gathered from several files into one block.
///
/// Daily log files are often smaller than a batch, and a block per file made as many small parts
/// for the server to write and merge again and again; a shared block makes one part of many
/// files' rows. Exactly once, under a kill at any moment:
/// - Before the block is sent, its members' `sources` rows are written in one insert (all or
///   none arrive), each naming the block (`pending_block`, its token), how many files it holds
///   (`block_members`), and the member's rows in it (`pending_rows` after `rows_done`).
/// - The block goes under that token, then each member's final row.
/// - A run first settles every block still named by a row (`settleSharedBlocks`): when fewer rows
///   name it than it has members, a final row was written, so it arrived; else it is sent again,
///   each member's rows cut again from its file, under the same token, and the server drops it if
///   it had it. The members' rows then count its rows as in, and the read goes on from there.
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
        let token = shared.token, count = "\(shared.members.count)"
        let announce = shared.members.map { m in m.announce.merging(["pending_block": token, "block_members": count]) { $1 } }
        let finals = shared.members.map(\.final)
        let data = NativeBlock.block(rowBinary: shared.rows, count: shared.count, columns: RecordRows.binaryColumns)
        shared.removeAll()
        let client = self.client, db = self.db
        try inserts.add(holdsBlock: true) {
            try ClickHouseIngest.writeSources(client, db, announce)
            try ClickHouseIngest.insertRecords(client, db, data, token: token)
            try ClickHouseIngest.writeSources(client, db, finals)
        }
    }

    /// Settles the shared blocks a killed run announced and may not have sent, whichever files
    /// this run reads. A member whose file can no longer give the same rows (gone, or other
    /// bytes) is read again from its start, as a replaced file is: its records collapse by
    /// identity if the block had arrived.
    func settleSharedBlocks(_ pool: ChunkPool) throws {
        let waiting = try sourceStates(where: "pending_block != '' AND complete = 0")
        for (token, members) in Dictionary(grouping: waiting, by: \.pendingBlock).sorted(by: { $0.key < $1.key }) {
            var lost: [String] = []
            if members.count == members[0].blockMembers {
                var rows: [UInt8] = []
                var count = 0
                for m in members.sorted(by: { $0.path < $1.path }) {
                    if let cut = try memberRows(m, pool) {
                        rows += cut
                        count += m.pendingRows
                    } else {
                        lost.append(m.path)
                    }
                }
                if count > 0 {
                    let data = NativeBlock.block(rowBinary: rows, count: count, columns: RecordRows.binaryColumns)
                    try ClickHouseIngest.insertRecords(client, db, data, token: token)
                }
            }
            // The rows selected in a subquery: in ClickHouse a SELECT's aliases are seen by its
            // WHERE, which would then test the replaced values.
            let version = UInt64(Date().timeIntervalSince1970 * 1_000_000)
            let cleared = "0 AS pending_rows, '' AS pending_block, 0 AS block_members, {version:UInt64} AS version"
            _ = try client.execute(
                """
                INSERT INTO \(db).sources SELECT * REPLACE (
                    if(has({lost:Array(String)}, path), '', segment) AS segment,
                    if(has({lost:Array(String)}, path), 0, rows_done + pending_rows) AS rows_done, \(cleared))
                FROM (SELECT * FROM \(db).sources FINAL WHERE pending_block = {token:String} AND complete = 0)
                """,
                params: [
                    "lost": ClickHouseStatements.array(lost), "token": ClickHouseClient.parameter(token), "version": "\(version)",
                ])
        }
    }

    /// A member's rows in its shared block, cut again from the same read of its file, or nil
    /// when the file no longer gives them.
    func memberRows(_ m: SourceState, _ pool: ChunkPool) throws -> [UInt8]? {
        let st = Ingester.fileInfo(m.path)
        guard m.isSameFile(m.path, size: st?.size) else { return nil }
        var fs = FileSummary(path: m.path)
        guard
            case .opened(let opened) = try OpenedStream.open(
                InputFile(path: m.path), offset: m.segmentOffset, lines: m.segmentLines, st, options: options, &fs)
        else { return nil }
        struct Enough: Error {}
        let rows = RecordRows(encoding: .rowBinary)
        rows.keepRejects = false
        rows.start(path: m.path)
        var out: [UInt8] = []
        var index = 0, taken = 0
        do {
            _ = try ParsedFile.read(opened, pool: pool) { chunk in
                try chunk.items.withUnsafeBufferPointer { items in
                    for i in items.indices {
                        let mark = out.count
                        guard rows.take(items[i], into: &out) else { continue }
                        index += 1
                        if index <= m.rowsDone {
                            out.removeSubrange(mark...)
                            continue
                        }
                        taken += 1
                        if taken == m.pendingRows { throw Enough() }
                    }
                }
            }
        } catch is Enough {}
        return taken == m.pendingRows ? out : nil
    }
}
