-- title: Token churn
-- description: How fast device tokens change (rotations, new tokens, tokens APNs retired) and
-- description: whether the provider kept sending to a device's old token after it registered a new one.
-- records: registrations
-- param: since time  start of the range
-- param: until time  end of the range, exclusive
-- param: by enum(hour,day,week) = week  the time bucket of by_bucket
-- param: topic text  only responses for this topic (superseded_sends; the registration columns are then empty)
-- param: env text  only responses sent to this env (likewise)
-- column: bucket key
-- column: active_devices count better=none needs=registrations,device
-- column: new_tokens count better=none needs=registrations
-- column: rotations,devices_rotated count needs=registrations,device
-- column: rotation_rate rate needs=registrations,device  Devices that rotated their token
-- column: tokens_retired count needs=gone_token
-- column: superseded_sends count unit=sends needs=registrations,device,token  Sends to replaced tokens

-- section: by_bucket
-- active_devices: devices with a registration in the bucket. new_tokens: tokens whose first
-- registration is in the bucket. rotations: registrations whose token differs from the same
-- device's previous registration (history before the range counts). tokens_retired: tokens
-- whose first 410 is in the bucket. superseded_sends: responses to a token whose device
-- registered a different token after the token's own last registration and before the send.
-- Additive across buckets (sum to the summary): new_tokens, rotations, tokens_retired,
-- superseded_sends. Distinct counts, not additive: active_devices, devices_rotated (a device
-- active in two buckets counts in both; once in the summary). rotation_rate is a ratio.
-- Under --topic/--env only superseded_sends can be split (registrations, token runs and 410
-- facts are per token and device, not per topic): the other columns are empty (null), not unfiltered.
WITH active_by_bucket AS (
  -- Distinct (device, bucket) pairs first (through the covering index registers_device), then
  -- counted per bucket: a sort of the pairs, not of every registration.
  SELECT b, count(*) AS active_devices
  FROM (SELECT DISTINCT device_id, bucket_start(time_ms, :by) AS b FROM registers
        WHERE device_id IS NOT NULL AND time_ms >= :since AND time_ms < :until)
  GROUP BY b
), rotations_by_bucket AS (
  -- token_runs (derived at ingest) holds each device's runs of one token: a run that was
  -- superseded ends with a rotation, at the next run's first registration.
  SELECT bucket_start(superseded_at, :by) AS b, count(*) AS rotations, count(DISTINCT device_id) AS devices_rotated
  FROM token_runs WHERE superseded_at >= :since AND superseded_at < :until GROUP BY b
), new_tokens_by_bucket AS (
  SELECT bucket_start(first_reg, :by) AS b, count(*) AS new_tokens
  FROM token_facts WHERE first_reg >= :since AND first_reg < :until GROUP BY b
), retired_by_bucket AS (
  SELECT bucket_start(first_410, :by) AS b, count(*) AS tokens_retired
  FROM token_facts WHERE first_410 >= :since AND first_410 < :until GROUP BY b
), superseded_by_bucket AS (
  -- token_stale holds, per token, the intervals in which it was superseded (derived at ingest).
  SELECT bucket_start(s.time_ms, :by) AS b, count(*) AS superseded_sends
  FROM token_stale z CROSS JOIN responses s ON s.token_id = z.token_id AND s.time_ms > z.stale_from AND s.time_ms < z.stale_until
  WHERE s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  GROUP BY b
), buckets AS (
  SELECT b FROM active_by_bucket UNION SELECT b FROM rotations_by_bucket UNION SELECT b FROM new_tokens_by_bucket
  UNION SELECT b FROM retired_by_bucket UNION SELECT b FROM superseded_by_bucket
)
SELECT bucket(k.b, :by) AS bucket,
       CASE WHEN f.whole THEN coalesce(a.active_devices, 0) END AS active_devices,
       CASE WHEN f.whole THEN coalesce(n.new_tokens, 0) END AS new_tokens,
       CASE WHEN f.whole THEN coalesce(o.rotations, 0) END AS rotations,
       CASE WHEN f.whole THEN coalesce(o.devices_rotated, 0) END AS devices_rotated,
       CASE WHEN f.whole THEN round(1.0 * coalesce(o.devices_rotated, 0) / nullif(a.active_devices, 0), 6) END AS rotation_rate,
       CASE WHEN f.whole THEN coalesce(r.tokens_retired, 0) END AS tokens_retired,
       coalesce(x.superseded_sends, 0) AS superseded_sends
FROM buckets k CROSS JOIN (SELECT :topic IS NULL AND :env IS NULL AS whole) f
LEFT JOIN active_by_bucket a ON a.b = k.b LEFT JOIN rotations_by_bucket o ON o.b = k.b LEFT JOIN new_tokens_by_bucket n ON n.b = k.b
LEFT JOIN retired_by_bucket r ON r.b = k.b LEFT JOIN superseded_by_bucket x ON x.b = k.b
ORDER BY k.b;

-- section: summary
-- The same figures over the whole range (devices counted once); empty under --topic/--env but superseded_sends.
WITH active AS (
  -- One probe of the (device_id, time_ms) index per known device, instead of sorting every registration.
  SELECT count(*) AS active_devices FROM devices d
  WHERE EXISTS (SELECT 1 FROM registers r WHERE r.device_id = d.id AND r.time_ms >= :since AND r.time_ms < :until)
), rotated AS (
  SELECT count(*) AS rotations, count(DISTINCT device_id) AS devices_rotated
  FROM token_runs WHERE superseded_at >= :since AND superseded_at < :until
)
SELECT CASE WHEN f.whole THEN a.active_devices END AS active_devices,
       CASE WHEN f.whole THEN (SELECT count(*) FROM token_facts WHERE first_reg >= :since AND first_reg < :until) END AS new_tokens,
       CASE WHEN f.whole THEN o.rotations END AS rotations, CASE WHEN f.whole THEN o.devices_rotated END AS devices_rotated,
       CASE WHEN f.whole THEN round(1.0 * o.devices_rotated / nullif(a.active_devices, 0), 6) END AS rotation_rate,
       CASE WHEN f.whole THEN (SELECT count(*) FROM token_facts WHERE first_410 >= :since AND first_410 < :until) END AS tokens_retired,
       (SELECT count(*) FROM token_stale z CROSS JOIN responses s
          ON s.token_id = z.token_id AND s.time_ms > z.stale_from AND s.time_ms < z.stale_until
        WHERE s.time_ms >= :since AND s.time_ms < :until
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)) AS superseded_sends
FROM active a, rotated o, (SELECT :topic IS NULL AND :env IS NULL AS whole) f;
