"""
The hosted API's real Python SDK (NixtlaClient, v0.8 line) against a host
built on this library (docs/http-server.md), every public method issue 14
names. Not part of the test suite: it needs the SDK, which is not shipped.

  pip install "pydantic>=2" orjson annotated-types httpx tenacity tqdm zstandard pandas
  # nixtla and utilsforecast sources on SDK_PATH (with dist-info folders giving their versions)
  node tools/sdk-suite/host.mjs &   # the http-server guide's host on port 8099, account key "key-1" (after npm run build)
  SDK_PATH=/tmp/sdk python3 bench/sdk-run.py
"""
import os, sys
sys.path.insert(0, os.environ.get("SDK_PATH", "/tmp/sdk"))
import numpy as np, pandas as pd
from nixtla import NixtlaClient

c = NixtlaClient(api_key="key-1", base_url="http://127.0.0.1:8099", max_retries=1)
results = []
def step(name, fn):
    try:
        out = fn()
        results.append((name, "ok", out))
    except Exception as e:
        results.append((name, "FAIL", f"{type(e).__name__}: {str(e)[:300]}"))

t = pd.date_range("2024-01-01", periods=200, freq="h")
df = pd.concat([pd.DataFrame({"unique_id": uid, "ds": t, "y": 50 + 10*np.sin(2*np.pi*np.arange(200)/24) + (i+1)*np.arange(200)/50 + np.random.default_rng(i).normal(0, 1, 200)}) for i, uid in enumerate(["a", "b"])])
df.loc[(df.unique_id == "a") & (df.ds == t[190]), "y"] += 40
ex = df.copy(); ex["x1"] = np.tile(np.sin(np.arange(200)/5), 2)
m = pd.date_range("2015-01-01", periods=96, freq="MS")
dm = pd.DataFrame({"unique_id": "m", "ds": m, "y": 100 + 10*np.sin(2*np.pi*np.arange(96)/12) + np.arange(96)/3})

step("validate_api_key", lambda: c.validate_api_key())
step("validate_api_key (bad key)", lambda: NixtlaClient(api_key="nope", base_url="http://127.0.0.1:8099", max_retries=1).validate_api_key())
step("forecast h=24, level [80, 95]", lambda: c.forecast(df=df, h=24, level=[80, 95], model="forecastmodel-1").shape)
step("forecast monthly MS", lambda: c.forecast(df=dm, h=12, freq="MS", model="forecastmodel-1").shape)
step("forecast add_history", lambda: c.forecast(df=df, h=12, add_history=True, model="forecastmodel-1").shape)
fut = pd.concat([pd.DataFrame({"unique_id": uid, "ds": pd.date_range(t[-1] + pd.Timedelta(hours=1), periods=12, freq="h"), "x1": np.sin(np.arange(200, 212)/5)}) for uid in ["a", "b"]])
step("forecast with X_df (exogenous)", lambda: c.forecast(df=ex, X_df=fut, h=12, model="forecastmodel-1").shape)
step("cross_validation n_windows=3", lambda: c.cross_validation(df=df, h=12, n_windows=3, model="forecastmodel-1").shape)
step("detect_anomalies (historical)", lambda: int(c.detect_anomalies(df=df, model="forecastmodel-1")["anomaly"].sum()))
step("detect_anomalies_online univariate", lambda: int(c.detect_anomalies_online(df=df, h=12, detection_size=24, threshold_method="univariate", level=99, model="forecastmodel-1")["anomaly"].sum()))
step("detect_anomalies_online multivariate", lambda: c.detect_anomalies_online(df=df, h=12, detection_size=24, threshold_method="multivariate", level=99, model="forecastmodel-1").shape)
step("finetune", lambda: c.finetune(df=df, finetune_steps=2, output_model_id="sdk-model", model="forecastmodel-1"))
step("finetuned_models", lambda: [m.id for m in c.finetuned_models()])
step("finetuned_model", lambda: c.finetuned_model("sdk-model").id)
step("forecast with finetuned_model_id", lambda: c.forecast(df=df, h=12, finetuned_model_id="sdk-model", model="forecastmodel-1").shape)
step("delete_finetuned_model", lambda: c.delete_finetuned_model("sdk-model"))
step("usage", lambda: c.usage())
big = pd.concat([pd.DataFrame({"unique_id": f"s{i}", "ds": t, "y": 50 + np.sin(np.arange(200)/3 + i)}) for i in range(400)])
step("forecast, body > 1 MB (zstd)", lambda: c.forecast(df=big, h=6, model="forecastmodel-1").shape)
def async_step(name, submit):
    def run():
        job = submit()
        result = job.wait(poll_interval=0.5, poll_timeout=60)
        return f"{job.status.value}, {getattr(result, 'shape', result)}"
    step(name, run)
async_step("submit_forecast_job + wait", lambda: c.submit_forecast_job(df=df, h=12, model="forecastmodel-1"))
async_step("submit_cross_validation_job + wait", lambda: c.submit_cross_validation_job(df=df, h=12, n_windows=2, model="forecastmodel-1"))
async_step("submit_finetune_job + wait", lambda: c.submit_finetune_job(df=df, finetune_steps=2, model="forecastmodel-1"))
def cancel():
    job = c.submit_forecast_job(df=df, h=12, model="forecastmodel-1")
    job.cancel()
    return job.status.value
step("submit_forecast_job + cancel", cancel)
for name, status, out in results:
    print(f"{status:4} | {name} | {out}")
