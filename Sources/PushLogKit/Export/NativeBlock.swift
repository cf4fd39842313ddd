import Foundation

/// ClickHouse's Native format: one block of columns, each column's values one after another. The
/// server reads a block as whole columns, where it parses RowBinary field by field, so the same
/// rows cost it several times less to insert. `RecordRows` writes rows; a batch of them is
/// turned into one block here before it is sent.
///
/// A block is: the number of columns and of rows (LEB128 varints), then per column its name and
/// type (length-prefixed strings) and its values. A `Nullable` column sends its null map (one
/// byte per row, 1 = NULL) before its values, with a default value standing in for each NULL.
/// `LowCardinality` columns are sent as their plain type: the server converts on insert.
enum NativeBlock {
    /// How a value is laid out in RowBinary and in Native alike.
    enum Layout {
        case string  // varint length, then the bytes
        case fixed(Int)  // that many bytes (little-endian numbers, FixedString)
    }

    struct Column {
        let name: String
        /// The type named in the block's header (`String`, `Nullable(Int64)`, ...).
        let type: String
        let layout: Layout
        let nullable: Bool
    }

    /// The block holding `count` rows of `rows`, RowBinary in `columns`' order. Two passes over
    /// the rows: the first measures each column, the second copies every value to its place, so
    /// the block is built in one buffer of its final size.
    static func block(rowBinary rows: [UInt8], count: Int, columns: [Column]) -> Data {
        var header: [[UInt8]] = []
        for column in columns {
            var h: [UInt8] = []
            RecordRows.appendBinary(column.name.utf8, &h)
            RecordRows.appendBinary(column.type.utf8, &h)
            header.append(h)
        }
        var sizes = [Int](repeating: 0, count: columns.count)
        sizes.withUnsafeMutableBufferPointer { size in
            walk(rows, count: count, columns) { c, _, value in size[c] += value.count }
        }
        // Where each column's null map and values start.
        var start: [UInt8] = []
        RecordRows.appendVarint(UInt64(columns.count), &start)
        RecordRows.appendVarint(UInt64(count), &start)
        var nullsAt = [Int](repeating: 0, count: columns.count), valuesAt = nullsAt
        var total = start.count
        for c in columns.indices {
            total += header[c].count
            nullsAt[c] = total
            if columns[c].nullable { total += count }
            valuesAt[c] = total
            total += sizes[c]
        }
        var block = Data(count: total)
        let nullable = columns.map(\.nullable)
        block.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: UInt8.self)
            var at = 0
            func put(_ bytes: [UInt8]) {
                for b in bytes {
                    out[at] = b
                    at += 1
                }
            }
            put(start)
            for c in columns.indices {
                put(header[c])
                at += (columns[c].nullable ? count : 0) + sizes[c]
            }
            nullsAt.withUnsafeMutableBufferPointer { nullAt in
                valuesAt.withUnsafeMutableBufferPointer { valueAt in
                    walk(rows, count: count, columns) { c, isNull, value in
                        if nullable[c] {
                            out[nullAt[c]] = isNull
                            nullAt[c] += 1
                        }
                        if let from = value.base.baseAddress, !value.isEmpty {
                            (out.baseAddress! + valueAt[c]).update(from: from + value.startIndex, count: value.count)
                        }
                        valueAt[c] += value.count
                    }
                }
            }
        }
        return block
    }

    /// Calls `visit` with each value of each row: its column, its NULL flag and its bytes in the
    /// block (a NULL's default: an empty string or zeros).
    private static func walk(
        _ rows: [UInt8], count: Int, _ columns: [Column], _ visit: (Int, UInt8, UnsafeBufferPointer<UInt8>.SubSequence) -> Void
    ) {
        let zeros = [UInt8](repeating: 0, count: 16)
        // Each column's layout as plain numbers (a string's width is -1): reading a `Column` per
        // value would retain its two strings each time, most of this loop's cost.
        let widths = columns.map { column -> Int in
            if case .fixed(let width) = column.layout { return width }
            return -1
        }
        let nullable = columns.map(\.nullable)
        zeros.withUnsafeBufferPointer { zero in
            rows.withUnsafeBufferPointer { p in
                var at = 0
                for _ in 0..<count {
                    for c in 0..<widths.count {
                        let width = widths[c]
                        if nullable[c] {
                            at += 1
                            if p[at - 1] != 0 {
                                visit(c, 1, zero[0..<(width < 0 ? 1 : width)])  // a string's default: length 0
                                continue
                            }
                        }
                        let first = at
                        if width < 0 {
                            var length = 0, shift = 0
                            while true {
                                let byte = p[at]
                                at += 1
                                length |= Int(byte & 0x7f) << shift
                                shift += 7
                                if byte < 0x80 { break }
                            }
                            at += length
                        } else {
                            at += width
                        }
                        visit(c, 0, p[first..<at])
                    }
                }
                precondition(at == p.count, "a RowBinary batch that does not match its columns")
            }
        }
    }
}
