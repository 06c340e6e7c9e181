"""Python client of the Mango Bruise Tracker HTTP API (standard library only; pandas optional)."""

from .client import MangoClient, MangoError, fruit_rows, read_csv, retry_after_seconds, to_dataframe

__all__ = ["MangoClient", "MangoError", "fruit_rows", "read_csv", "retry_after_seconds", "to_dataframe"]
__version__ = "0.1.0"
