/// The columns the writer fills, declared once per record table: the INSERT statement is built
/// from the list and each bind names its column (`SendColumn.topic`), so adding a column is one
/// new case, not a renumbering.
///
/// A case's raw value is its parameter position within a row (1-based; the four identity
/// columns come first in every table), and its SQL name is the case name in snake case
/// (`tokenID` → `token_id`, `timeMs` → `time_ms`).
protocol RecordColumns: CaseIterable, RawRepresentable where RawValue == Int32 {
    /// The record table these columns belong to.
    static var table: String { get }
}

/// The identity every record table starts with: time and line hash, then source and line.
enum IdentityColumn: Int32, CaseIterable {
    case timeMs = 1
    case lineHash, sourceID, line
}

extension RecordColumns {
    /// The table's columns in parameter order, identity first.
    static var names: [String] {
        IdentityColumn.allCases.map { snakeCase("\($0)") } + allCases.map { snakeCase("\($0)") }
    }

    /// `apnsUniqueID` → `apns_unique_id`: an underscore where a capital follows a small letter or digit.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        var previous: Character?
        for c in name {
            if c.isUppercase, let p = previous, p.isLowercase || p.isNumber { out.append("_") }
            out.append(Character(c.lowercased()))
            previous = c
        }
        return out
    }
}

enum SendColumn: Int32, RecordColumns {
    static let table = "sends"
    case kind = 5
    case tokenID, apnsID, envID, topicID, pushTypeID, priority, collapseID, expiration, payloadBytes
    case contentAvailable, mutableContent, hasAlert, hasSound, hasBadge, apsCategory, threadID
    case interruptionLevel, relevance, customKeys, status, reasonID, categoryID, apnsTs, apnsUniqueID
    case latencyMs, attempt, error
}

enum RegisterColumn: Int32, RecordColumns {
    static let table = "registers"
    case tokenID = 5
    case deviceID, userID, envID, appVersionID, osVersionID, authID, topicID
}

enum SettingsColumn: Int32, RecordColumns {
    static let table = "settings"
    case deviceID = 5
    case userID, authID, alertSettingID, soundSettingID, badgeSettingID, lockScreenID, notificationCenterID
}

enum ReceiptColumn: Int32, RecordColumns {
    static let table = "receipts"
    case apnsID = 5
    case deviceID, tokenID, receiptID, resultID
}

enum UnregisterColumn: Int32, RecordColumns {
    static let table = "unregisters"
    case tokenID = 5
    case deviceID, userID
}
