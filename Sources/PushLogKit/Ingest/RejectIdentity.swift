import Foundation

/// The identity of a rejected record, which keeps its position in the file: its bytes' hash mixed with its first line
/// number (and, for a record packed with others in one line, its place there).
enum RejectIdentity {
    static func hash(_ bytes: (Int64, Int64), line: Int, entry: Int = 0) -> (Int64, Int64) {
        (bytes.0 ^ Int64(line) &* -0x61C8_8646_80B5_83EB, bytes.1 ^ Int64(entry) &* 0x5851_F42D_4C95_7F2D)
    }
}
