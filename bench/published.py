"""Published Kendall tau values the benchmarks compare against (facts from the papers).

Zhou & Qiu (2018), "Random forest for label ranking": LR-RF column of Table 3 (complete
rankings; vowel from Table 4, which Table 3 prints as .967) and Tables 5/6 (30% / 60% of the
training labels deleted). Only the values quoted in lrank's issue tracker are filled in; None
means "not transcribed".
"""

from __future__ import annotations

DATASETS = [
    "authorship",
    "bodyfat",
    "calhousing",
    "cpu",
    "elevators",
    "fried",
    "glass",
    "housing",
    "iris",
    "pendigits",
    "segment",
    "stock",
    "vehicle",
    "vowel",
    "wine",
    "wisconsin",
]

LRRF: dict[float, dict[str, float | None]] = {
    0.0: {
        "authorship": 0.913,
        "bodyfat": 0.185,
        "calhousing": 0.367,
        "cpu": 0.515,
        "elevators": 0.756,
        "fried": 0.926,
        "glass": 0.888,
        "housing": 0.792,
        "iris": 0.966,
        "pendigits": 0.939,
        "segment": 0.961,
        "stock": 0.922,
        "vehicle": 0.860,
        "vowel": 0.867,
        "wine": 0.953,
        "wisconsin": 0.478,
    },
    0.3: {},
    0.6: {"glass": 0.867, "housing": 0.776, "iris": 0.959, "vowel": 0.787, "wine": 0.926},
}

# Cheng, Hühn & Hüllermeier (2009), Table 2: IB-M (IBLR) and LRT, complete rankings and 60% of
# the training labels deleted (only the 60% values quoted in lrank's issue tracker).
_CHENG_COMPLETE = {
    # data set: (IBLR, LRT)
    "authorship": (0.936, 0.882),
    "bodyfat": (0.248, 0.117),
    "calhousing": (0.351, 0.324),
    "cpu": (0.506, 0.447),
    "elevators": (0.733, 0.760),
    "fried": (0.935, 0.890),
    "glass": (0.865, 0.883),
    "housing": (0.745, 0.797),
    "iris": (0.966, 0.947),
    "pendigits": (0.944, 0.935),
    "segment": (0.959, 0.949),
    "stock": (0.927, 0.895),
    "vehicle": (0.862, 0.827),
    "vowel": (0.900, 0.794),
    "wine": (0.949, 0.882),
    "wisconsin": (0.506, 0.343),
}
_CHENG_60 = {
    "iris": (0.882, 0.794),
    "glass": (0.771, 0.799),
    "housing": (0.630, 0.634),
    "vowel": (0.722, 0.615),
    "wine": (0.789, 0.752),
}
IBLR: dict[float, dict[str, float | None]] = {
    0.0: {k: v[0] for k, v in _CHENG_COMPLETE.items()},
    0.3: {},
    0.6: {k: v[0] for k, v in _CHENG_60.items()},
}
LRT: dict[float, dict[str, float | None]] = {
    0.0: {k: v[1] for k, v in _CHENG_COMPLETE.items()},
    0.3: {},
    0.6: {k: v[1] for k, v in _CHENG_60.items()},
}

# Zhou & Qiu (2018), Tables 4 to 6: bagged LRT, W-LRT and F-LRT (Aledo, Gamez & Molina), the
# complete-ranking values quoted in lrank's issue tracker.
_BAGGED_COMPLETE = {
    # data set: (LRT+bag, W-LRT+bag, F-LRT+bag)
    "glass": (0.856, 0.813, 0.839),
    "housing": (0.761, 0.715, 0.738),
    "iris": (0.956, 0.961, 0.956),
    "vowel": (0.758, 0.711, 0.719),
    "calhousing": (0.476, 0.447, 0.429),
}
BAGGED_LRT = {0.0: {k: v[0] for k, v in _BAGGED_COMPLETE.items()}, 0.3: {}, 0.6: {}}
BAGGED_WLRT = {0.0: {k: v[1] for k, v in _BAGGED_COMPLETE.items()}, 0.3: {}, 0.6: {}}
BAGGED_FLRT = {0.0: {k: v[2] for k, v in _BAGGED_COMPLETE.items()}, 0.3: {}, 0.6: {}}

# Zhou & Qiu (2018), Table 3: RPC and IB-PL (k = 5), the values quoted in lrank's issue tracker.
RPC = {0.0: {"iris": 0.889, "glass": 0.885, "vowel": 0.652, "wisconsin": 0.633}, 0.3: {}, 0.6: {}}
IBPL = {0.0: {"iris": 0.978, "vowel": 0.841, "stock": 0.904}, 0.3: {}, 0.6: {}}

# Partial label ranking (rankings with ties; ../shared/datasets/plr-csv), 5 x 10-fold CV, tau_x,
# complete training rankings, as quoted in lrank's issue 28: the best published value per set
# (Alfaro et al.'s pairwise method as re-run by Thies, Alfaro & Bengs 2024, and its labelwise
# variants), and scikit-lr 0.3.0 measured on the same files (its tree and its kNN).
PLR_BEST = {
    "blocks": 0.956,
    "breast": 0.822,
    "ecoli": 0.815,
    "glass": 0.812,
    "iris": 0.932,
    "vehicle": 0.820,
    "vowel": 0.781,
    "wine": 0.896,
}
PLR_SKLR = {
    # data set: (scikit-lr tree, scikit-lr kNN)
    "iris": (0.917, 0.897),
    "wine": (0.819, 0.839),
    "glass": (0.764, 0.750),
    "breast": (0.766, 0.756),
    "vowel": (0.714, 0.752),
    "ecoli": (0.749, 0.768),
    "vehicle": (0.782, 0.762),
    "blocks": (0.942, 0.938),
}

# The best Kendall tau published or measured anywhere on each KEBI set at p = 0, as lrank's issue
# 25 lists them (plain random-forest reductions and multi-output regression forests, Thies,
# Alfaro & Bengs 2024, among others). The issue names authorship, bodyfat, stock and wine as sets
# lrank already matched without giving their values; for them this is the highest value in this
# file (IBLR of Cheng et al. on three, LR-RF of Zhou & Qiu on wine).
BEST_KNOWN: dict[str, float] = {
    "authorship": 0.936,
    "bodyfat": 0.248,
    "calhousing": 0.491,
    "cpu": 0.524,
    "elevators": 0.803,
    "fried": 0.999,
    "glass": 0.910,
    "housing": 0.833,
    "iris": 0.978,
    "pendigits": 0.976,
    "segment": 0.977,
    "stock": 0.927,
    "vehicle": 0.887,
    "vowel": 0.914,
    "wine": 0.953,
    "wisconsin": 0.633,
}
