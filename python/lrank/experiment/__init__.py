"""The experiment workflow: every (data set, learner, p, repeat, fold) cell of the papers'
protocol, run once into a resumable Parquet store, then tables, statistics and plots from it.

* :mod:`lrank.experiment.config` - data sets, learners (with options, labels, sweeps), protocol;
* :mod:`lrank.experiment.store` - the kill-safe Parquet result store;
* :mod:`lrank.experiment.runner` - planning (what is stored, what is left) and running cells;
* :mod:`lrank.experiment.report` - per-p tables with ranks, average ranks, wins, statistics;
* :mod:`lrank.experiment.render` - those tables as text, Markdown, CSV or LaTeX;
* :mod:`lrank.experiment.plots` - critical-difference diagram, tau against p or a parameter.
"""

from lrank.experiment.config import (
    DatasetSource,
    ExperimentConfig,
    LearnerSetting,
    expand_datasets,
    expand_sweep,
    load_config_file,
    parse_learner,
    parse_missing,
)
from lrank.experiment.runner import CellTask, RunSummary, execute_cell, plan_experiment, run_experiment
from lrank.experiment.store import COLUMNS, KEY, ResultStore

__all__ = [
    "COLUMNS",
    "KEY",
    "CellTask",
    "DatasetSource",
    "ExperimentConfig",
    "LearnerSetting",
    "ResultStore",
    "RunSummary",
    "execute_cell",
    "expand_datasets",
    "expand_sweep",
    "load_config_file",
    "parse_learner",
    "parse_missing",
    "plan_experiment",
    "run_experiment",
]
