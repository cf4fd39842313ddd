-- title: pushlog records in ClickHouse
-- description: The table `pushlog export` rows go into, and the views facts.sql computes from:
-- description: deduplicated records and the per-token facts a materialized view keeps as rows
-- description: arrive (facts.sql joins the responses to their requests). Idempotent (IF NOT
-- description: EXISTS). The reports read the facts facts.sql keeps from these (per token, per
-- description: device, background pushes, hourly counts), brought up to date after each load.
-- Load:  clickhouse-client --queries-file Queries/clickhouse/schema.sql
--        pushlog export logs/ | clickhouse-client --query 'INSERT INTO pushlog.records FORMAT JSONEachRow'
--        clickhouse-client --queries-file Queries/clickhouse/facts.sql

CREATE DATABASE IF NOT EXISTS pushlog;

-- One row per record, every kind in one table (a record's kind decides which fields it has).
-- Exactly once by identity: a record is its time and the hash of its line, so the same lines
-- loaded twice (a re-delivered file, a retried load) collapse into one row when parts merge;
-- the views below read with FINAL, so reports never see a duplicate even before the merge.
-- ORDER BY (token, time_ms, line_hash): a token's history is one key range (trace, per-token
-- facts); a time range is pruned by the monthly partitions and the time_ms minmax index.
CREATE TABLE IF NOT EXISTS pushlog.records (
    kind LowCardinality(String),               -- send, request, response, register, settings, receipt, unregister
    time_ms Int64,                             -- record time, ms since the epoch (UTC)
    time DateTime64(3, 'UTC') MATERIALIZED fromUnixTimestamp64Milli(time_ms, 'UTC'),
    line_hash FixedString(16),                 -- 64-bit hash of the line (16 hex digits): with time_ms, the identity
    source LowCardinality(String) DEFAULT '',  -- file the record was read from
    line UInt64 DEFAULT 0,
    token String DEFAULT '',                   -- device token in full ('' when the record names none)
    token_malformed UInt8 DEFAULT 0,           -- not hex
    token_masked UInt8 DEFAULT 0,              -- '*' runs (gorush)
    apns_id Nullable(String),
    env LowCardinality(Nullable(String)),
    topic LowCardinality(Nullable(String)),
    push_type LowCardinality(Nullable(String)),
    priority Nullable(Int64),
    collapse_id Nullable(String),
    expiration Nullable(Int64),
    payload_bytes Nullable(Int64),
    content_available Nullable(UInt8),
    mutable_content Nullable(UInt8),
    has_alert Nullable(UInt8),
    has_sound Nullable(UInt8),
    has_badge Nullable(UInt8),
    aps_category LowCardinality(Nullable(String)),
    thread_id Nullable(String),
    interruption_level LowCardinality(Nullable(String)),
    relevance Nullable(Float64),
    custom_keys Nullable(String),
    status Nullable(Int64),                    -- NULL: no APNs response (transport error, or a request)
    reason LowCardinality(Nullable(String)),
    category LowCardinality(Nullable(String)), -- the APNs reason taxonomy, classified by pushlog
    apns_timestamp Nullable(Int64),            -- the timestamp of a 410 body, ms
    apns_unique_id Nullable(String),
    latency_ms Nullable(Float64),
    attempt Nullable(Int64),
    error Nullable(String),
    device Nullable(String),
    user Nullable(String),
    app_version LowCardinality(Nullable(String)),
    os_version LowCardinality(Nullable(String)),
    auth LowCardinality(Nullable(String)),
    alert_setting LowCardinality(Nullable(String)),
    sound_setting LowCardinality(Nullable(String)),
    badge_setting LowCardinality(Nullable(String)),
    lock_screen LowCardinality(Nullable(String)),
    notification_center LowCardinality(Nullable(String)),
    receipt LowCardinality(Nullable(String)),
    result LowCardinality(Nullable(String)),
    INDEX time_range time_ms TYPE minmax GRANULARITY 1,
    INDEX by_apns_id apns_id TYPE bloom_filter GRANULARITY 4,
    INDEX by_device device TYPE bloom_filter GRANULARITY 4
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(time_ms, 'UTC'))
ORDER BY (token, time_ms, line_hash)
-- Retention, as `pushlog prune --before` does it (an example: uncomment and pick the period).
-- TTL toDateTime(fromUnixTimestamp64Milli(time_ms, 'UTC')) + INTERVAL 13 MONTH DELETE
-- A retried insert (same insert_deduplication_token) adds nothing: `pushlog --clickhouse URL
-- ingest` sends each batch with a token made of the file's fingerprint and the batch's number.
-- (ReplicatedMergeTree keeps such a window by default: replicated_deduplication_window.)
-- Logs arrive as many parts (one per block of pushlog's ingest, smaller ones from a follow's
-- rounds), which the server merges again and again: merge_selector_base 30 (the server's default
-- is 5) waits for more parts of a size before merging them, so a row is rewritten fewer times.
-- It is a setting of ClickHouse releases since late 2024; on an older server pushlog's ingest
-- creates the table without it (by hand: remove it here). A table created before keeps its own
-- settings: ALTER TABLE pushlog.records MODIFY SETTING merge_selector_base = 30.
SETTINGS non_replicated_deduplication_window = 10000, merge_selector_base = 30
;

