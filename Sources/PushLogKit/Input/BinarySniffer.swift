import Foundation

/// Tells a file that is not a text log from its first bytes (after decompression): known binary
/// magic numbers, or NUL bytes at the start (in the first line, within the first 4 KiB). Such a file is refused whole, not
/// stored line by line as thousands of rejects.
enum BinarySniffer {
    static let magics: [(bytes: [UInt8], what: String)] = [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG image"),
        ([0xFF, 0xD8, 0xFF], "JPEG image"),
        (Array("GIF8".utf8), "GIF image"),
        ([0x7F, 0x45, 0x4C, 0x46], "ELF executable"),
        ([0x50, 0x4B, 0x03, 0x04], "zip archive"),
        ([0x50, 0x4B, 0x05, 0x06], "zip archive"),
        (Array("SQLite format 3".utf8) + [0], "SQLite database"),
        (Array("%PDF-".utf8), "PDF document"),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz-compressed file (decompress it first)"),
        ([0x28, 0xB5, 0x2F, 0xFD], "zstd-compressed file (decompress it first)"),
        (Array("BZh".utf8), "bzip2-compressed file (decompress it first)"),
        ([0xCF, 0xFA, 0xED, 0xFE], "Mach-O executable"),
    ]

    /// Why `head` is not a text log ("not a text log (PNG image)"), or nil when it may be one.
    /// `magicOnly` (a format forced by the user) leaves NUL bytes to be rejected line by line.
    static func refusal(_ head: [UInt8], magicOnly: Bool = false) -> String? {
        for (magic, what) in magics where head.count >= magic.count && Array(head[0..<magic.count]) == magic {
            if magic == Array("BZh".utf8) && !(head.count > 3 && head[3] >= 0x31 && head[3] <= 0x39) { continue }
            return "not a text log (\(what))"
        }
        if magicOnly { return nil }
        // NUL bytes at the start: before the first line break in the first 4 KiB. NUL bytes in a
        // later line (a damaged line, the hole a crash leaves in a log) are rejected line by line,
        // so the good lines around them are kept.
        let start = head.prefix(4096)
        guard let firstNUL = start.firstIndex(of: 0) else { return nil }
        let firstNewline = start.firstIndex(of: 0x0A) ?? start.endIndex
        return firstNUL < firstNewline ? "not a text log (binary data: NUL bytes at the start)" : nil
    }
}
