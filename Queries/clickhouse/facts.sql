-- title: the facts pushlog keeps in ClickHouse
-- description: Rebuilds the tables the reports read (kept_*) from the records: responses joined
-- description: to their requests, registrations, per-token and per-device facts, token runs,
-- description: background pushes and the data's span, each computed once by the views of
-- description: schema.sql and stored, so a report reads stored facts instead of recomputing the
-- description: history with FINAL. `pushlog --clickhouse URL ingest` runs it after loading, and a
-- description: report runs it first when the records changed since (kept_state says when).
-- Each statement replaces one table atomically (CREATE OR REPLACE): a report reads the old table
-- or the new one, never a half-built one. The facts are a function of the records after
-- deduplication (FINAL), so rebuilding them any number of times, after a killed or repeated
-- load, gives the same rows: exactly once holds for them as for the records.
-- Run by hand after loading rows yourself:  clickhouse-client --queries-file Queries/clickhouse/facts.sql

-- What the rebuild starts from: the raw row count and the newest `sources` row. Read first, so
-- rows inserted while it runs make the next check see the facts as out of date.
CREATE OR REPLACE TABLE pushlog.kept_pending ENGINE = MergeTree ORDER BY tuple() AS
SELECT (SELECT count() FROM pushlog.records) AS records_rows, (SELECT max(version) FROM pushlog.sources) AS sources_version;

-- Responses, requests and sends (the `sends` view: split responses completed from their request).
CREATE OR REPLACE TABLE pushlog.kept_sends ENGINE = MergeTree ORDER BY time_ms AS SELECT * FROM pushlog.sends;

-- Responses: one APNs answer each, as reports count them.
CREATE OR REPLACE VIEW pushlog.kept_responses AS
SELECT * FROM pushlog.kept_sends WHERE kind IN ('send', 'response') AND status IS NOT NULL;

-- Registrations: token, time and device.
CREATE OR REPLACE TABLE pushlog.kept_registers ENGINE = MergeTree ORDER BY time_ms AS
SELECT token, time_ms, device FROM pushlog.records FINAL WHERE kind = 'register';

CREATE OR REPLACE TABLE pushlog.kept_token_facts ENGINE = MergeTree ORDER BY token AS SELECT * FROM pushlog.token_facts;

-- Background pushes, from the responses just kept.
CREATE OR REPLACE TABLE pushlog.kept_background_pushes ENGINE = MergeTree ORDER BY t AS
WITH rc AS (
  SELECT apns_id, min(time_ms) AS rt FROM pushlog.records FINAL
  WHERE kind = 'receipt' AND receipt = 'background' AND apns_id IS NOT NULL GROUP BY apns_id
)
SELECT intDiv(s.time_ms, 3600000) AS hour, s.token AS token, s.time_ms AS t, s.status AS status, s.priority AS priority,
       coalesce(s.has_alert = 1 OR s.has_sound = 1 OR s.has_badge = 1, 0) AS with_alert,
       s.topic AS topic, s.env AS env, s.apns_id AS apns_id,
       if(s.status = 200 AND s.apns_id IS NOT NULL, rc.rt, NULL) AS rt
FROM pushlog.kept_responses AS s LEFT JOIN rc ON rc.apns_id = s.apns_id
WHERE s.push_type = 'background'
   OR (s.push_type IS NULL AND s.content_available = 1 AND coalesce(s.has_alert, 0) = 0
       AND coalesce(s.has_sound, 0) = 0 AND coalesce(s.has_badge, 0) = 0)
SETTINGS join_use_nulls = 1;

CREATE OR REPLACE TABLE pushlog.kept_token_runs ENGINE = MergeTree ORDER BY start AS SELECT * FROM pushlog.token_runs;

CREATE OR REPLACE TABLE pushlog.kept_token_stale ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM pushlog.token_stale;

CREATE OR REPLACE TABLE pushlog.kept_device_facts ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM pushlog.device_facts;

CREATE OR REPLACE TABLE pushlog.kept_data_span ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM pushlog.data_span;

-- Last: the facts are complete and match the records as kept_pending saw them.
CREATE OR REPLACE TABLE pushlog.kept_state ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM pushlog.kept_pending;
