-- title: Token gone (410) rates
-- description: How many responses were 410 (Unregistered/ExpiredToken), how many tokens APNs
-- description: retired, and whether the provider kept sending to tokens after their first 410.
-- description: ClickHouse version of Queries/gone.sql (same sections, columns and labels).
-- param: since  start of the range (responses by time), {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: by enum(minute,5m,hour,day,week,topic,env,app_version,push_type,reason) = day  {by:String}
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to production or sandbox, {env:String}; '' = all

-- section: summary
-- A response is a send or response record with a status (one attempt). tokens_gone: distinct
-- tokens whose first 410 response (over all history) is in the range. sends_after_gone: responses
-- to a token later than its first 410, with no registration of the token between that 410's APNs
-- timestamp (or, without one, the 410's time) and the send. Both read kept_gone: the 410s and the
-- responses after one, each with its flags (facts.sql). responses and gone: the range's whole
-- hours from kept_hourly_responses, the responses of its partial hours one by one.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
pushlog_hours_from(since, 'day') AS lo_h, pushlog_hours_to(since, until, 'day') AS hi_h
-- One aggregate per subquery: ClickHouse evaluates a CTE again at each reference.
SELECT a.responses AS responses, a.gone AS gone, if(responses = 0, NULL, pushlog_round(gone / responses, 6)) AS gone_rate,
       b.tokens_gone AS tokens_gone, b.sends_after_gone AS sends_after_gone
FROM (SELECT sum(n) AS responses, sum(g) AS gone
      FROM (SELECT responses AS n, if(status = 410, responses, 0) AS g FROM pushlog.kept_hourly_responses
            WHERE hour >= lo_h AND hour < hi_h
              AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
            UNION ALL
            SELECT toUInt64(1), toUInt64(coalesce(status = 410, 0)) FROM pushlog.kept_responses
            WHERE time_ms >= since AND time_ms < until AND NOT (time_ms >= lo_h * 3600000 AND time_ms < hi_h * 3600000)
              AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String}))) AS a
CROSS JOIN (SELECT uniqExactIf(token, first_gone = 1) AS tokens_gone, countIf(after_gone = 1) AS sends_after_gone
            FROM pushlog.kept_gone
            WHERE time_ms >= since AND time_ms < until
              AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})) AS b;

-- section: by_bucket
-- responses, gone, tokens_gone (first 410 over all history in the bucket) add up to the summary;
-- tokens_with_410: distinct tokens with any 410 in the bucket. Buckets inside the range with no
-- responses are shown with zeros (pushlog fills them after its SQL; here a range of buckets).
-- With --by topic|env|app_version|push_type|reason, bucket is that value instead of a time
-- (app_version: of the token's latest registration), rows ordered by it, no empty rows.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
pushlog_hours_from(since, {by:String}) AS lo_h, pushlog_hours_to(since, until, {by:String}) AS hi_h,
r AS (
  -- The range's whole hours from kept_hourly_responses (none for buckets finer than an hour),
  -- the responses of its partial hours one by one.
  SELECT pushlog_by_start(time_ms, {by:String}) AS b,
         pushlog_by_value({by:String}, topic, env, push_type, reason, reg_app_version) AS d, sum(n) AS responses, sum(g) AS gone
  FROM (SELECT hour * 3600000 AS time_ms, topic, env, push_type, reason, reg_app_version, responses AS n,
               if(status = 410, responses, 0) AS g
        FROM pushlog.kept_hourly_responses
        WHERE hour >= lo_h AND hour < hi_h
          AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
        UNION ALL
        SELECT time_ms, topic, env, push_type, reason, reg_app_version, toUInt64(1), toUInt64(coalesce(status = 410, 0))
        FROM pushlog.kept_responses
        WHERE time_ms >= since AND time_ms < until AND NOT (time_ms >= lo_h * 3600000 AND time_ms < hi_h * 3600000)
          AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
        UNION ALL
        -- The buckets to fill: every bucket start of the range, with nothing in it.
        SELECT arrayJoin(pushlog_fill(since, until, lo, hi, n, {by:String})), NULL, NULL, NULL, NULL, NULL, toUInt64(0), toUInt64(0)
        FROM pushlog.kept_data_span WHERE NOT pushlog_is_dimension({by:String}))
  GROUP BY b, d
), t AS (
  -- The tokens, from the 410s alone (kept_gone).
  SELECT pushlog_by_start(s.time_ms, {by:String}) AS b,
         pushlog_by_value({by:String}, s.topic, s.env, s.push_type, s.reason, s.reg_app_version) AS d,
         uniqExactIf(s.token, s.token <> '') AS tokens_with_410, uniqExactIf(s.token, s.token <> '' AND s.first_gone = 1) AS tokens_gone
  FROM pushlog.kept_gone AS s
  WHERE s.status = 410 AND s.time_ms >= since AND s.time_ms < until
    AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
  GROUP BY b, d
)
SELECT pushlog_by_label(r.b, r.d, {by:String}) AS bucket, r.responses AS responses, r.gone AS gone,
       if(r.responses = 0, NULL, pushlog_round(r.gone / r.responses, 6)) AS gone_rate,
       coalesce(t.tokens_gone, 0) AS tokens_gone, coalesce(t.tokens_with_410, 0) AS tokens_with_410
FROM r LEFT JOIN t ON t.b = r.b AND t.d = r.d
ORDER BY r.b, r.d
SETTINGS join_use_nulls = 1;