-- Files `pushlog --clickhouse URL ingest` read (`pushlog --clickhouse URL sources`): one row per
-- file and state, the newest (`version`) wins. batches_done: the file's batches inserted so far,
-- so a killed run resumes after them; fingerprint: size and hash of the head, so an unchanged
-- file is skipped without being read.
CREATE TABLE IF NOT EXISTS pushlog.sources (
    path String,
    fingerprint String,
    format LowCardinality(String),
    batches_done UInt64,
    rows_done UInt64,
    complete UInt8,                            -- every batch and the rejects inserted, read to the end
    n_send UInt64, n_request UInt64, n_response UInt64, n_register UInt64, n_settings UInt64,
    n_receipt UInt64, n_unregister UInt64,
    duplicates UInt64, rejects UInt64, skipped UInt64, ignored UInt64, lines UInt64,
    error Nullable(String),
    first_time_ms Nullable(Int64),             -- time span of the records read from it
    last_time_ms Nullable(Int64),
    ingested_ms Int64,
    version UInt64,
    read_offset UInt64 DEFAULT 0,              -- where the next read of a grown file starts
    head_len UInt64 DEFAULT 0,                 -- and the hash of the file's first bytes then
    head_hash String DEFAULT '',
    segment_offset UInt64 DEFAULT 0,           -- where the read in progress started, its line,
    segment_lines UInt64 DEFAULT 0,
    segment_base String DEFAULT '',            -- the counts before it (name=value,...),
    segment String DEFAULT '',                 -- its name (its batches' tokens start with it),
    pending_rows UInt64 DEFAULT 0,             -- and its rows in a block announced and not yet settled,
    pending_block String DEFAULT ''            -- that block's token (it holds several files' last rows)
) ENGINE = ReplacingMergeTree(version)
ORDER BY path;
-- A database an older pushlog created gets the columns of a resumable read.
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS read_offset UInt64 DEFAULT 0;
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS head_len UInt64 DEFAULT 0;
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS head_hash String DEFAULT '';
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS segment_offset UInt64 DEFAULT 0;
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS segment_lines UInt64 DEFAULT 0;
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS segment_base String DEFAULT '';
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS segment String DEFAULT '';
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS pending_rows UInt64 DEFAULT 0;
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS pending_block String DEFAULT '';
-- The runs of repeated records open where the file's last read ended, and where the read in
-- progress started (key,count,line,offset;...): a resumed read numbers repeats on from them.
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS open_runs String DEFAULT '';
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS segment_runs String DEFAULT '';
-- Of the duplicates, those identical to a rotated file's records that all fall in the second the
-- file begins with: taken as one each, since a copy looks the same, and maybe lines of their own.
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS ambiguous UInt64 DEFAULT 0;
-- The version of the file's first row, kept by every later one: `sources` lists files in the
-- order they were first read, as SQLite does (0: a row written before, listed by its version).
ALTER TABLE pushlog.sources ADD COLUMN IF NOT EXISTS first_version UInt64 DEFAULT 0;

