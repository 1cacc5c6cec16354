"""pytest plugin loaded by tools/sdk-suite/run.sh (-p sdk_suite_plugin).

The SDK's conftest downloads AirPassengers from raw.githubusercontent.com,
which this machine cannot reach. The series is R's datasets::AirPassengers
(monthly, 1949-01 to 1960-12), which the repo ships in
bench/data/r-datasets.json; run.sh writes it as air_passengers.csv (columns
timestamp, value, as the downloaded file has) into $SDK_SUITE_DATA, and this
plugin makes pandas.read_csv read that file when asked for the URL. Every
other URL is read as usual (and fails without a network: such tests are
counted as impossible here).
"""
import os

import pandas as pd

_LOCAL = {
    "https://raw.githubusercontent.com/Nixtla/transfer-learning-time-series/main/datasets/air_passengers.csv": "air_passengers.csv",
}
_read_csv = pd.read_csv


def _read_csv_local(filepath_or_buffer, *args, **kwargs):
    name = _LOCAL.get(filepath_or_buffer) if isinstance(filepath_or_buffer, str) else None
    if name is not None:
        filepath_or_buffer = os.path.join(os.environ["SDK_SUITE_DATA"], name)
    return _read_csv(filepath_or_buffer, *args, **kwargs)


pd.read_csv = _read_csv_local


def pytest_configure(config):
    # the markers the SDK's pyproject registers (its pytest section is not
    # used: its addopts need pytest-cov), and pytest-rerunfailures' flaky
    for line in (
        "distributed_run: needs Ray, Spark or Dask (deselected by run.sh)",
        "spark_run: Spark",
        "ray_run: Ray",
        "snowflake: Snowflake",
        "flaky: pytest-rerunfailures' marker (not installed; no reruns)",
    ):
        config.addinivalue_line("markers", line)
