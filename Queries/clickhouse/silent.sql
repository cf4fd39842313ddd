-- title: Silent (background) push throttling
-- description: Background pushes against the budget iOS tolerates per device and hour, and how
-- description: many actually woke the app (background receipts) at each hourly rate.
-- description: ClickHouse version of Queries/silent.sql (same sections, columns and labels).
-- param: since  start of the range, {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: budget=3  background pushes per token and clock hour before iOS throttles, {budget:UInt32}
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to this env, {env:String}; '' = all

-- section: summary
-- A background push: push_type background, or no push_type with content-available and no
-- alert, sound or badge; counted when APNs answered it (pushlog.kept_background_pushes). Load of a token-hour:
-- accepted background pushes to the token in one UTC clock hour. over_budget_sends = sum of
-- max(0, load - budget). priority_not_5: a missing priority is APNs' default, 10.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
bg AS (
  SELECT * FROM pushlog.kept_background_pushes WHERE t >= since AND t < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), hours AS (
  SELECT count() AS token_hours, sum(greatest(0, toInt64(load) - {budget:UInt32})) AS over_budget_sends
  FROM (SELECT count() AS load FROM bg WHERE status = 200 GROUP BY hour, token)
)
-- One aggregate per CTE: ClickHouse evaluates a CTE again at each reference.
SELECT b.background_sends AS background_sends, b.accepted AS accepted, h.token_hours AS token_hours,
       h.over_budget_sends AS over_budget_sends, if(accepted = 0, NULL, pushlog_round(over_budget_sends / accepted, 6)) AS over_budget_share,
       b.priority_not_5 AS priority_not_5, b.with_alert AS with_alert, q.too_many_requests AS too_many_requests
FROM (SELECT count() AS background_sends, countIf(status = 200) AS accepted, countIf(coalesce(priority, 10) <> 5) AS priority_not_5,
             sum(with_alert) AS with_alert FROM bg) AS b
CROSS JOIN hours AS h
CROSS JOIN (SELECT count() AS too_many_requests FROM pushlog.kept_responses
            WHERE time_ms >= since AND time_ms < until AND status <> 200 AND reason = 'TooManyRequests'
              AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})) AS q;

-- section: by_hourly_rate
-- received: accepted pushes with a background receipt for their apns_id; median_lag_s:
-- receipt time minus response time, in seconds (the mean of the two middle values for an even count).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT multiIf(load = 1, '1', load = 2, '2', load = 3, '3', load <= 6, '4-6', '7+') AS rate,
       count() AS accepted, count(rt) AS received,
       pushlog_round(count(rt) / count(), 6) AS receipt_rate,
       pushlog_round(quantileExactInclusive(0.5)((rt - t) / 1000.0), 3) AS median_lag_s
FROM (
  SELECT t, rt, count() OVER (PARTITION BY hour, token) AS load
  FROM pushlog.kept_background_pushes
  WHERE status = 200 AND t >= since AND t < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
)
GROUP BY rate ORDER BY min(load);
