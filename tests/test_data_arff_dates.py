"""ARFF DATE attributes (lrank.data.arff.dates): WEKA's Java date patterns read as milliseconds
since 1970-01-01 UTC, checked against Python's own date parsing as the slow reference."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank.data import read_arff
from lrank.data.arff.dates import DatePattern
from lrank.errors import DataFormatError
from lrank.quoting import MalformedTextError

# Java pattern -> the strftime/strptime format that writes and reads the same text.
PATTERNS = {
    "yyyy-MM-dd'T'HH:mm:ss": "%Y-%m-%dT%H:%M:%S",
    "yyyy-MM-dd HH:mm:ss": "%Y-%m-%d %H:%M:%S",
    "yyyyMMdd": "%Y%m%d",
    "dd.MM.yyyy": "%d.%m.%Y",
    "dd/MMM/yyyy hh:mm a": "%d/%b/%Y %I:%M %p",
    "EEEE, d MMMM yyyy": "%A, %d %B %Y",
    "yyyy-DDD": "%Y-%j",
    "MM/dd/yy HH:mm": "%m/%d/%y %H:%M",
    "yyyy-MM-dd'T'HH:mm:ssXXX": "%Y-%m-%dT%H:%M:%S%z",
    "yyyy-MM-dd HH:mm:ss Z": "%Y-%m-%d %H:%M:%S %z",
}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def reference_millis(text: str, fmt: str) -> float:
    when = datetime.strptime(text, fmt)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (when - EPOCH) // timedelta(milliseconds=1)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(PATTERNS)),
    st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2068, 12, 31)),
    st.integers(-12 * 60, 14 * 60),
)
def test_patterns_agree_with_python_parsing(pattern, when, offset_minutes):
    fmt = PATTERNS[pattern]
    when = when.replace(microsecond=0, tzinfo=timezone(timedelta(minutes=offset_minutes)))
    text = when.strftime(fmt)
    if "%z" in fmt and pattern.endswith("XXX"):
        text = text[:-2] + ":" + text[-2:]  # ISO 8601's +hh:mm
    assert DatePattern(pattern).millis(text) == reference_millis(text, fmt), text


def test_milliseconds_zones_and_literals():
    assert DatePattern("yyyy-MM-dd HH:mm:ss.SSS").millis("1970-01-01 00:00:01.250") == 1250.0
    assert DatePattern("yyyy-MM-dd HH:mm:ss.S").millis("1970-01-01 00:00:00.5") == 5.0  # Java: S counts ms
    assert DatePattern("yyyy-MM-dd'T'HH:mmXXX").millis("1970-01-01T01:00Z") == 3_600_000.0
    assert DatePattern("yyyy-MM-dd HH:mm z").millis("1970-01-01 01:00 GMT+01:00") == 0.0
    assert DatePattern("yyyy-MM-dd HH:mm z").millis("1970-01-01 00:00 UTC") == 0.0
    assert DatePattern("yyyy-MM-dd 'at' h a").millis("1970-01-01 at 12 AM") == 0.0
    assert DatePattern("yyyy-MM-dd 'at' h a").millis("1970-01-01 at 12 pm") == 12 * 3_600_000.0
    assert DatePattern("yyyy-MM-dd kk").millis("1970-01-02 24") == 86_400_000.0
    assert DatePattern("''yy''").millis("'70'") == 0.0
    assert DatePattern("yyyy-MM-dd").millis("1969-12-31") == -86_400_000.0


@pytest.mark.parametrize(
    ("pattern", "value", "problem"),
    [
        ("yyyy-MM-dd", "2021-02-29", "not a valid date"),
        ("yyyy-MM-dd", "2021-13-01", "not a valid date"),
        ("yyyy-MM-dd", "2021-01-01 10:00", "does not match"),
        ("yyyy-MM-dd HH:mm", "2021-01-01 24:00", "not a valid date"),
        ("yyyy-MM-dd hh a", "2021-01-01 13 PM", "hour 13 is outside 1..12"),
        ("yyyy-MMM-dd", "2021-Foo-01", "not an English month name"),
        ("EEE yyyy", "Xyz 2021", "not an English day name"),
        ("yyyy-DDD", "2021-366", "not a valid date"),
        ("ss.SSS", "01.1000", "millisecond 1000 is outside 0..999"),
        ("yyyy XXX", "2021 +25:00", "time zone '+25:00' is out of range"),
    ],
)
def test_bad_values_are_named(pattern, value, problem):
    with pytest.raises(MalformedTextError, match=re.escape(problem)):
        DatePattern(pattern).millis(value)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("yyyy-ww", "pattern letter 'w' (week in year) is not supported"),
        ("yyyy 'at", "unclosed quote"),
        ("yyyy-MM-dd at", "unknown pattern letter 't'"),
        ("--", "has no date or time field"),
    ],
)
def test_bad_patterns_are_named(pattern, problem):
    with pytest.raises(MalformedTextError, match=re.escape(problem)):
        DatePattern(pattern)


DATES = """@relation d
@attribute when date "yyyy-MM-dd HH:mm:ss"
@attribute day DATE yyyyMMdd
@attribute iso date
@attribute x numeric
@attribute L RANKING {a,b,c}
@data
"2020-01-15 10:30:00", 20200115, 2020-01-15T10:30:00, 1, a>b>c
"1969-12-31 23:59:59", 19691231, ?, 2, b>a>c
?, 20001231, 2000-02-29T00:00:00, 3, c>b>a
"""


def test_a_file_reads_dates_as_numeric_milliseconds(tmp_path):
    p = tmp_path / "d.xarff"
    p.write_text(DATES)
    data = read_arff(p)
    assert [a.kind for a in data.attributes] == ["numeric"] * 4
    noon = datetime(2020, 1, 15, 10, 30, tzinfo=timezone.utc)
    expected = {
        "when": [(noon - EPOCH).total_seconds() * 1000, -1000.0, None],
        "day": [(noon.replace(hour=0, minute=0) - EPOCH).total_seconds() * 1000, -86_400_000.0, 978_220_800_000.0],
        "iso": [(noon - EPOCH).total_seconds() * 1000, None, 951_782_400_000.0],
        "x": [1.0, 2.0, 3.0],
    }
    assert data.features.to_dict(as_series=False) == expected
    np.testing.assert_array_equal(data.rankings, [[1, 2, 3], [2, 1, 3], [3, 2, 1]])


@pytest.mark.parametrize(
    ("declaration", "value", "line", "fragment"),
    [
        ('date "yyyy-MM-dd"', "2001-02-29", 5, "date '2001-02-29' is not a valid date"),
        ('date "yyyy-ww"', "2001-02", 2, "pattern letter 'w'"),
        ("date yyyy-MM-dd", "15.01.2020", 5, "date '15.01.2020' does not match the attribute's format 'yyyy-MM-dd'"),
    ],
)
def test_file_errors_name_the_line(tmp_path, declaration, value, line, fragment):
    p = tmp_path / "bad.xarff"
    p.write_text(f"@relation r\n@attribute d {declaration}\n@attribute L RANKING {{a,b}}\n@data\n{value},a>b\n")
    with pytest.raises(DataFormatError) as info:
        read_arff(p)
    assert str(info.value).startswith(f"{p}:{line}: "), str(info.value)
    assert fragment in str(info.value)


def test_train_and_predict_with_a_date_attribute(tmp_path):
    """Whether the label order follows the date: a tree splits on the date alone."""
    from click.testing import CliRunner
    from lrank.cli import main

    rows = []
    for k in range(40):
        day = datetime(2020, 1, 1) + timedelta(days=k)
        ranking = "a>b>c" if k < 20 else "c>b>a"
        rows.append(f"'{day:%d %b %Y}',{k % 3},{ranking}")
    header = "@relation d\n@attribute day DATE 'dd MMM yyyy'\n@attribute noise numeric\n@attribute L RANKING {a,b,c}\n"
    train = tmp_path / "train.xarff"
    train.write_text(header + "@data\n" + "\n".join(rows) + "\n")
    model = tmp_path / "m.lrm"
    runner = CliRunner()
    fitted = runner.invoke(main, ["train", "-t", str(train), "-W", "LRT", "--no-cv", "-d", str(model)])
    assert fitted.exit_code == 0, fitted.output
    test = tmp_path / "test.xarff"
    test.write_text(header + "@data\n'03 Jan 2020',1,?\n'05 Feb 2020',2,?\n")
    out = tmp_path / "out.xarff"
    predicted = runner.invoke(main, ["predict", "-l", str(model), "-T", str(test), "-o", str(out)])
    assert predicted.exit_code == 0, predicted.output
    np.testing.assert_array_equal(read_arff(out).rankings, [[1, 2, 3], [3, 2, 1]])
