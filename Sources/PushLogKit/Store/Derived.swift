/// Facts derived from the records after each ingest, kept in tables so reports stay fast.
public enum Derived {
    /// Joins split `response` records to their `request` by apns_id (whichever arrived first).
    public static func refresh(_ db: Database) throws {
        try db.exec("""
            UPDATE sends SET
              token_id = coalesce(sends.token_id, r.token_id), env = coalesce(sends.env, r.env),
              topic = coalesce(sends.topic, r.topic), push_type = coalesce(sends.push_type, r.push_type),
              priority = coalesce(sends.priority, r.priority), collapse_id = coalesce(sends.collapse_id, r.collapse_id),
              expiration = coalesce(sends.expiration, r.expiration), payload_bytes = coalesce(sends.payload_bytes, r.payload_bytes),
              content_available = coalesce(sends.content_available, r.content_available),
              mutable_content = coalesce(sends.mutable_content, r.mutable_content),
              has_alert = coalesce(sends.has_alert, r.has_alert), has_sound = coalesce(sends.has_sound, r.has_sound),
              has_badge = coalesce(sends.has_badge, r.has_badge), aps_category = coalesce(sends.aps_category, r.aps_category),
              thread_id = coalesce(sends.thread_id, r.thread_id),
              interruption_level = coalesce(sends.interruption_level, r.interruption_level),
              custom_keys = coalesce(sends.custom_keys, r.custom_keys), attempt = coalesce(sends.attempt, r.attempt)
            FROM (SELECT apns_id, token_id, env, topic, push_type, priority, collapse_id, expiration, payload_bytes,
                         content_available, mutable_content, has_alert, has_sound, has_badge, aps_category, thread_id,
                         interruption_level, custom_keys, attempt
                  FROM sends WHERE kind = 1) AS r
            WHERE sends.kind = 2 AND sends.token_id IS NULL AND r.apns_id = sends.apns_id;
            """)
    }
}
