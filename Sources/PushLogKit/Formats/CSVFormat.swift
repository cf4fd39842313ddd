/// CSV with a header row naming the canonical keys (RFC 4180: quoted fields with commas,
/// doubled quotes and line breaks).
final class CSVFormat: LineFormat {
    let name = "csv"
    var header: [Field?]?
    var headerNames: [String] = []
    let pending = RecordBuffer()
    var pendingFirstLine = 0

    init() {}

    func finish(into sink: RecordSink) {
        guard !pending.isEmpty else { return }
        sink.reject(.csvFieldNotClosedAtEnd, RecordSpan(bytes: ByteSlice(rebasing: pending.slice.prefix(512)), firstLine: pendingFirstLine))
        pending.reset()
    }

    /// Splits one record; nil when a quoted field is still open at the end.
    static func fields(_ b: ByteSlice) -> [String]? {
        var out: [String] = []
        var cur: [UInt8] = []
        var i = 0
        var quoted = false
        var wasQuoted = false
        while i < b.count {
            let c = b[i]
            if quoted {
                if c == 0x22 {
                    if i + 1 < b.count && b[i + 1] == 0x22 { cur.append(0x22); i += 2; continue }
                    quoted = false
                } else {
                    cur.append(c)
                }
            } else if c == 0x22 && cur.isEmpty && !wasQuoted {
                quoted = true
                wasQuoted = true
            } else if c == 0x2C {
                out.append(String(decoding: cur, as: UTF8.self))
                cur.removeAll(keepingCapacity: true)
                wasQuoted = false
            } else {
                cur.append(c)
            }
            i += 1
        }
        if quoted { return nil }
        out.append(String(decoding: cur, as: UTF8.self))
        return out
    }

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        var record = line
        if !pending.isEmpty {
            pending.append(0x0A)
            pending.append(line)
            if pending.count > LineReader.maxLineBytes {
                pending.reset()
                return sink.reject(.csvFieldNeverClosed)
            }
            record = pending.slice
        }
        guard let cells = CSVFormat.fields(record) else {
            if pending.isEmpty { pending.append(line); pendingFirstLine = number }
            return  // pending: a quoted field goes on in the next line
        }
        var span: RecordSpan?
        if !pending.isEmpty {
            // The joined record stays in `pending` until the next line arrives.
            span = RecordSpan(bytes: pending.slice, firstLine: pendingFirstLine)
            pending.reset()
        }
        guard let header else {
            headerNames = cells.map { $0.trimmingCharacters(in: .whitespaces) }
            self.header = headerNames.map { sink.builder.keys.field($0) }
            if !(self.header!.contains { $0 == .time }) && !(self.header!.contains { $0 == .timestamp }) {
                return sink.reject(.csvHeaderWithoutTime(header: headerNames.joined(separator: ",")), span)
            }
            return sink.ignore()
        }
        if cells.count != header.count {
            return sink.reject(.csvFieldCount(row: cells.count, header: header.count), span)
        }
        let builder = sink.builder
        builder.reset()
        for (k, v) in zip(header, cells) where !v.isEmpty {
            if let k { builder.assign(k, string: v) }
        }
        if let r = builder.finish(lineTime: lineTime) { return sink.reject(r, span) }
        sink.record(span)
    }
}

import Foundation
