"""Making fuzz inputs: byte mutations, token-aware mutations of text files, structural edits of
JSON documents, and random label-ranking files written from a small grammar.

Every function takes a ``random.Random``: a campaign is reproduced by its seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

# Byte values that mean something to one of the formats: separators, quotes, line ends,
# varint continuations, lengths.
INTERESTING_BYTES = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x0A, 0x0D, 0x22, 0x27, 0x2C, 0x3E, 0x7C, 0x7B, 0x7D, 0x25, 0x3F]

# Tokens put in place of a token of a text file.
TOKENS = [
    "inf", "-inf", "1e999", "-1e999", "NaN", "nan", "?", "'?'", "", "0", "-0", "1e308", "-1e308",
    "5e-324", "1e-320", "9" * 40, "-1", "4294967298", "2147483648", "0x10", "1_000", "١٢", "½",
    "'", '"', "''", "\\", "%", "{", "}", "{0.5}", "{-1}", "{nan}", "{inf}", ">", "|", ">>", "a>", ">a",
    ",", ",,", "\t", " ", "\r", "\r\n", "@data", "@attribute", "@relation", "RANKING", "{}", "é", "\u2028",
    "\x00", "L1", "L0", "L99", "'a b'",
]  # fmt: skip


def mutate_bytes(data: bytes, rng: random.Random, others: list[bytes] | None = None, edits: int = 0) -> bytes:
    """``data`` with 1 to 8 random edits (``edits`` of them if given): bits flipped, bytes set,
    inserted, deleted, repeated, spliced from one of ``others``, the end cut or extended."""
    out = bytearray(data)
    for _ in range(edits or rng.choice([1, 1, 1, 2, 2, 3, 4, 8])):
        n = len(out)
        op = rng.randrange(9)
        at = rng.randrange(n) if n else 0
        if n == 0 or op == 0:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 1:
            out[at] ^= 1 << rng.randrange(8)
        elif op == 2:
            out[at] = rng.choice(INTERESTING_BYTES) if rng.random() < 0.6 else rng.randrange(256)
        elif op == 3:
            del out[at : at + rng.randint(1, 32)]
        elif op == 4:
            out[at:at] = out[at : at + rng.randint(1, 64)] * rng.randint(1, 4)
        elif op == 5 and others:
            other = rng.choice(others)
            if other:
                start = rng.randrange(len(other))
                piece = other[start : start + rng.randint(1, 128)]
                out[at : at + len(piece)] = piece
        elif op == 6:
            del out[rng.randrange(n + 1) :]
        elif op == 7:
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        else:
            out[at] = (out[at] + rng.choice([-1, 1, 16, -16])) % 256
    return bytes(out)


def mutate_text(data: bytes, rng: random.Random) -> bytes:
    """A text file with token-aware edits: a token replaced by one of :data:`TOKENS`, a line
    deleted, repeated or swapped, a line's separators changed; bytes edited now and then."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        if not lines:
            lines = [""]
        k = rng.randrange(len(lines))
        op = rng.randrange(7)
        if op <= 2:
            lines[k] = _replace_token(lines[k], rng)
        elif op == 3:
            del lines[k]
        elif op == 4:
            lines[k:k] = [lines[k]] * rng.randint(1, 3)
        elif op == 5:
            j = rng.randrange(len(lines))
            lines[k], lines[j] = lines[j], lines[k]
        else:
            lines[k] = lines[k].replace(rng.choice([",", ">", " ", "'"]), rng.choice(TOKENS), rng.randint(1, 3))
    out = "\n".join(lines).encode("utf-8", "surrogatepass")
    if rng.random() < 0.2:
        out = mutate_bytes(out, rng, edits=rng.randint(1, 3))
    return out


def _replace_token(line: str, rng: random.Random) -> str:
    cuts = [i for i, c in enumerate(line) if c in ",>|{} \t'\""] or [len(line)]
    a = rng.choice(cuts)
    b = min((c for c in cuts if c > a), default=len(line))
    start = a + 1 if a < len(line) and line[a] in ",>|{} \t" else a
    return line[:start] + rng.choice(TOKENS) + line[b:]


# -- JSON documents (model files) ------------------------------------------------------------------

JSON_VALUES: list[Any] = [
    None, 0, 1, -1, 2, 3, 2**31, 2**32 + 2, 2**63, 2**64, -(2**63), 0.5, -0.5, 1e308, -1e308, 5e-324,
    "inf", "nan", "-inf", "", "x", True, False, [], {}, [1, 1], [0], {"Leaf": {"leaf": 0}},
    {"Split": {"feature": 0, "threshold": 0.5, "left": 1, "right": 1}}, {"learner": "LRT", "params": {}},
]  # fmt: skip


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        out.append((*prefix, key))
        out.extend(_paths(child, (*prefix, key)))
    return out


_DEEP = "__lrank_fuzz_deep__"


