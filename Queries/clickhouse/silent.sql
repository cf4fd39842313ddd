-- title: Silent (background) push throttling
-- description: Background pushes against the budget iOS tolerates per device and hour, and how
-- description: many actually woke the app (background receipts) at each hourly rate.
-- description: ClickHouse version of Queries/silent.sql (same sections, columns and labels).
-- param: since  start of the range, {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: budget=3  background pushes per token and clock hour before iOS throttles, {budget:UInt32}
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to this env, {env:String}; '' = all
-- param: by enum(topic,env,app_version)  by_bucket by a dimension (no by_bucket without --by), {by:String}

-- section: summary
-- A background push: push_type background, or no push_type with content-available and no
-- alert, sound or badge; counted when APNs answered it (pushlog.kept_background_pushes). Load of a token-hour:
-- accepted background pushes to the token in one UTC clock hour. over_budget_sends = sum of
-- max(0, load - budget). priority_not_5: a missing priority is APNs' default, 10.
-- The range's token-hours from pushlog.kept_background_loads (facts.sql), then the summary of those.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT b.background_sends AS background_sends, b.accepted AS accepted, b.token_hours AS token_hours,
       b.over_budget_sends AS over_budget_sends, if(accepted = 0, NULL, pushlog_round(over_budget_sends / accepted, 6)) AS over_budget_share,
       b.priority_not_5 AS priority_not_5, b.with_alert AS with_alert, q.too_many_requests AS too_many_requests
FROM (SELECT sum(n) AS background_sends, sum(load) AS accepted, countIf(load > 0) AS token_hours,
             sum(greatest(0, toInt64(load) - {budget:UInt32})) AS over_budget_sends, sum(not_5) AS priority_not_5,
             sum(alerts) AS with_alert
      FROM pushlog.kept_background_loads(since = {since:DateTime64(3)}, until = {until:DateTime64(3)},
                                         topic = {topic:String}, env = {env:String})) AS b
CROSS JOIN (SELECT count() AS too_many_requests FROM pushlog.kept_errors
            WHERE response = 1 AND time_ms >= since AND time_ms < until AND reason = 'TooManyRequests'
              AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})) AS q;

-- section: by_hourly_rate
-- received: accepted pushes with a background receipt for their apns_id; median_lag_s:
-- receipt time minus response time, in seconds (the mean of the two middle values for an even count).
-- The range's token-hours with a load, then per rate.
SELECT multiIf(load = 1, '1', load = 2, '2', load = 3, '3', load <= 6, '4-6', '7+') AS rate,
       sum(load) AS accepted, sum(length(lags)) AS received,
       pushlog_round(received / accepted, 6) AS receipt_rate,
       if(received = 0, NULL, pushlog_round(quantileExactInclusiveArray(0.5)(lags), 3)) AS median_lag_s
FROM pushlog.kept_background_loads(since = {since:DateTime64(3)}, until = {until:DateTime64(3)},
                                   topic = {topic:String}, env = {env:String})
WHERE load > 0
GROUP BY rate ORDER BY min(load);

-- section: by_bucket
-- Only with --by: the summary's figures per topic, env or app_version (of the token's latest
-- registration), adding up to the summary. A token-hour counts in the bucket of its first
-- accepted push; a push is over budget when more than `budget` accepted pushes to its token came
-- before it in that hour (so the sum of max(0, load - budget) is split push by push). Pushes of
-- one millisecond are taken in line-hash order (as a signed 64-bit number, as pushlog stores it).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
pushes AS (
  SELECT pushlog_by_value({by:String}, topic, env, NULL, NULL, reg_app_version) AS k, status, priority, with_alert,
         if(status = 200, row_number() OVER (PARTITION BY hour, token, status = 200
                                             ORDER BY t, reinterpretAsInt64(reverse(unhex(line_hash)))), NULL) AS nth
  FROM pushlog.kept_background_pushes
  WHERE t >= since AND t < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), buckets AS (
  SELECT k, count() AS background_sends, countIf(status = 200) AS accepted, countIf(nth = 1) AS token_hours,
         countIf(nth > {budget:UInt32}) AS over_budget_sends, countIf(coalesce(priority, 10) <> 5) AS priority_not_5,
         sum(with_alert) AS with_alert
  FROM pushes GROUP BY k
), too_many AS (
  SELECT pushlog_by_value({by:String}, topic, env, NULL, NULL, reg_app_version) AS k, count() AS too_many_requests
  FROM pushlog.kept_responses
  WHERE time_ms >= since AND time_ms < until AND status <> 200 AND reason = 'TooManyRequests'
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY k
), keys AS (SELECT k FROM buckets UNION DISTINCT SELECT k FROM too_many)
SELECT keys.k AS bucket, coalesce(b.background_sends, 0) AS background_sends, coalesce(b.accepted, 0) AS accepted,
       coalesce(b.token_hours, 0) AS token_hours, coalesce(b.over_budget_sends, 0) AS over_budget_sends,
       if(coalesce(b.accepted, 0) = 0, NULL, pushlog_round(b.over_budget_sends / b.accepted, 6)) AS over_budget_share,
       coalesce(b.priority_not_5, 0) AS priority_not_5, coalesce(b.with_alert, 0) AS with_alert,
       coalesce(t.too_many_requests, 0) AS too_many_requests
FROM keys LEFT JOIN buckets AS b ON b.k = keys.k LEFT JOIN too_many AS t ON t.k = keys.k
ORDER BY background_sends DESC, bucket
SETTINGS join_use_nulls = 1;
