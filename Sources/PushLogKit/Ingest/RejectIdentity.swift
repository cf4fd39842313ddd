import Foundation

/// The identity of a rejected record, which keeps its position in the file: its bytes' hash mixed with its first line
/// number (and, for a record packed with others in one line, its place there).
enum RejectIdentity {
    static func hash(_ bytes: (Int64, Int64), line: Int, entry: Int = 0) -> (Int64, Int64) {
        (bytes.0 ^ Int64(line) &* -0x61C8_8646_80B5_83EB, bytes.1 ^ Int64(entry) &* 0x5851_F42D_4C95_7F2D)
    }

    /// The identity with the file's context (its first line's hash) mixed in: a copy of the file
    /// has the same first line, another file almost never. Rejects stored before the context was
    /// mixed in have the plain identity (`hash`), which the writer still looks for.
    static func inFile(_ identity: (Int64, Int64), context: (Int64, Int64)) -> (Int64, Int64) {
        (identity.0 ^ Int64(bitPattern: LineHash.rotl(UInt64(bitPattern: context.0), 17)), identity.1 ^ context.1)
    }
}
