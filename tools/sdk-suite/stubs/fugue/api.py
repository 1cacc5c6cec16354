"""fugue.api.as_pandas for pandas frames only (see the package's docstring)."""
import pandas as pd


def as_pandas(df):
    if isinstance(df, pd.DataFrame):
        return df
    raise TypeError(f"this fugue stand-in converts only pandas frames, not {type(df).__name__}")
