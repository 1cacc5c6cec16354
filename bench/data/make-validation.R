# Builds bench/data/validation.json: model-selection data that is NOT M1.
# Every strictly positive, NA-free yearly, quarterly and monthly series
# (univariate ts or mts column) shipped with R's datasets, forecast, AER, urca,
# tseries and strucchange packages, de-duplicated, plus R forecast's snaive,
# ets and thetaf forecasts at 4 rolling origins (the protocol of
# bench/eval-validation.ts: horizon Y 6 / Q 8 / M 18; the training slice is the
# last 96 points before the horizon, at least 2·m + 4 of them).
#
#   Rscript bench/data/make-validation.R   (Debian: r-cran-forecast r-cran-aer r-cran-urca r-cran-tseries r-cran-strucchange)
suppressPackageStartupMessages({ library(forecast) })
pkgs <- c("datasets", "forecast", "AER", "urca", "tseries", "strucchange")
H <- c("1" = 6, "4" = 8, "12" = 18)
seen <- character(0)
out <- list()
add <- function(name, x) {
  f <- frequency(x)
  if (!(as.character(f) %in% names(H))) return()
  v <- as.numeric(x)
  if (length(v) < 12 || any(!is.finite(v)) || any(v <= 0)) return()
  if (length(unique(v)) < 5) return()
  key <- paste(f, length(v), paste(signif(head(v, 12), 8), collapse = ","))
  if (key %in% seen) return()
  seen <<- c(seen, key)
  h <- H[[as.character(f)]]
  origins <- list()
  for (o in 0:3) {
    end <- length(v) - o * h
    if (end - h < 2 * f + 4) next
    train <- v[max(1, end - h - 96 + 1):(end - h)]
    if (length(train) < 2 * f + 4) next
    tx <- ts(train, frequency = f)
    fc <- function(expr) tryCatch(as.numeric(expr), error = function(e) rep(NA_real_, h))
    origins[[length(origins) + 1]] <- list(
      origin = o,
      snaive = fc(snaive(tx, h = h)$mean),
      ets = fc(forecast(ets(tx), h = h)$mean),
      thetaf = fc(thetaf(tx, h = h)$mean)
    )
  }
  if (length(origins) == 0) return()
  out[[name]] <<- list(frequency = f, y = v, origins = origins)
}
for (p in pkgs) {
  suppressPackageStartupMessages(library(p, character.only = TRUE))
  items <- data(package = p)$results[, "Item"]
  for (item in items) {
    obj <- sub(" .*", "", item)
    dsname <- sub(".*\\((.*)\\)", "\\1", item)
    e <- new.env()
    ok <- tryCatch({ suppressWarnings(data(list = dsname, package = p, envir = e)); TRUE }, error = function(err) FALSE)
    if (!ok || !exists(obj, envir = e)) next
    x <- get(obj, envir = e)
    if (!is.ts(x)) next
    if (is.matrix(x)) {
      for (j in seq_len(ncol(x))) add(paste0(p, "::", obj, ".", colnames(x)[j]), ts(x[, j], frequency = frequency(x)))
    } else add(paste0(p, "::", obj), x)
  }
}
meta <- list(generated_by = "Rscript bench/data/make-validation.R", r = R.version.string,
  forecast = as.character(packageVersion("forecast")), horizons = as.list(H), series = out)
writeLines(jsonlite::toJSON(meta, auto_unbox = TRUE, digits = NA), "bench/data/validation.json")
cat(length(out), "series\n")
print(table(sapply(out, function(s) s$frequency)))
