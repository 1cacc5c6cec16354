"""A stand-in for the two names of fugue the SDK's test helpers import at
module level (nixtla_tests/helpers/checks.py: the type fugue.AnyDataFrame and
fugue.api.as_pandas), so the pandas tests of those modules import without
fugue, which this machine cannot install. Written for tools/sdk-suite/run.sh.
Distributed frames (dask, spark, ray) are not supported: those test modules
are deselected by run.sh, and the SDK's own distributed code paths, which
call fugue.api.transform and friends, fail with an AttributeError if reached.
"""
from typing import Any

AnyDataFrame = Any
