"""What a learner is to the command line: :class:`LearnerSpec`, its WEKA-style :class:`LearnerOption`
and the parsers of option values.

The estimator modules define their learners' specs next to their classes, so they import this
module; the registry (:mod:`lrank.registry`) imports the estimator modules to collect the specs.
This module therefore imports neither, and lies outside the registry package (importing a
module of a package runs the package's ``__init__`` first). A meta-learner's option that names
another learner (Bagging's ``-W``) needs the registry's lookup all the same: the registry hands
it over with :func:`set_learner_lookup` when it is imported, and the ``lrank`` package imports
the registry, so the lookup is in place whatever module of lrank is imported first.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lrank.errors import InvalidParameterError, LrankError

__all__ = [
    "LearnerOption",
    "LearnerOptionError",
    "LearnerSpec",
    "find_learner",
    "parse_choice",
    "parse_depth",
    "parse_learner_name",
    "parse_max_bins",
    "parse_max_features",
    "parse_optional_count",
    "parse_probability",
    "parse_share_percent",
    "set_learner_lookup",
]


class LearnerOptionError(LrankError, ValueError):
    """A learner name or learner option given on the command line is wrong."""


_learner_lookup: Callable[[str], LearnerSpec] | None = None


def set_learner_lookup(lookup: Callable[[str], LearnerSpec]) -> None:
    """Install the function that finds a learner by name (the registry's ``get_learner``)."""
    global _learner_lookup
    _learner_lookup = lookup


def find_learner(name: str) -> LearnerSpec:
    """The learner called ``name``, as the registry finds it (LearnerOptionError if unknown)."""
    if _learner_lookup is None:  # pragma: no cover - the lrank package imports lrank.registry
        raise RuntimeError("no learner lookup installed: import lrank.registry")
    return _learner_lookup(name)


# -- parsers of option values: str -> value, ValueError with a short reason when it is wrong ------


def parse_max_features(text: str) -> str | int | float:
    if text in ("log2+1", "sqrt", "log2", "all"):
        return text
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ValueError("expected 'log2+1', 'sqrt', 'log2', 'all', an int or a float") from None


def parse_depth(text: str) -> int | None:
    value = int(text)
    if value < 0:
        raise ValueError("must be >= 0 (0 means unlimited)")
    return None if value == 0 else value


def parse_max_bins(text: str) -> int | None:
    value = int(text)
    # Said here in the command line's terms: the core's "None" is -bins 0.
    if value < 0 or value == 1 or value > 255:
        raise ValueError("must be 2 to 255, or 0 for the exact search")
    return None if value == 0 else value


def parse_optional_count(text: str) -> int | None:
    value = int(text)
    if value < 0:
        raise ValueError("must be >= 0 (0 means choose automatically)")
    return None if value == 0 else value


def parse_choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text

    parse.__name__ = "|".join(choices)
    return parse


def parse_probability(text: str) -> float:
    """A probability below 1 (1 would delete every label)."""
    value = float(text)
    if not 0 <= value < 1:
        raise ValueError("must lie in [0, 1)")
    return value


def parse_share_percent(text: str) -> float:
    value = float(text)
    if not 0 < value <= 100:
        raise ValueError("must lie in (0, 100]")
    return value / 100.0


def parse_learner_name(text: str) -> str:
    return find_learner(text).name


def _zero_means_none(parse: Callable[[str], Any]) -> bool:
    """Whether the option text "0" stands for None (unlimited depth, k chosen by the learner)."""
    try:
        return parse("0") is None
    except (ValueError, TypeError, LrankError):
        return False


def _reason(exc: ValueError) -> str:
    """A parser's complaint in words, not Python's (``int("abc")`` says "invalid literal for int()
    with base 10: 'abc'")."""
    text = str(exc)
    if text.startswith("invalid literal for int()"):
        return "not a whole number"
    if text.startswith("could not convert string to float"):
        return "not a number"
    return text


def _option_text(parse: Callable[[str], Any], value: Any) -> str:
    """The option text that ``parse`` turns into ``value`` (the inverse of the parsers above)."""
    if parse in (parse_depth, parse_optional_count, parse_max_bins):
        return "0" if value is None else str(value)
    if parse is parse_share_percent:
        return f"{100 * float(value):.12g}"  # %g's 6 digits turned 33.33333 into 33.3333
    if parse is parse_learner_name:
        # The learner whose factory makes this estimator; of LRT, WLRT and FLRT (partials of one
        # class) the one whose fixed keywords the estimator has.
        best, best_fixed = type(value).__name__, -1
        for name, spec in _all_learners().items():
            fixed = getattr(spec.factory, "keywords", {})
            same_class = getattr(spec.factory, "func", spec.factory) is type(value)
            matches = same_class and all(getattr(value, k, object()) == v for k, v in fixed.items())
            if matches and len(fixed) > best_fixed:
                best, best_fixed = name, len(fixed)
        return best
    if isinstance(value, bool):  # a choice of words for True and False (GBLR's -early on/off)
        for word in ("on", "off", "true", "false", "yes", "no"):
            with contextlib.suppress(ValueError, TypeError, LrankError):
                if parse(word) is value:
                    return word
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)  # never rounded (1/3 stays 1/3)
    return "0" if value is None else str(value)


