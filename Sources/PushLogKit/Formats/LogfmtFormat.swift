/// logfmt lines: `key=value key="quoted value" flag` with the canonical keys and aliases.
final class LogfmtFormat: LineFormat {
    let name = "logfmt"
    init() {}

    /// Splits a logfmt line into (key, value) pairs; values unquoted and unescaped.
    static func pairs(_ line: ByteSlice) -> [(String, String)]? {
        var out: [(String, String)] = []
        var i = 0
        let n = line.count
        while i < n {
            while i < n && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
            if i >= n { break }
            let ks = i
            while i < n && line[i] != 0x3D && line[i] != 0x20 && line[i] != 0x09 { i += 1 }
            let key = String(decoding: line[ks..<i], as: UTF8.self)
            if key.isEmpty { return nil }
            if i >= n || line[i] != 0x3D { out.append((key, "true")); continue }
            i += 1
            if i < n && line[i] == 0x22 {
                i += 1
                var v: [UInt8] = []
                var closed = false
                while i < n {
                    let c = line[i]
                    if c == 0x5C && i + 1 < n {
                        let e = line[i + 1]
                        v.append(e == 0x6E ? 0x0A : e == 0x74 ? 0x09 : e)
                        i += 2
                        continue
                    }
                    if c == 0x22 { closed = true; i += 1; break }
                    v.append(c)
                    i += 1
                }
                if !closed { return nil }
                out.append((key, String(decoding: v, as: UTF8.self)))
            } else {
                let vs = i
                while i < n && line[i] != 0x20 && line[i] != 0x09 { i += 1 }
                out.append((key, String(decoding: line[vs..<i], as: UTF8.self)))
            }
        }
        return out
    }

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        guard let pairs = LogfmtFormat.pairs(line), !pairs.isEmpty else { return sink.reject(.notLogfmt) }
        let builder = sink.builder
        builder.reset()
        for (k, v) in pairs { builder.assign(key: k, string: v) }
        if let r = builder.finish(lineTime: lineTime) { return sink.reject(r) }
        sink.record()
    }
}
