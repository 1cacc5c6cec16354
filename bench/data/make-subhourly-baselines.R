# Builds bench/data/subhourly-baselines.json: R forecast's ets, stlf and tbats
# forecasts a day of steps ahead of the sub-hourly series of
# bench/eval-subhourly.ts at its origins (per-minute series and their 5-, 10-
# and 15-minute means; each series' own day of steps, `h` in the export).
#
#   npm run build && node dist/bench/eval-subhourly.js --export /tmp/subhourly-series.json
#   Rscript bench/data/make-subhourly-baselines.R /tmp/subhourly-series.json
#
# Each series' forecasts are cached in /tmp/subhourly-baselines-cache/<index>.rds
# as soon as they are made, and the JSON is written once every series is
# there; so a run can be split over processes and resumed, e.g.
#   Rscript bench/data/make-subhourly-baselines.R /tmp/subhourly-series.json 1 10 &
#   Rscript bench/data/make-subhourly-baselines.R /tmp/subhourly-series.json 11 20
#   Rscript bench/data/make-subhourly-baselines.R /tmp/subhourly-series.json
# (the forecasts do not depend on the split).
#   (R 4.2.2, forecast 8.20; Debian packages r-cran-forecast r-cran-jsonlite)
#
# What each method is given (kept affordable on a shared 2-core machine):
# - training slice: the last 4 days of steps before the origin (5,760
#   per-minute, 1,152 5-minute, 576 10-minute, 384 15-minute points);
# - ets: ets(ts(x, frequency = steps per day)); R's ets models no season
#   longer than 24, so on half-hourly and per-minute data it fits a
#   non-seasonal model (its own warning says so);
# - stlf: stlf(msts(x, c(day, week))) when the slice holds two weeks, else
#   stlf(ts(x, frequency = day)) (per-minute slices: the day only);
# - tbats: tbats(msts(x, day), use.parallel = FALSE) at the LAST origin of
#   each part only, and only for 10- and 15-minute series (a period of 288
#   or 1,440 costs minutes per fit); other origins store null.
source("bench/data/baselines.R")
make_baselines("subhourly",
  cap = function(day) 4 * day,
  horizon = function(d, s) s$h,
  with_tbats = function(day) day <= 144)
