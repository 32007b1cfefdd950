"""Shared by the loop tests: the Kiln under test (KILN_URL, KILN_KEY) and ZDT1, the 'lab'."""

import math
import os

from kiln import Kiln


def kiln() -> Kiln:
    return Kiln(os.environ["KILN_URL"], os.environ["KILN_KEY"])


def zdt1(parameters):
    """ZDT1 at a candidate's parameters x1, x2 in [0, 1]: the measurement of these tests."""
    x1, x2 = parameters["x1"], parameters["x2"]
    g = 1 + 9 * x2
    return {"f1": x1, "f2": g * (1 - math.sqrt(x1 / g))}


def zdt1_mdl(budget=8, batch=2):
    return {
        "parameters": [
            {"name": "x1", "type": "continuous", "bounds": [0, 1]},
            {"name": "x2", "type": "continuous", "bounds": [0, 1]},
        ],
        "objectives": [
            {"name": "f1", "direction": "minimize", "reference": 1.1},
            {"name": "f2", "direction": "minimize", "reference": 10},
        ],
        "optimizer": {"budget": budget, "batch_size": batch, "initial_samples": 4, "seed": 7},
    }
