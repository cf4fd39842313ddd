extension Event {
    /// Applies `move` to every string slice (used to move an event's bytes into storage that
    /// outlives the line it was parsed from).
    mutating func rebase(_ move: (ByteSlice?) -> ByteSlice?) {
        token = move(token); apnsID = move(apnsID); env = move(env); topic = move(topic)
        pushType = move(pushType); collapseID = move(collapseID); category = move(category)
        threadID = move(threadID); interruptionLevel = move(interruptionLevel); customKeys = move(customKeys)
        reason = move(reason); apnsUniqueID = move(apnsUniqueID); error = move(error)
        device = move(device); user = move(user); appVersion = move(appVersion); osVersion = move(osVersion)
        auth = move(auth); receipt = move(receipt); result = move(result); alertSetting = move(alertSetting)
        soundSetting = move(soundSetting); badgeSetting = move(badgeSetting); lockScreen = move(lockScreen)
        notificationCenter = move(notificationCenter)
    }
}
