# Builds bench/data/hourly-baselines.json: R forecast's ets, stlf and tbats
# forecasts of the hourly and sub-hourly development series of issue 30 at
# the origins of tools/datasets/hourly-data.ts (48 steps each; the h = 24 scores read
# the first 24: these methods' forecasts do not depend on h).
#
#   npm run build && node dist/tools/datasets/hourly-data.js --export /tmp/hourly-series.json
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json
#
# Each series' forecasts are cached in /tmp/hourly-baselines-cache/<index>.rds
# as soon as they are made, and the JSON is written once every series is
# there; so a run can be split over processes and resumed, e.g.
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json 1 17 &
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json 18 35
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json
# (the forecasts do not depend on the split).
#   (R 4.2.2, forecast 8.20; Debian packages r-cran-forecast r-cran-jsonlite)
#
# What each method is given (kept affordable on a shared 2-core machine):
# - training slice: the last 4 weeks of steps before the origin (672 hourly,
#   1,344 half-hourly points), for per-minute series the last 4 days (5,760);
# - ets: ets(ts(x, frequency = steps per day)); R's ets models no season
#   longer than 24, so on half-hourly and per-minute data it fits a
#   non-seasonal model (its own warning says so);
# - stlf: stlf(msts(x, c(day, week))) when the slice holds two weeks, else
#   stlf(ts(x, frequency = day)) (per-minute slices: the day only);
# - tbats: tbats(msts(x, c(day, week)), use.parallel = FALSE) at the LAST
#   origin of each part only, and not on per-minute series (a period of
#   1,440 costs minutes per fit); other origins store null.
source("bench/data/baselines.R")
make_baselines("hourly",
  cap = function(day) if (day >= 1440) 4 * day else 28 * day,
  horizon = function(d, s) d$horizon,
  with_tbats = function(day) day < 1440,
  meta = function(d) list(horizon = d$horizon))
