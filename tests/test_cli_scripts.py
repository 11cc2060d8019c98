"""The command line in scripts and Makefiles: files it must not destroy, outputs that appear whole
or not at all, and exit statuses a script can tell apart (1 an error, 130 Ctrl-C, 141 a reader
that went away), each with one line on stderr and no traceback."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from lrank.cli import main
from lrank.datasets import path as bundled

ROOT = Path(__file__).resolve().parents[1]
IRIS = str(bundled("iris"))
WINE = str(bundled("wine"))


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def lrank(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "lrank.cli", *args], env=env, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("model") / "iris.lrm"
    assert run("train", "-t", IRIS, "--no-cv", "-d", str(path), "--", "-I", "5").exit_code == 0
    return str(path)


def test_a_model_is_never_written_over_data(tmp_path):
    # One swapped argument (-d where -t was meant) wrote the model over the training file.
    data = tmp_path / "iris.xarff"
    data.write_bytes(Path(IRIS).read_bytes())
    for target in [data, tmp_path / "model.csv", tmp_path / "model.parquet"]:
        out = run("train", "-t", str(data), "--no-cv", "-d", str(target))
        assert out.exit_code == 1 and f"Error: {target}: a model file is not data" in out.output, out.output
    link = tmp_path / "model.bin"
    link.symlink_to(data)
    out = run("train", "-t", str(data), "--no-cv", "-d", str(link))
    assert out.exit_code == 1 and "is the data file the model learns from" in out.output, out.output
    assert data.read_bytes() == Path(IRIS).read_bytes()


def test_a_failed_prediction_leaves_the_output_as_it_was(model, tmp_path):
    out = tmp_path / "rankings.txt"
    out.write_text("precious\n")
    failed = run("predict", "-l", model, "-T", WINE, "-o", str(out))
    assert failed.exit_code == 1 and "do not match the training data" in failed.output
    assert out.read_text() == "precious\n"
    data_out = tmp_path / "ranked.parquet"
    data_out.write_bytes(b"precious")
    assert run("predict", "-l", model, "-T", WINE, "-o", str(data_out)).exit_code == 1
    assert data_out.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranked.parquet", "rankings.txt"]  # no temporary left


def test_an_output_is_replaced_whole_keeping_its_permissions(model, tmp_path):
    out = tmp_path / "rankings.txt"
    out.write_text("old\n")
    out.chmod(0o640)
    assert run("predict", "-l", model, "-T", IRIS, "-o", str(out)).exit_code == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 150 and all(line.count(">") == 2 for line in lines)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    # A symbolic link's target is written, the link stays; a device is written in place.
    target = tmp_path / "target.txt"
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert run("predict", "-l", model, "-T", IRIS, "-o", str(link)).exit_code == 0
    assert link.is_symlink() and len(target.read_text().splitlines()) == 150
    assert run("predict", "-l", model, "-T", IRIS, "-o", os.devnull).exit_code == 0
    assert Path(os.devnull).is_char_device()
    # A second hard link sees the new contents (the file is written in place, not replaced).
    twin = tmp_path / "twin.txt"
    twin.hardlink_to(out)
    assert run("predict", "-l", model, "-T", IRIS, "-o", str(out)).exit_code == 0
    assert len(twin.read_text().splitlines()) == 150
    # An error writing names OUT, not the temporary file beside it.
    nominal = tmp_path / "nominal.xarff"
    nominal.write_text("@relation n\n@attribute c {a,b}\n@attribute L RANKING {x,y}\n@data\na,x>y\nb,y>x\n")
    refused = run("convert", str(nominal), str(tmp_path / "out.csv"))
    assert refused.exit_code == 1 and refused.output.startswith(f"Error: {tmp_path / 'out.csv'}: cannot write"), (
        refused.output
    )
    converted = tmp_path / "iris.parquet"
    assert run("convert", IRIS, str(converted)).exit_code == 0
    assert run("convert", str(tmp_path / "absent.xarff"), str(converted)).exit_code == 1
    assert converted.stat().st_size > 0


def test_a_dash_is_standard_output_and_standard_input_is_refused(model, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = run("predict", "-l", model, "-T", IRIS, "-o", "-")
    assert out.exit_code == 0 and len(out.stdout.splitlines()) == 150
    assert not (tmp_path / "-").exists()
    stdin = run("predict", "-l", model, "-T", "-")
    assert stdin.exit_code == 2 and "reads a data file, not standard input" in stdin.output


def test_info_of_a_missing_file_says_so():
    out = run("info", "no-such-model")
    assert out.exit_code == 1 and out.output == "Error: no-such-model: file not found\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_on_stdout_is_one_line():
    with open("/dev/full", "w") as full:
        done = lrank("train", "-t", IRIS, "-x", "3", "--format", "json", stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1
    assert done.stderr == "Error: cannot write the output: No space left on device\n"


def test_a_reader_that_went_away_ends_the_command_quietly_with_141():
    # `lrank learners | head -1`: the read end is closed before anything is written.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = lrank("learners", stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_closed_stdout_is_an_error_not_silence(tmp_path):
    done = lrank("info", IRIS, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=_close_stdout)
    assert done.returncode == 1
    assert done.stderr == "Error: standard output is closed: redirect it to a file or /dev/null\n"
    # A command that writes files only does not need stdout.
    out = tmp_path / "iris.parquet"
    done = lrank("convert", IRIS, str(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_close_stdout)
    assert done.returncode == 0 and out.stat().st_size > 0


def test_dev_stdout_as_the_output_writes_into_the_pipe(model):
    # /dev/stdout is written in place (it was resolved to a pipe's /proc name and refused).
    done = lrank("predict", "-l", model, "-T", IRIS, "-o", "/dev/stdout", stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 150


def _close_stdout() -> None:
    os.close(1)


def test_ctrl_c_during_a_fit_ends_with_130(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "lrank.cli", "train", "-t", IRIS, "--no-cv", "-j", "1", "--", "-I", "1000000"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)  # imports done, the forest growing
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "interrupted" and "Traceback" not in err


def test_sigterm_is_caught_only_where_it_would_end_the_process(tmp_path):
    import threading

    from lrank.cli.signals import Terminated, terminated_as_interrupt

    def killed() -> None:
        with terminated_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises at the next bytecode

    with pytest.raises(Terminated):
        killed()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    # A handler of the user's (an embedding program) stays theirs.
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda *_: seen.append(1))
    try:
        with terminated_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)
        assert seen == [1]
    finally:
        signal.signal(signal.SIGTERM, previous)
    # Off the main thread (where Python cannot set handlers) the block runs as it is.
    failures = []

    def other() -> None:
        try:
            with terminated_as_interrupt():
                pass
        except Exception as exc:
            failures.append(exc)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert failures == []


@pytest.mark.parametrize(
    "args",
    [
        ["train", "-t", IRIS, "--missing", "nan"],
        ["train", "-t", IRIS, "--split-percentage", "nan"],
        ["experiment", "report", "absent.parquet", "--alpha", "nan"],
    ],
)
def test_nan_is_no_number_in_a_range(args):
    # NaN fails every comparison, so it passed click's range check and reached the data, told
    # as the data file's fault ("iris.xarff: missing-label probability must lie in [0, 1]").
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "'nan' is not a number" in result.output


@pytest.mark.parametrize(
    "args", [["info", "-"], ["train", "-t", "-"], ["convert", "-", "out.csv"], ["train", "-t", "iris", "-T", "-"]]
)
def test_standard_input_is_refused_as_such(args):
    """'-' read as a file of that name: 'file not found', 'unknown data file suffix' (an audit)."""
    result = CliRunner().invoke(main, args, input="A1,L1,L2\n1,1,2\n")
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        "Error: -: data are read from files only: standard input ('-') is not supported, save the data to a file"
    ]
