"""Consensus of several rankings (rows of a rank matrix; 0 = label missing)."""

import numpy as np
from lrank import aggregation

rankings = np.array(
    [
        [1, 2, 3, 4],
        [2, 1, 3, 4],
        [1, 3, 2, 0],  # label 3 missing
        [4, 3, 2, 1],
    ]
)
print("Borda   ", aggregation.borda(rankings))
print("Copeland", aggregation.copeland(rankings))
print("Kemeny  ", aggregation.kemeny(rankings))
fit = aggregation.mallows(rankings)
print("Mallows ", fit.centre, f"theta {fit.theta:.2f}")
