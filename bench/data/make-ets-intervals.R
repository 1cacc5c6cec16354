# Builds bench/data/m1-ets-intervals.json and bench/data/validation-ets-intervals.json:
# R forecast's ets point forecasts with its 80% and 95% prediction intervals,
# on the same splits as bench/data/m1-baselines.json (each M1 series' train `x`
# as ts(x, frequency = m), horizon h) and bench/data/validation.json (every
# stored origin o of every series: end = length(y) - o·h, the training slice is
# the last 96 points before the horizon; horizon Y 6 / Q 8 / M 18). The means
# equal the `ets` forecasts of those two files; null where ets fails.
#
#   Rscript bench/data/make-ets-intervals.R   (Debian: r-base-core r-cran-forecast r-cran-jsonlite)
suppressPackageStartupMessages({ library(forecast) })
etsfc <- function(x, m, h) {
  tryCatch({
    fc <- forecast(ets(ts(x, frequency = m)), h = h, level = c(80, 95))
    list(mean = as.numeric(fc$mean),
      lo80 = as.numeric(fc$lower[, 1]), hi80 = as.numeric(fc$upper[, 1]),
      lo95 = as.numeric(fc$lower[, 2]), hi95 = as.numeric(fc$upper[, 2]))
  }, error = function(e) {
    na <- rep(NA_real_, h)
    list(mean = na, lo80 = na, hi80 = na, lo95 = na, hi95 = na)
  })
}
meta <- function(out, key) {
  l <- list(generated_by = "Rscript bench/data/make-ets-intervals.R", r = R.version.string,
    forecast = as.character(packageVersion("forecast")))
  l[[key]] <- out
  l
}
write <- function(x, path) writeLines(jsonlite::toJSON(x, auto_unbox = TRUE, digits = NA, na = "null"), path)

m1 <- jsonlite::fromJSON("bench/data/m1.json", simplifyVector = FALSE)$series
m1out <- lapply(m1, function(s) {
  c(list(id = s$id), etsfc(as.numeric(unlist(s$x)), s$m, s$h))
})
write(meta(m1out, "intervals"), "bench/data/m1-ets-intervals.json")
cat(length(m1out), "M1 series\n")

val <- jsonlite::fromJSON("bench/data/validation.json", simplifyVector = FALSE)
H <- unlist(val$horizons)
valout <- list()
for (name in names(val$series)) {
  s <- val$series[[name]]
  f <- s$frequency
  h <- H[[as.character(f)]]
  v <- as.numeric(unlist(s$y))
  valout[[name]] <- lapply(s$origins, function(o) {
    end <- length(v) - o$origin * h
    train <- v[max(1, end - h - 96 + 1):(end - h)]
    c(list(origin = o$origin), etsfc(train, f, h))
  })
}
write(meta(valout, "series"), "bench/data/validation-ets-intervals.json")
cat(length(valout), "validation series,", sum(sapply(valout, length)), "origins\n")
