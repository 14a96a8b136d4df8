"""pandas frames from what goodsim._core returns (internal to the goodsim package)."""
import io
from typing import Any, Dict, List

import numpy as np
import pandas as pd

# Text columns of the sweep tables; every other column is numeric unless it is a
# varied path whose values are text ("36h").
SWEEP_TEXT_COLUMNS = ("policy", "type", "baseline", "metric", "fingerprint")

POLICY_COLUMNS = ("scenario", "seed", "policy", "type", "goodput", "uptime", "downtime_s",
                  "outages", "longest_outage_s", "failures", "tokens", "steps", "final_loss",
                  "time_to_target_s", "fingerprint")


def timeseries_frame(columns: Dict[str, Any]) -> pd.DataFrame:
    """The columns of timeseries.csv, in its order, at full double precision."""
    return pd.DataFrame(columns)


def policy_frame(summary: Dict[str, Any]) -> pd.DataFrame:
    """One row per policy of a summary: its figures, then badput_<category> columns
    (chip-seconds) in the summary's order. Missing values (final_loss without a loss
    model, time_to_target_s when never reached) are NaN."""
    rows: List[Dict[str, Any]] = []
    for p in summary["policies"]:
        row = {"scenario": summary["scenario"], "seed": summary["seed"], "policy": p["name"]}
        row.update({k: p[k] for k in POLICY_COLUMNS[3:]})
        for key in ("final_loss", "time_to_target_s"):
            row[key] = np.nan if row[key] is None else row[key]
        row.update({f"badput_{k}": v for k, v in p["badput"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    for key in ("seed", "outages", "failures", "steps"):
        frame[key] = frame[key].astype("int64")
    for key in ("final_loss", "time_to_target_s"):
        frame[key] = frame[key].astype("float64")
    return frame


def csv_frame(text: str) -> pd.DataFrame:
    """A sweep table from its CSV text: empty cells are NaN (and only they), the
    text columns stay str, fingerprints keep their leading zeros, and numbers are the
    very doubles the file's shortest round-trip texts stand for (pandas' default
    parser may be off by one unit in the last place)."""
    header = pd.read_csv(io.StringIO(text), nrows=0).columns
    dtype = {c: str for c in SWEEP_TEXT_COLUMNS if c in header}
    return pd.read_csv(io.StringIO(text), dtype=dtype, keep_default_na=False, na_values=[""],
                       float_precision="round_trip")
