import Foundation

/// The first and last record times of every file `sources` holds, for `Lineage` (which files
/// of a rotation set a file's lines continue): read once per run, each file's updated as the
/// run reads it. Ids are this run's own (a `Lineage.Sibling` is told apart by its id).
final class SourceSpans {
    private(set) var byPath: [String: (id: Int64, first: Int64?, last: Int64?)] = [:]

    func set(_ path: String, first: Int64?, last: Int64?) {
        let id = byPath[path]?.id ?? Int64(byPath.count + 1)
        byPath[path] = (id, first, last)
    }

    /// Widens `path`'s span by a read's record times.
    func widen(_ path: String, first: Int64?, last: Int64?) {
        let old = byPath[path]
        set(
            path, first: [old?.first ?? nil, first].compactMap { $0 }.min(),
            last: [old?.last ?? nil, last].compactMap { $0 }.max())
    }

    /// The other files of `path`'s rotation set.
    func siblings(of path: String) -> [Lineage.Sibling] {
        let stem = RotationName(path).stem
        return byPath.compactMap { other, s in
            other != path && RotationName(other).stem == stem ? Lineage.Sibling(id: s.id, firstTime: s.first, lastTime: s.last) : nil
        }
    }

    /// The id of the file at `path`, when `sources` has it.
    func id(_ path: String) -> Int64? { byPath[path]?.id }
}

/// The records the server stores, as `Lineage` asks for them: which file stored a record. The
/// blocks this run sent and the server has not confirmed are waited for (`confirm`) before the
/// first question, since a rotated set's files are read one after the other.
final class StoredOnServer: StoredRecordSource {
    let ingest: ClickHouseIngest
    let confirm: () throws -> Void
    /// The path whose records stored before this read are the previous file's there, if any.
    let previousAt: String?
    private var confirmed = false

    init(_ ingest: ClickHouseIngest, previousAt: String?, confirm: @escaping () throws -> Void) {
        self.ingest = ingest
        self.previousAt = previousAt
        self.confirm = confirm
    }

    func storedSource(of e: Event, lineHash: Int64) throws -> Int64? {
        if !confirmed {
            try confirm()
            confirmed = true
        }
        let table = EncodedRows.RowKey.table(e.kind!)
        let t = try ingest.client.table(
            "stored",
            sql: """
                SELECT source FROM \(ingest.db).record_keys
                WHERE time_ms = {t:Int64} AND line_hash = {h:String} AND kind IN {kinds:Array(String)} LIMIT 1
                """,
            params: [
                "t": "\(e.time!)", "h": ClickHouseIngest.hex(UInt64(bitPattern: lineHash)),
                "kinds": ClickHouseStatements.array(ClickHouseIngest.kinds(tables: 1 << table)),
            ])
        guard case .text(let source) = t.rows.first?.first else { return nil }
        if source == previousAt { return ClickHouseIngest.previousFile }
        return ingest.sourceSpans.id(source) ?? -1
    }
}

extension ClickHouseIngest {
    /// Reads every file's record times (`SourceSpans`).
    func loadSourceSpans() throws {
        let t = try client.table("spans", sql: "SELECT path, first_time_ms, last_time_ms FROM \(db).sources FINAL")
        for row in t.rows {
            guard case .text(let path) = row[0] else { continue }
            func time(_ v: SQLValue) -> Int64? { if case .int(let n) = v { n } else { nil } }
            sourceSpans.set(path, first: time(row[1]), last: time(row[2]))
        }
    }

    /// The keys of a read's base that hold the span of the file its path held before (the
    /// records stored under the path, which a rotation renamed away), and the id it goes by.
    static let previousFirst = "previous_first_ms", previousLast = "previous_last_ms"
    static let previousFile: Int64 = -2

    /// How a read of `path` identifies its records: counted on from the files of its rotation set
    /// that ended before it began, and from the file the path held before (`Lineage`), or nil when
    /// there is none. `base` holds the counts of the reads before this one (their first record
    /// time) and the previous file's span.
    func identities(_ path: String, base: String, confirm: @escaping () throws -> Void) -> Identities? {
        let values = ClickHouseIngest.values(ofBase: base)
        var siblings = sourceSpans.siblings(of: path)
        let previous = values[Self.previousFirst].flatMap { first in values[Self.previousLast].map { (first, $0) } }
        if let (first, last) = previous { siblings.append(Lineage.Sibling(id: Self.previousFile, firstTime: first, lastTime: last)) }
        guard !siblings.isEmpty else { return nil }
        return Identities(
            lineage: Lineage(siblings: siblings, firstTime: values["first_time_ms"]),
            stored: StoredOnServer(self, previousAt: previous == nil ? nil : path, confirm: confirm))
    }
}

/// A read's `Lineage` and where it looks stored records up.
final class Identities {
    var lineage: Lineage
    let stored: StoredOnServer

    init(lineage: Lineage, stored: StoredOnServer) {
        self.lineage = lineage
        self.stored = stored
    }

    /// `item` as it is stored: its identity counted on from its predecessors' where they stored it.
    func identify(_ item: ParsedItem) throws -> (Int64, Int64) { try lineage.identity(item, stored) }
}
