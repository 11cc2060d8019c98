"""ARFF / XARFF reader and XARFF writer.

The accepted syntax is WEKA's ARFF as extended by WEKA-LR (XARFF):

* ``@relation NAME``, then ``@attribute NAME TYPE`` lines, then ``@data``.
  Keywords and type names are case-insensitive; names may be quoted with
  ``'`` or ``"`` (backslash escapes ``\\\\ \\' \\" \\n \\r \\t`` inside quotes).
* TYPE is ``numeric``/``real``/``integer`` (all read as float64), ``string``,
  a nominal list ``{v1,v2,...}`` or ``RANKING {l1,l2,...}`` (the labels).
  ``date [pattern]`` (a Java date pattern, read as milliseconds since 1970-01-01 UTC by
  :mod:`.dates`) is a numeric attribute; ``relational`` is not supported.
* ``%`` starts a comment (a whole line, or the rest of a line outside
  quotes); blank lines are ignored anywhere; LF or CRLF line ends; a UTF-8
  byte-order mark is ignored.
* Data values are separated by a comma and/or blanks (spaces, tabs), so the
  KEBI files' ``,<TAB>`` works.  Two commas with nothing between them are an
  error (WEKA would silently collapse them).  Values may be quoted; an
  unquoted ``?`` is a missing feature value (a quoted ``'?'`` is the text ?).
* An optional instance weight in braces as the last value:
  ``1.0,2.0,a>b>c,{0.5}`` (WEKA's syntax).  Weights must be finite and >= 0.
* A ranking is ``a>b>c`` (most preferred first); leaving labels out gives an
  incomplete ranking; ``|`` separates chains of a partial order
  (``a>b|c>d``).  Labels inside a ranking may be quoted individually
  (``'x y'>z``); :mod:`lrank.ranking_notation` parses and formats this
  notation.  The RANKING attribute may be declared at any position; the
  writer always puts it last.
* Sparse rows (``{0 1.0, 3 2.0}``) are not supported.

Every problem is reported as :class:`lrank.errors.DataFormatError` naming the
file and the 1-based line.

Modules, each importing only those listed after it: :mod:`.reader` (:func:`read_arff`),
:mod:`.writer` (:func:`write_xarff`), :mod:`.rows` (the data section), :mod:`.header`
(``@relation``, ``@attribute``, ``@data``), :mod:`.dates` (``DATE`` patterns and values),
:mod:`.lexer` (blanks, words, value lists, row tokens).  Quoting is :mod:`lrank.quoting`, file
access :mod:`lrank.data.textfile`.
"""

from __future__ import annotations

from lrank.data.arff.reader import read_arff
from lrank.data.arff.writer import write_xarff
from lrank.data.textfile import read_text_lines

__all__ = ["read_arff", "read_text_lines", "write_xarff"]
