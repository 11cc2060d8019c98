"""Published Kendall tau values the benchmarks compare against (facts from the papers).

Zhou & Qiu (2018), "Random forest for label ranking": LR-RF column of Table 3 (complete
rankings; vowel from Table 4, which Table 3 prints as .967) and Tables 5/6 (30% / 60% of the
training labels deleted). Only the values quoted in lrank's issue tracker are filled in; None
means "not transcribed".
"""

from __future__ import annotations

DATASETS = [
    "authorship", "bodyfat", "calhousing", "cpu", "elevators", "fried", "glass", "housing",
    "iris", "pendigits", "segment", "stock", "vehicle", "vowel", "wine", "wisconsin",
]

LRRF: dict[float, dict[str, float | None]] = {
    0.0: {
        "authorship": 0.913, "bodyfat": 0.185, "calhousing": 0.367, "cpu": 0.515, "elevators": 0.756,
        "fried": 0.926, "glass": 0.888, "housing": 0.792, "iris": 0.966, "pendigits": 0.939,
        "segment": 0.961, "stock": 0.922, "vehicle": 0.860, "vowel": 0.867, "wine": 0.953,
        "wisconsin": 0.478,
    },
    0.3: {},
    0.6: {"glass": 0.867, "housing": 0.776, "iris": 0.959, "vowel": 0.787, "wine": 0.926},
}
