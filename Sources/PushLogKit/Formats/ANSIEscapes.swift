import Foundation

/// Terminal escape sequences in log text: `docker run -t`, `script` and older gorush versions
/// colour the level and the platform (`ESC[97;44m ios ESC[0m`). Every text format reads the
/// line without them, so a coloured iOS line is still an iOS line.
enum ANSIEscapes {
    /// True when the line has an ESC byte (a vectorised scan; most lines have none).
    @inline(__always) static func present(_ b: ByteSlice) -> Bool {
        guard let p = b.baseAddress, b.count > 0 else { return false }
        return memchr(p, 0x1B, b.count) != nil
    }

    /// Copies `b` into `out` without its CSI sequences (`ESC [` parameters, intermediates, a
    /// final byte: SGR colours, cursor moves, erases) and returns the cleaned bytes.
    static func strip(_ b: ByteSlice, into out: RecordBuffer) -> ByteSlice {
        out.reset()
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c == 0x1B && i + 1 < n && b[i + 1] == 0x5B {
                var j = i + 2
                while j < n && b[j] >= 0x30 && b[j] <= 0x3F { j += 1 }  // parameters
                while j < n && b[j] >= 0x20 && b[j] <= 0x2F { j += 1 }  // intermediates
                if j < n && b[j] >= 0x40 && b[j] <= 0x7E { i = j + 1; continue }
            }
            out.append(c)
            i += 1
        }
        return out.slice
    }

    /// The same for a string (format detection).
    static func strip(_ s: String) -> String {
        guard s.utf8.contains(0x1B) else { return s }
        let buf = RecordBuffer()
        var s = s
        return s.withUTF8 { String(decoding: strip($0, into: buf), as: UTF8.self) }
    }
}
