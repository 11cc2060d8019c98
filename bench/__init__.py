"""lrank's benchmark suite: run each suite from the repository root as ``python -m bench.SUITE``.

``bench.harness`` holds what every suite shares (data, fold splits, child processes, machine
facts, JSON results); ``bench.child`` is the part that runs inside a learner's own process.
See bench/README.md for the suites and their commands. This file is imported by the Python 3.7
interpreter of bench/.venv37 too, so it holds nothing but this docstring.
"""