def mutate_json(doc: Any, rng: random.Random, under: tuple[Any, ...] = ()) -> str:
    """``doc`` with 1 to 3 structural edits below the path ``under``, as JSON text: a value
    replaced by one of :data:`JSON_VALUES`, a key removed, a list emptied or repeated, a value
    nested in up to 100,000 lists (written as text: Python's own JSON could not)."""
    doc = json.loads(json.dumps(doc))
    deep = 0
    for _ in range(rng.choice([1, 1, 2, 3])):
        paths = [p for p in _paths(doc) if p[: len(under)] == under and len(p) > len(under)]
        if not paths:
            break
        path = rng.choice(paths)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        op = rng.randrange(7)
        if op <= 2:
            parent[key] = rng.choice(JSON_VALUES)
        elif op == 3:
            del parent[key]
        elif op == 4 and isinstance(parent[key], list):
            parent[key] = parent[key] * rng.choice([0, 2, 3, 50])
        elif op == 5 and not deep:
            deep = rng.choice([2, 20, 200, 100_000])
            parent[key] = _DEEP
        elif op == 6:
            parent[key] = [parent[key]] * rng.randint(1, 3)
    text = json.dumps(doc)
    return text.replace(json.dumps(_DEEP), nested_json(deep)) if deep else text


def nested_json(depth: int) -> str:
    return "[" * depth + "]" * depth


# -- random label-ranking files from a grammar -----------------------------------------------------


def _name(rng: random.Random) -> str:
    pool = ["a", "b", "x y", "l>1", "l|2", "it's", 'q"', "%", "{}", "é", "L1", "?", "", "\\", "a,b", "\t"]
    return rng.choice(pool) + str(rng.randrange(1000)) if rng.random() < 0.7 else rng.choice(pool)


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\t", "\\t") + "'"


def _value(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.7:
        return repr(round(rng.uniform(-5, 5), rng.randint(0, 6)))
    return rng.choice(["?", "0", "-0", "1e308", "5e-324", "1e-300", "3", "NaN", "inf"])


def random_xarff(rng: random.Random) -> bytes:
    """An XARFF file of random shape: numeric, nominal and string attributes with awkward names,
    labels, complete, incomplete and partial rankings, weights, comments, blank lines."""
    n_attr, m = rng.randint(0, 5), rng.choice([1, 2, 3, 4, 6, 12, rng.randint(1, 300)])
    n = rng.choice([1, 2, 3, 5, 10, 30, rng.randint(1, 200)])
    labels = list(dict.fromkeys(_name(rng) or "l" for _ in range(m)))
    kinds = [rng.choice(["numeric", "numeric", "nominal", "string"]) for _ in range(n_attr)]
    nominal = {j: list(dict.fromkeys(_name(rng) or "v" for _ in range(rng.randint(1, 5)))) for j in range(n_attr)}
    names = list(dict.fromkeys(_name(rng) or f"f{j}" for j in range(n_attr)))
    kinds = kinds[: len(names)]
    rank_at = rng.randint(0, len(names))
    lines = [f"@relation {_quote(_name(rng))}", "% a comment"]
    for j, (name, kind) in enumerate(zip(names, kinds)):
        if j == rank_at:
            lines.append(f"@attribute L RANKING {{{','.join(_quote(lab) for lab in labels)}}}")
        decl = "{" + ",".join(_quote(v) for v in nominal[j]) + "}" if kind == "nominal" else kind.upper()
        lines.append(f"@attribute {_quote(name)} {decl}")
    if rank_at >= len(names):
        lines.append(f"@attribute L RANKING {{{','.join(_quote(lab) for lab in labels)}}}")
    lines += ["", "@data"]
    for _ in range(n):
        cells = []
        for j, kind in enumerate(kinds):
            if j == rank_at:
                cells.append(_ranking(labels, rng))
            if kind == "numeric":
                cells.append(_value(rng))
            elif kind == "nominal":
                cells.append("?" if rng.random() < 0.1 else _quote(rng.choice(nominal[j])))
            else:
                cells.append("?" if rng.random() < 0.1 else _quote(_name(rng)))
        if rank_at >= len(kinds):
            cells.append(_ranking(labels, rng))
        row = rng.choice([",", ", ", ",\t", " "]).join(cells)
        if rng.random() < 0.1:
            row += ",{" + rng.choice(["0.5", "2", "0", "1e-300"]) + "}"
        lines.append(row)
    return ("\n".join(lines) + rng.choice(["\n", "\r\n", ""])).encode()


def _ranking(labels: list[str], rng: random.Random) -> str:
    order = rng.sample(labels, rng.randint(1, len(labels)))
    if len(order) > 3 and rng.random() < 0.15:
        cut = rng.randint(1, len(order) - 1)
        return ">".join(map(_quote, order[:cut])) + "|" + ">".join(map(_quote, order[cut:]))
    return ">".join(map(_quote, order))


def random_kebi_csv(rng: random.Random) -> bytes:
    """A KEBI-layout CSV of random shape: features, then L1..Lm positions (0 or empty = missing)."""
    d, m = rng.randint(0, 5), rng.choice([1, 2, 3, 5, 10, rng.randint(1, 200)])
    n = rng.choice([1, 2, 5, 20, rng.randint(1, 200)])
    head = [f"A{j + 1}" for j in range(d)] + [f"L{t + 1}" for t in range(m)]
    if d and rng.random() < 0.1:
        head[0] = rng.choice(["L", "L1", '"A 1"', "A2"])
    lines = [",".join(head)]
    for _ in range(n):
        k = rng.randint(1, m)
        order = rng.sample(range(m), k)
        pos = [""] * m
        for p, label in enumerate(order):
            pos[label] = str(p + 1)
        feats = [rng.choice(["", "?"]) if rng.random() < 0.05 else _value(rng) for _ in range(d)]
        lines.append(",".join(feats + [p or rng.choice(["", "0"]) for p in pos]))
    return ("\n".join(lines) + "\n").encode()
