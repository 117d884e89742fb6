"""Small user tables written as CSV files, for the loader tests."""

import numpy as np
import pandas as pd


def csv_of(tmp_path, frame, name="data.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def text_file(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def user_frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"income": rng.normal(50, 10, n), "smoker": rng.choice(["no", "yes"], n),
                         "age": rng.integers(20, 70, n), "region": rng.choice(["n", "s", "e"], n),
                         "cost": rng.normal(3, 1, n)})