def _reads_back(parse: Callable[[str], Any], text: str, value: Any) -> bool:
    """Whether ``parse`` reads ``text`` as ``value`` (else the text would misstate it)."""
    try:
        back = parse(text)
    except Exception:
        return False
    if isinstance(value, float) and isinstance(back, float):
        # NaN, or a value the text gives to within rounding (a share written as a percentage)
        return back != back if value != value else math.isclose(back, value, rel_tol=1e-9)
    if isinstance(value, float) and isinstance(back, int) and not isinstance(back, bool):
        return False  # 1.0 and 1 differ where a parser tells them apart (max_features)
    try:
        return bool(back == value)
    except Exception:  # arrays and the like: no plain comparison
        return False


def _all_learners() -> dict[str, LearnerSpec]:
    from lrank.registry import available_learners  # the registry is loaded with lrank

    return available_learners()


# -- the spec ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LearnerOption:
    """One WEKA-style option: ``flag`` (e.g. ``-I``) sets estimator parameter ``param``."""

    flag: str
    param: str
    help: str
    parse: Callable[[str], Any] | None = int  # None: a switch setting ``param`` to ``switch_value``
    metavar: str = "N"
    switch_value: Any = True


def max_bins_option(default: int | None, what: str = "") -> LearnerOption:
    """The ``-bins N`` option of the tree learners (``max_bins``; 0 = the exact search)."""
    return LearnerOption(
        "-bins",
        "max_bins",
        f"histogram search{what} with at most N bins per feature, 0 = exact search (default {default or 0})",
        parse_max_bins,
    )


def min_split_option(default: str = "2") -> LearnerOption:
    """The ``-M`` option of the tree learners (``min_samples_split``)."""
    return LearnerOption(
        "-M",
        "min_samples_split",
        f"smallest node weight that is split, or a share of the training weight below 1 (default {default})",
        float,
        "W",
    )


def min_leaf_option(default: str = "1") -> LearnerOption:
    """The ``-L`` option of the tree learners (``min_samples_leaf``)."""
    return LearnerOption(
        "-L",
        "min_samples_leaf",
        f"least weight on each side of a split, or a share of the training weight below 1 (default {default})",
        float,
        "W",
    )


def max_features_option(default: str, *, of: str = "", drawn: bool = False) -> LearnerOption:
    """The ``-K`` option of the tree learners (``max_features``)."""
    verb = "features drawn per node" if drawn else f"features per node{of}"
    choices = (
        "a share, N, sqrt, log2+1 or all"
        if default not in ("all", "sqrt")
        else ("all, sqrt, log2+1, N or a share" if default == "all" else "sqrt, log2+1, all, N or a share")
    )
    return LearnerOption("-K", "max_features", f"{verb}: {choices} (default {default})", parse_max_features, "K")


