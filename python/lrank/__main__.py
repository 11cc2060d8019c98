"""``python -m lrank``: the ``lrank`` command without an installed script."""

from lrank.cli import main

# Guarded: worker processes started by "spawn" import the main module under another name.
if __name__ == "__main__":
    main(prog_name="lrank")
