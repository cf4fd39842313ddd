-- title: Token churn
-- description: How fast device tokens change (rotations, new tokens, tokens APNs retired) and
-- description: whether the provider kept sending to a device's old token after it registered a new one.
-- description: ClickHouse version of Queries/churn.sql (same sections, columns and labels).
-- param: since  start of the range, {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: by enum(hour,day,week) = week  {by:String}
-- param: topic  only responses for this topic (superseded_sends; the registration columns are then empty), {topic:String}; '' = all
-- param: env  only responses sent to this env (likewise), {env:String}; '' = all

-- section: by_bucket
-- active_devices: devices with a registration in the bucket. new_tokens: tokens whose first
-- registration is in the bucket. rotations: registrations whose token differs from the same
-- device's previous registration (history before the range counts). tokens_retired: tokens
-- whose first 410 is in the bucket. superseded_sends: responses to a token whose device
-- registered a different token after the token's own last registration and before the send.
-- Under --topic/--env only superseded_sends can be split: the other columns are empty (null).
-- Buckets inside the range with none of these are shown with zeros.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
     {topic:String} = '' AND {env:String} = '' AS whole,
active AS (
  SELECT pushlog_bucket_start(time_ms, {by:String}) AS b, uniqExact(device) AS active_devices
  FROM pushlog.kept_registers WHERE device IS NOT NULL AND time_ms >= since AND time_ms < until GROUP BY b
), rot AS (
  SELECT pushlog_bucket_start(superseded_at, {by:String}) AS b, count() AS rotations, uniqExact(device) AS devices_rotated
  FROM pushlog.kept_token_runs WHERE superseded_at >= since AND superseded_at < until GROUP BY b
), newt AS (
  SELECT pushlog_bucket_start(first_reg, {by:String}) AS b, count() AS new_tokens
  FROM pushlog.kept_token_facts WHERE first_reg >= since AND first_reg < until GROUP BY b
), retired AS (
  SELECT pushlog_bucket_start(first_410, {by:String}) AS b, count() AS tokens_retired
  FROM pushlog.kept_token_facts WHERE first_410 >= since AND first_410 < until GROUP BY b
), superseded AS (
  SELECT pushlog_bucket_start(s.time_ms, {by:String}) AS b, count() AS superseded_sends
  FROM pushlog.kept_superseded AS s
  WHERE s.time_ms >= since AND s.time_ms < until
    AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
  GROUP BY b
), fill AS (
  SELECT arrayJoin(pushlog_fill(since, until, lo, hi, n, {by:String})) AS b
  FROM pushlog.kept_data_span
), parts AS (
  -- Each CTE once (ClickHouse evaluates a CTE again at each reference): one row per bucket and
  -- measure, the range's empty buckets as rows that found nothing.
  SELECT b, 1 AS found, toNullable(active_devices) AS active_devices, NULL AS new_tokens, NULL AS rotations,
         NULL AS devices_rotated, NULL AS tokens_retired, NULL AS superseded_sends FROM active
  UNION ALL SELECT b, 1, NULL, toNullable(new_tokens), NULL, NULL, NULL, NULL FROM newt
  UNION ALL SELECT b, 1, NULL, NULL, toNullable(rotations), toNullable(devices_rotated), NULL, NULL FROM rot
  UNION ALL SELECT b, 1, NULL, NULL, NULL, NULL, toNullable(tokens_retired), NULL FROM retired
  UNION ALL SELECT b, 1, NULL, NULL, NULL, NULL, NULL, toNullable(superseded_sends) FROM superseded
  UNION ALL SELECT b, 0, NULL, NULL, NULL, NULL, NULL, NULL FROM fill
), k AS (
  SELECT b, max(found) AS found, coalesce(max(active_devices), 0) AS a_active, coalesce(max(new_tokens), 0) AS a_new,
         coalesce(max(rotations), 0) AS a_rotations, coalesce(max(devices_rotated), 0) AS a_rotated,
         coalesce(max(tokens_retired), 0) AS a_retired, coalesce(max(superseded_sends), 0) AS a_superseded
  FROM parts GROUP BY b
)
SELECT pushlog_bucket(k.b, {by:String}) AS bucket,
       if(whole OR k.found = 0, k.a_active, NULL) AS active_devices,
       if(whole OR k.found = 0, k.a_new, NULL) AS new_tokens,
       if(whole OR k.found = 0, k.a_rotations, NULL) AS rotations,
       if(whole OR k.found = 0, k.a_rotated, NULL) AS devices_rotated,
       if(whole AND k.a_active > 0, pushlog_round(k.a_rotated / k.a_active, 6), NULL) AS rotation_rate,
       if(whole OR k.found = 0, k.a_retired, NULL) AS tokens_retired,
       k.a_superseded AS superseded_sends
FROM k
ORDER BY k.b;

-- section: summary
-- The same figures over the whole range (devices counted once); empty under --topic/--env but superseded_sends.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
     {topic:String} = '' AND {env:String} = '' AS whole
-- One aggregate per source, cross-joined (a scalar subquery per figure read token_facts and
-- token_runs twice each).
SELECT if(whole, a.n, NULL) AS active_devices, if(whole, f.new_tokens, NULL) AS new_tokens,
       if(whole, o.rotations, NULL) AS rotations, if(whole, o.devices_rotated, NULL) AS devices_rotated,
       if(whole AND active_devices > 0, pushlog_round(devices_rotated / active_devices, 6), NULL) AS rotation_rate,
       if(whole, f.tokens_retired, NULL) AS tokens_retired, x.superseded_sends AS superseded_sends
FROM (SELECT uniqExact(device) AS n FROM pushlog.kept_registers
      WHERE device IS NOT NULL AND time_ms >= since AND time_ms < until) AS a
CROSS JOIN (SELECT countIf(first_reg >= since AND first_reg < until) AS new_tokens,
                   countIf(first_410 >= since AND first_410 < until) AS tokens_retired FROM pushlog.kept_token_facts) AS f
CROSS JOIN (SELECT count() AS rotations, uniqExact(device) AS devices_rotated FROM pushlog.kept_token_runs
            WHERE superseded_at >= since AND superseded_at < until) AS o
CROSS JOIN (SELECT count() AS superseded_sends FROM pushlog.kept_superseded AS s
            WHERE s.time_ms >= since AND s.time_ms < until
              AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})) AS x;