def scaling_option() -> LearnerOption:
    """The ``-scale`` option of the instance-based learners (``scaling``)."""
    return LearnerOption(
        "-scale",
        "scaling",
        "features: minmax, standard or none (default minmax)",
        parse_choice("minmax", "standard", "none"),
        "S",
    )


def oob_option(members: str = "trees") -> LearnerOption:
    """The ``-oob`` switch of the bootstrap ensembles (``oob_score``)."""
    return LearnerOption(
        "-oob",
        "oob_score",
        f"report the out-of-bag tau of the model built on all training data (each row ranked by the {members} "
        "that did not draw it)",
        None,
        "",
        switch_value=True,
    )


@dataclass(frozen=True)
class LearnerSpec:
    """A learner as the CLI sees it."""

    name: str
    factory: Callable[..., Any]
    summary: str
    reference: str = ""
    options: tuple[LearnerOption, ...] = field(default_factory=tuple)
    # Estimator parameters the CLI sets from its own options, when the estimator has them.
    seed_param: str | None = "random_state"
    jobs_param: str | None = "n_jobs"
    # Meta-learners (WEKA's style): the option setting this parameter names a learner, and the
    # tokens after a "--" are that learner's options ("-W LRT -I 100 -- -depth 5").
    nested_param: str | None = None
    nested_default: str | None = None

    def parse_options(self, args: Sequence[str]) -> dict[str, Any]:
        """Estimator parameters from WEKA-style tokens, e.g. ``["-I", "100", "-depth", "0"]``."""
        params, nested = self._split_nested(args)
        if self.nested_param is not None:
            name = params.pop(self.nested_param, self.nested_default)
            if name is None:
                raise LearnerOptionError(f"{self.name}: name the learner to use with -W")
            inner = find_learner(str(name))
            params[self.nested_param] = inner.factory(**inner.parse_options(nested))
        return params

    def learners_used(self, args: Sequence[str] = ()) -> list[LearnerSpec]:
        """This learner and, for a meta-learner, the learners nested in it by ``args``."""
        params, nested = self._split_nested(args)
        name = params.get(self.nested_param, self.nested_default) if self.nested_param is not None else None
        if name is None:
            return [self]
        return [self, *find_learner(str(name)).learners_used(nested)]

    def _split_nested(self, args: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
        """Own parameters, and a meta-learner's tokens after ``--`` (its nested learner's)."""
        tokens = list(args)
        nested: list[str] = []
        if self.nested_param is not None and "--" in tokens:
            cut = tokens.index("--")
            tokens, nested = tokens[:cut], tokens[cut + 1 :]
        return self._parse_own(tokens), nested

    def _parse_own(self, tokens: list[str]) -> dict[str, Any]:
        by_flag = {o.flag: o for o in self.options}
        by_flag.update({"--" + o.param.replace("_", "-"): o for o in self.options})
        params: dict[str, Any] = {}
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            opt = by_flag.get(tok)
            if opt is None:
                known = ", ".join(o.flag for o in self.options) or "none"
                if tok == "--":  # lrank train's separator, typed inside a learner string
                    rest = " ".join(tokens[:i] + tokens[i + 1 :])
                    raise LearnerOptionError(
                        f"{self.name}: unknown option '--' (options: {known}); in a learner string the "
                        f"options follow the name without '--', e.g. '{f'{self.name} {rest}'.strip()}'"
                    )
                if tok in ("-h", "--help", "-help"):
                    raise LearnerOptionError(f"{self.name}: `lrank learners {self.name}` lists its options ({known})")
                raise LearnerOptionError(f"{self.name}: unknown option {tok!r} (options: {known})")
            if opt.parse is None:
                params[opt.param] = opt.switch_value
                i += 1
                continue
            if i + 1 >= len(tokens):
                raise LearnerOptionError(f"{self.name}: option {tok} needs a value ({opt.metavar})")
            try:
                params[opt.param] = opt.parse(tokens[i + 1])
            except ValueError as exc:
                bad = f"{self.name}: bad value {tokens[i + 1]!r} for {tok}: {_reason(exc)}"
                raise LearnerOptionError(bad) from None
            except Exception as exc:  # a plug-in's parser raising another kind (a dict lookup's KeyError)
                bad = f"{self.name}: bad value {tokens[i + 1]!r} for {tok}: {type(exc).__name__}: {exc}"
                raise LearnerOptionError(bad) from None
            i += 2
        return params

    def build(
        self,
        args: Sequence[str] = (),
        *,
        seed: int | None = None,
        n_jobs: int | None = None,
        categorical_features: Any = None,
    ) -> Any:
        """A fresh estimator with the given options; the seed, the threads and the nominal
        features of the data (a boolean mask) are set when the learner has such parameters."""
        params = self.parse_options(args)
        est = self.factory(**params)
        names = est.get_params(deep=False) if hasattr(est, "get_params") else {}
        if (
            seed is not None
            and self.seed_param is not None
            and self.seed_param in names
            and self.seed_param not in params
        ):
            est.set_params(**{self.seed_param: seed})
        if (
            n_jobs is not None
            and self.jobs_param is not None
            and self.jobs_param in names
            and self.jobs_param not in params
        ):
            est.set_params(**{self.jobs_param: n_jobs})
        if categorical_features is not None and "categorical_features" in names:
            est.set_params(categorical_features=categorical_features)
        return est

    def describe(self, params: dict[str, Any]) -> str:
        """An estimator's parameters in this learner's own options (``-I 50 -depth 8``), as a
        user would write them after ``--``; parameters without an option (seed, threads) are
        left out, a nested learner is written ``-W NAME`` and its own options follow ``--``
        (``-W RPC -I 10 -- -C 10``), as :meth:`parse_options` reads them."""
        words: list[str] = []
        nested: list[str] = []
        for opt in self.options:
            if opt.param not in params:
                continue
            value = params[opt.param]
            if opt.parse is None:  # a switch: shown when it is on
                if value == opt.switch_value:
                    words.append(opt.flag)
                continue
            if value is None and not _zero_means_none(opt.parse):
                continue  # None (e.g. "chosen when fitting") has no option text: the default
            text = _option_text(opt.parse, value)
            if opt.param != self.nested_param and not _reads_back(opt.parse, text, value):
                # "1" for a float 1.0 reads as the int 1 (max_features: one feature, not all):
                # the float's own text; a plug-in's parser that changes the value (t / 100)
                # reads back from no text, and the option is left out rather than misstated.
                if not isinstance(value, float) or not _reads_back(opt.parse, repr(value), value):
                    continue
                text = repr(value)
            words += [opt.flag, text]
            if opt.param == self.nested_param and hasattr(value, "get_params"):
                inner = find_learner(words[-1]).describe(value.get_params(deep=False))
                nested = ["--", inner] if inner else []
        return " ".join(words + nested)

    def option_error(self, err: InvalidParameterError) -> LearnerOptionError | None:
        """An estimator's complaint about one of its parameters, told with this learner's option
        (``LRRF: bad value for -I: must be at least 1``); None when no option sets it."""
        flag = next((o.flag for o in self.options if o.param == getattr(err, "parameter", None)), None)
        if flag is None:
            return None
        return LearnerOptionError(f"{self.name}: bad value for {flag}: {getattr(err, 'reason', err)}")

    def usage(self) -> str:
        """How the learner's options are written after ``--`` (for help texts)."""
        if self.nested_param is None:
            return ""
        return f"-W NAME [other options] [-- NAME's options]  (default NAME: {self.nested_default})"
