"""Records the golden fingerprints (tests/golden/golden.json) from the lrank installed now.

Run only when a change of models or predictions is intended, and say so in the commit:
    python tests/golden/record.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import all_cases, run_case

if __name__ == "__main__":
    out = {f"{p}/{e}": run_case(p, e) for p, e in all_cases()}
    path = Path(__file__).resolve().parent / "golden.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} cases -> {path}")
