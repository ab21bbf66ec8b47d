"""Mutation operators on ws-schedule's JSON dependence graphs (the decoded
document), for the schedule mode: values of every kind where integers belong,
unknown or unhashable edge endpoints, missing and unknown keys, huge delays,
reservations and warp counts, many ops, zero-distance cycles.

    {"from": "S", "to": "P", "delay": 1}   --endpoint-->   {"from": "S", "to": ["P"], "delay": 1}
"""

from __future__ import annotations

import copy
import json
import random

VALUES = [0, 1, -1, 2, 3, 255, 2**31 - 1, 2**31, 2**63, 10**30, 1.5, float("nan"), float("inf"), "1", "", None,
          True, [], [1], {}, {"a": 1}, 10**9]


def _containers(doc, path=()):
    """(path, container) of every object and list in the document."""
    yield path, doc
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        if isinstance(v, (dict, list)):
            yield from _containers(v, (*path, k))


def set_value(doc, rng: random.Random):
    """A member anywhere gets a value of another kind."""
    spots = [(c, k) for _, c in _containers(doc) for k in (c.keys() if isinstance(c, dict) else range(len(c)))]
    if spots:
        c, k = rng.choice(spots)
        c[k] = rng.choice(VALUES)
    return doc


def drop_key(doc, rng: random.Random):
    spots = [c for _, c in _containers(doc) if isinstance(c, dict) and c]
    if spots:
        c = rng.choice(spots)
        del c[rng.choice(list(c))]
    return doc


def unknown_key(doc, rng: random.Random):
    spots = [c for _, c in _containers(doc) if isinstance(c, dict)]
    rng.choice(spots)["bogus"] = 1
    return doc


def endpoint(doc, rng: random.Random):
    """An edge end names no op, or is not a name at all."""
    edges = doc.get("edges") if isinstance(doc, dict) else None
    if isinstance(edges, list) and edges and isinstance(edges[0], dict):
        e = rng.choice(edges)
        e[rng.choice(["from", "to"])] = rng.choice(["Q", ["S"], {"op": "S"}, 3, None, ""])
    return doc


def huge(doc, rng: random.Random):
    """A delay, reservation or warp count far beyond any kernel's."""
    if not isinstance(doc, dict):
        return doc
    kind = rng.randrange(4)
    ops = doc.get("ops") if isinstance(doc.get("ops"), list) else []
    if kind == 0 and isinstance(doc.get("edges"), list) and doc["edges"]:
        e = rng.choice(doc["edges"])
        if isinstance(e, dict):
            e["delay"] = rng.choice([10**6, 10**9, 2**31 - 1])
    elif kind == 1 and ops and isinstance(ops[0], dict) and isinstance(doc.get("units"), dict) and doc["units"]:
        unit = rng.choice(list(doc["units"]))
        rng.choice([o for o in ops if isinstance(o, dict)] or [{}])["uses"] = {unit: [1] * rng.choice([10**4, 10**6])}
    elif kind == 2:
        doc["warps"] = {"count": rng.choice([64, 10**4, 10**6, 2**31 - 1]), "reg_limit": rng.choice([1, 255])}
    else:
        n = rng.choice([200, 1000, 1001, 3000])
        doc["ops"] = ops + [{"name": f"x{i}", "uses": {}} for i in range(n)]
        doc["edges"] = (doc.get("edges") if isinstance(doc.get("edges"), list) else []) + [
            {"from": f"x{i}", "to": f"x{(i + 1) % n}", "delay": 1, "distance": int(i == n - 1 and rng.random() < .5)}
            for i in range(n)]
    return doc


def duplicate_op(doc, rng: random.Random):
    ops = doc.get("ops") if isinstance(doc, dict) else None
    if isinstance(ops, list) and ops:
        ops.append(copy.deepcopy(rng.choice(ops)))
    return doc


MUTATORS = {"set_value": set_value, "drop_key": drop_key, "unknown_key": unknown_key, "endpoint": endpoint,
            "huge": huge, "duplicate_op": duplicate_op}


def mutate(text: str, rng: random.Random, names: list[str]) -> str:
    """Apply the named operators to the graph in ``text``; JSON text out."""
    from wsdialects.schedule.graph import strip_line_comments

    doc = json.loads(strip_line_comments(text))
    for name in names:
        doc = MUTATORS[name](doc, rng)
    return json.dumps(doc, indent=1)