-- Every stored record's identity, by time: what an ingest looks up to tell a record already
-- stored (a renamed or re-compressed copy of a file) from a new one before sending it, so a
-- copy adds no row and no fact, and counts as duplicates. Kept by the view below as records
-- arrive; source and line tell a batch's own rows (sent by a run killed before it noted them).
CREATE TABLE IF NOT EXISTS pushlog.record_keys (
    time_ms Int64,
    line_hash FixedString(16),
    kind LowCardinality(String),
    source LowCardinality(String),
    line UInt64
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(time_ms, 'UTC'))
ORDER BY (time_ms, line_hash, kind);
CREATE MATERIALIZED VIEW IF NOT EXISTS pushlog.record_keys_mv TO pushlog.record_keys AS
SELECT time_ms, line_hash, kind, source, line FROM pushlog.records;

-- Files an ingest refused whole (not a log, a binary file), with the fingerprint it refused and
-- why: a file refused again unchanged and for the same reason is not reported again, so cron's
-- mail names it once. Kept apart from `sources`, whose newest row says the records changed.
CREATE TABLE IF NOT EXISTS pushlog.refused (
    path String,
    fingerprint String,
    reason String,
    version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY path;

-- Lines ingest could not read as records (file, line number, reason, the first 512 bytes with
-- secrets redacted), inserted once per file with the file's token, so a re-run adds none.
CREATE TABLE IF NOT EXISTS pushlog.rejects (
    source String,
    line UInt64,
    reason String,
    text String,
    line_hash FixedString(16),
    time_ms Int64                              -- when it was ingested, ms
) ENGINE = ReplacingMergeTree
ORDER BY (source, line, line_hash)
SETTINGS non_replicated_deduplication_window = 10000;

-- Deduplicated records (what `pushlog ingest` would have stored).
CREATE VIEW IF NOT EXISTS pushlog.events AS
SELECT * FROM pushlog.records FINAL;

-- send, request and response records, a split `response` without a token completed from its
-- `request` (same apns_id), as pushlog joins them after each ingest: fields the response lacks
-- come from the request. Only split responses take part in the join: they are the records keyed
-- by the empty token, one key range (every report reads this view, several times; joining every
-- send made it 2-3x slower). The one place the completion is written: `sends_v` (relations.sql)
-- shows these rows in the store's columns.
CREATE OR REPLACE VIEW pushlog.sends AS
SELECT kind, time_ms, line_hash, source, line, token, token_malformed, token_masked, apns_id, env, topic, push_type, priority,
       collapse_id, expiration, payload_bytes, mutable_content, content_available, has_alert, has_sound, has_badge,
       aps_category, thread_id, interruption_level, relevance, custom_keys, attempt,
       status, reason, category, apns_timestamp, apns_unique_id, latency_ms, error
FROM pushlog.records FINAL
WHERE kind IN ('send', 'request', 'response') AND NOT (kind = 'response' AND token = '' AND apns_id IS NOT NULL)
UNION ALL
SELECT e.kind, e.time_ms, e.line_hash, e.source, e.line,
       if(j, req.r.1, e.token), if(j, req.r.19, e.token_malformed), if(j, req.r.20, e.token_masked), e.apns_id,
       if(j, coalesce(e.env, req.r.2), e.env), if(j, coalesce(e.topic, req.r.3), e.topic),
       if(j, coalesce(e.push_type, req.r.4), e.push_type), if(j, coalesce(e.priority, req.r.5), e.priority),
       if(j, coalesce(e.collapse_id, req.r.6), e.collapse_id), if(j, coalesce(e.expiration, req.r.7), e.expiration),
       if(j, coalesce(e.payload_bytes, req.r.8), e.payload_bytes),
       if(j, coalesce(e.mutable_content, req.r.10), e.mutable_content),
       if(j, coalesce(e.content_available, req.r.9), e.content_available), if(j, coalesce(e.has_alert, req.r.11), e.has_alert),
       if(j, coalesce(e.has_sound, req.r.12), e.has_sound), if(j, coalesce(e.has_badge, req.r.13), e.has_badge),
       if(j, coalesce(e.aps_category, req.r.14), e.aps_category), if(j, coalesce(e.thread_id, req.r.15), e.thread_id),
       if(j, coalesce(e.interruption_level, req.r.16), e.interruption_level), if(j, coalesce(e.relevance, req.r.21), e.relevance),
       if(j, coalesce(e.custom_keys, req.r.17), e.custom_keys), if(j, coalesce(e.attempt, req.r.18), e.attempt),
       e.status, e.reason, e.category, e.apns_timestamp, e.apns_unique_id, e.latency_ms, e.error
FROM (SELECT * FROM pushlog.records FINAL WHERE token = '' AND kind = 'response' AND apns_id IS NOT NULL) AS e
LEFT JOIN (
  SELECT apns_id, any(tuple(token, env, topic, push_type, priority, collapse_id, expiration, payload_bytes,
                            content_available, mutable_content, has_alert, has_sound, has_badge, aps_category,
                            thread_id, interruption_level, custom_keys, attempt, token_malformed, token_masked,
                            relevance)) AS r
  FROM pushlog.records FINAL
  WHERE kind = 'request' AND apns_id IS NOT NULL
    AND apns_id IN (SELECT apns_id FROM pushlog.records WHERE token = '' AND kind = 'response' AND apns_id IS NOT NULL)
  GROUP BY apns_id
) AS req ON req.apns_id = e.apns_id
ARRAY JOIN [req.apns_id IS NOT NULL] AS j
SETTINGS join_use_nulls = 1;

-- Responses: one APNs answer each (send or response records with a status), as reports count them.
CREATE OR REPLACE VIEW pushlog.responses AS
SELECT * FROM pushlog.sends WHERE kind IN ('send', 'response') AND status IS NOT NULL;

-- Per token (pushlog's token_facts), kept by ClickHouse as records arrive: a materialized view
-- adds each inserted block's per-token states to token_facts_state, and parts merge them. Every
-- state is a min, max, argMin or argMax, so a record inserted twice (a rotated copy of a file, a
-- file that grew and is read again) changes nothing, and the table can be refilled from records
-- at any time (INSERT INTO pushlog.token_facts_state SELECT ... as the view's query does).
CREATE TABLE IF NOT EXISTS pushlog.token_facts_state (
    token String,
    first_reg SimpleAggregateFunction(min, Nullable(Int64)),
    last_reg SimpleAggregateFunction(max, Nullable(Int64)),
    latest AggregateFunction(argMaxIf, Tuple(Nullable(String), Nullable(String), Nullable(String), Nullable(String)), Int64, UInt8),
    first_410 SimpleAggregateFunction(min, Nullable(Int64)),
    first_410_ts AggregateFunction(argMinIf, Tuple(Nullable(Int64)), Int64, UInt8),
    malformed SimpleAggregateFunction(max, UInt8)
) ENGINE = AggregatingMergeTree
ORDER BY token;

CREATE MATERIALIZED VIEW IF NOT EXISTS pushlog.token_facts_mv TO pushlog.token_facts_state AS
SELECT token,
       minIf(toNullable(time_ms), kind = 'register') AS first_reg,
       maxIf(toNullable(time_ms), kind = 'register') AS last_reg,
       argMaxIfState(tuple(CAST(env, 'Nullable(String)'), CAST(app_version, 'Nullable(String)'), device, user), time_ms,
                     toUInt8(kind = 'register')) AS latest,
       minIf(toNullable(time_ms), kind IN ('send', 'response') AND coalesce(status, 0) = 410) AS first_410,
       argMinIfState(tuple(apns_timestamp), time_ms, toUInt8(kind IN ('send', 'response') AND coalesce(status, 0) = 410)) AS first_410_ts,
       max(token_malformed) AS malformed
FROM pushlog.records WHERE token <> '' GROUP BY token;

-- Per token: first and latest registration, the env, app version, device and user of the latest
-- one, the first 410 response and its APNs timestamp, malformed. From token_facts_state, plus
-- the 410s of split responses (no token of their own: it comes from their request by apns_id),
-- read at query time from the records keyed by the empty token.
CREATE OR REPLACE VIEW pushlog.token_facts AS
WITH split AS (
  SELECT apns_id, time_ms, apns_timestamp FROM pushlog.records FINAL
  WHERE token = '' AND kind = 'response' AND status = 410 AND apns_id IS NOT NULL
), split_410 AS (
  SELECT q.req_token AS token, min(s.time_ms) AS first_410, argMin(tuple(s.apns_timestamp), s.time_ms) AS f410,
         max(q.req_malformed) AS malformed
  FROM split AS s INNER JOIN (
    SELECT apns_id, any(token) AS req_token, max(token_malformed) AS req_malformed FROM pushlog.records FINAL
    WHERE kind = 'request' AND apns_id IN (SELECT apns_id FROM split) AND token <> '' GROUP BY apns_id
  ) AS q ON q.apns_id = s.apns_id
  GROUP BY q.req_token
), kept AS (
  SELECT token, min(first_reg) AS first_reg, max(last_reg) AS last_reg, argMaxIfMerge(latest) AS latest,
         min(first_410) AS first_410, argMinIfMerge(first_410_ts) AS f410, max(malformed) AS malformed
  FROM pushlog.token_facts_state GROUP BY token
)
SELECT token, min(u_first_reg) AS first_reg, max(u_last_reg) AS last_reg,
       argMax(latest, kept).1 AS reg_env, argMax(latest, kept).2 AS reg_app_version, argMax(latest, kept).3 AS reg_device,
       argMax(latest, kept).4 AS reg_user,
       min(u_first_410) AS first_410, argMin(f410, coalesce(u_first_410, toInt64(9000000000000000000))).1 AS first_410_ts,
       max(u_malformed) AS malformed
FROM (
  SELECT token, 1 AS kept, first_reg AS u_first_reg, last_reg AS u_last_reg, latest, first_410 AS u_first_410, f410,
         malformed AS u_malformed
  FROM kept
  UNION ALL
  SELECT token, 0, NULL, NULL, CAST((NULL, NULL, NULL, NULL), 'Tuple(Nullable(String), Nullable(String), Nullable(String), Nullable(String))'),
         first_410, f410, malformed FROM split_410
)
GROUP BY token;

-- A background push: push_type background, or no push_type with content-available and no alert,
-- sound or badge (what pushlog counts against the background budget).
CREATE FUNCTION IF NOT EXISTS pushlog_is_background AS (push_type, content_available, has_alert, has_sound, has_badge) ->
  push_type = 'background' OR (push_type IS NULL AND content_available = 1 AND coalesce(has_alert, 0) = 0
    AND coalesce(has_sound, 0) = 0 AND coalesce(has_badge, 0) = 0);
-- '2026-11-02T14:00:00.120Z', '2026-11-02T14:00:00Z' (no fraction when it is zero, as pushlog writes it)
CREATE FUNCTION IF NOT EXISTS pushlog_rfc3339 AS (t) -> concat(
  formatDateTime(fromUnixTimestamp64Milli(toInt64(t), 'UTC'), '%Y-%m-%dT%H:%i:%S', 'UTC'),
  if(toInt64(t) % 1000 = 0, '', concat('.', leftPad(toString(toInt64(t) % 1000), 3, '0'))), 'Z');
-- The range in ms; DateTime64(3)'s bounds (1900-01-01, 2299-12-31) stand for an open end.
CREATE FUNCTION IF NOT EXISTS pushlog_ms AS (d) -> if(toUnixTimestamp64Milli(d) <= -2208988800000, toInt64(-9000000000000000000),
  if(toUnixTimestamp64Milli(d) >= 10413791999000, toInt64(9000000000000000000), toUnixTimestamp64Milli(d)));
-- Apple Push Notifications Console delivery metrics (daily aggregates per push type and status),
-- what the reconcile report compares the responses with. A later row for the same day, push type
-- and status replaces the earlier one (read FINAL), as a re-ingested export does on SQLite.
CREATE TABLE IF NOT EXISTS pushlog.apple_metrics (
    day String,                                -- 2026-11-02 (UTC)
    push_type LowCardinality(String),
    status LowCardinality(String),             -- Received, Delivered, Discarded (Disabled), ...
    count Int64,
    source LowCardinality(String) DEFAULT ''   -- file it was read from
) ENGINE = ReplacingMergeTree
ORDER BY (day, push_type, status);
