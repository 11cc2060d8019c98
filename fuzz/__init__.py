"""lrank's fuzzer: ``python -m fuzz.campaign`` from the repository root (see fuzz/README.md).

Inputs are made (``fuzz.corpus``, ``fuzz.mutate``) in the campaign's process and run in worker
processes (``fuzz.worker``, the targets in ``fuzz.targets``) under a memory limit and a timeout;
``fuzz.harness`` supervises the workers and classifies each outcome.
"""
