"""Comparing the JSON results of `raxc run --output-format json` (and of built libraries):
shared by test/build/run_goldens.py and test/run/pairs_check.py."""
import math


def close(a, b, rel, floor=1e-30):
    """a and b equal, floats within `rel` times the larger magnitude (at least `floor`; NaN
    equals NaN)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rel, floor) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rel, floor) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return a == b
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b or abs(a - b) <= rel * max(abs(a), abs(b), floor)
    return a == b
