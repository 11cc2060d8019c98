"""``python -m lrank.cli``: the ``lrank`` command without an installed script."""

from lrank.cli import main

main(prog_name="lrank")
