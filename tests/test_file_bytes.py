"""Files read whole are read bounded: a path that never ends (/dev/zero) or a file larger than
this process may hold is one line naming the file, not a MemoryError after filling memory."""

from __future__ import annotations

import os
import sys

import pytest
from click.testing import CliRunner
from lrank import file_bytes
from lrank.cli import main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/zero and sparse files")


@pytest.fixture
def small_stream_limit(monkeypatch):
    # The real limit is 1 GiB; a few MiB show the same refusal in a fraction of the time.
    monkeypatch.setattr(file_bytes, "STREAM_LIMIT", 4 << 20)


@pytest.mark.parametrize("name", ["z.lrm", "zero.xarff", "zero.csv", "zero.parquet"])
def test_an_endless_path_is_one_line(tmp_path, small_stream_limit, name):
    path = tmp_path / name
    path.symlink_to("/dev/zero")
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        f"Error: {path}: cannot read {'model ' if name.endswith('.lrm') else ''}file: not a regular file, "
        "and 4 MiB read from it without an end"
    ]


def test_a_model_path_that_never_ends_in_predict(tmp_path, small_stream_limit):
    iris = os.path.join(os.path.dirname(__file__), "..", "datasets", "iris.xarff")
    result = CliRunner().invoke(main, ["predict", "-l", "/dev/zero", "-T", iris])
    assert result.exit_code == 1 and "Error: /dev/zero: cannot read model file: not a regular file" in result.output


@pytest.mark.parametrize(("name", "what"), [("huge.xarff", "file"), ("huge.lrm", "model file")])
def test_a_file_larger_than_memory_is_refused_by_its_size(tmp_path, name, what):
    # A sparse file: a terabyte by its size, no disk used.
    path = tmp_path / name
    with open(path, "wb") as fh:
        fh.truncate(1 << 40)
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {path}: cannot read {what}: too large to read: the file's contents")
    assert result.output.count("\n") == 1


def test_short_streams_and_files_read_whole(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"abc\n")
    assert file_bytes.read_file_bytes(path) == b"abc\n"
    r, w = os.pipe()
    os.write(w, b"xyz")
    os.close(w)
    assert file_bytes.read_file_bytes(f"/proc/self/fd/{r}") == b"xyz"
    os.close(r)
