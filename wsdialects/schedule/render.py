"""Pictures of a schedule, as self-contained SVG text (no plotting dependency).

``graph_svg`` draws the dependence graph with each op coloured by its warp;
``gantt_svg`` draws the straight-line program Q: ``ceil(L/II)`` copies of the
modulo schedule, II cycles apart, one row per functional unit and per warp (per
member of a ping-pong team, at its offset), with the steady-state window outlined.
"""

from __future__ import annotations

from html import escape

from .graph import Graph
from .solution import Schedule

PALETTE = ["#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a65628", "#f781bf", "#999999",
           "#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3"]
COPY_FILL = ["#9ecae1", "#c7a5e0", "#a1d99b", "#fdd0a2", "#fcbba1", "#d9d9d9"]


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _svg(width: float, height: float, body: list[str]) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12">')
    defs = ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/>'
            '</marker></defs>')
    return "\n".join([head, defs, '<rect width="100%" height="100%" fill="white"/>', *body, "</svg>"]) + "\n"


def _team(graph: Graph) -> int:
    return graph.warps.pingpong if graph.warps is not None else 1


def _warp_label(schedule: Schedule, w: int, team: int = 1) -> str:
    if w == schedule.vl_warp:
        return f"warp {w} (variable latency)"
    if w == schedule.issuer_warp:
        return f"warp {w} (issuer: tcgen05.mma)"
    return f"warp {w} (ping-pong team of {team})" if team > 1 else f"warp {w}"


def graph_svg(graph: Graph, schedule: Schedule) -> str:
    """The dependence graph, layered by intra-iteration dependences, ops coloured by warp."""
    names = [op.name for op in graph.ops]
    layer = {n: 0 for n in names}
    for _ in range(len(names)):  # longest path over distance-0 edges (acyclic after validation)
        changed = False
        for e in graph.edges:
            if e.distance == 0 and e.src != e.dst and layer[e.dst] < layer[e.src] + 1:
                layer[e.dst] = layer[e.src] + 1
                changed = True
        if not changed:
            break
    rows: dict[int, list[str]] = {}
    for n in names:
        rows.setdefault(layer[n], []).append(n)
    box_w, box_h, gap_x, gap_y, margin = 150, 40, 30, 50, 20
    widest = max(len(r) for r in rows.values())
    width = margin * 2 + widest * box_w + (widest - 1) * gap_x
    legend_h = 24
    height = margin * 2 + legend_h + len(rows) * box_h + (len(rows) - 1) * gap_y
    pos: dict[str, tuple[float, float]] = {}
    for li, row in sorted(rows.items()):
        row_w = len(row) * box_w + (len(row) - 1) * gap_x
        x0 = (width - row_w) / 2
        for j, n in enumerate(row):
            pos[n] = (x0 + j * (box_w + gap_x), margin + legend_h + li * (box_h + gap_y))
    body: list[str] = []
    for e in graph.edges:
        (x1, y1), (x2, y2) = pos[e.src], pos[e.dst]
        dash = ' stroke-dasharray="5,4"' if e.distance else ""
        colour = "#c00" if e.blocking else "#333"
        label = f"{e.delay}" + (f"/{e.distance}" if e.distance else "")
        if e.src == e.dst:
            cx, cy = x1 + box_w, y1 + box_h / 2
            body.append(f'<path d="M {cx} {cy - 8} C {cx + 40} {cy - 30}, {cx + 40} {cy + 30}, {cx} {cy + 8}" '
                        f'fill="none" stroke="{colour}"{dash} marker-end="url(#arrow)"/>')
            body.append(f'<text x="{cx + 34}" y="{cy + 4}">{escape(label)}</text>')
            continue
        sx, sy = x1 + box_w / 2, y1 + box_h
        tx, ty = x2 + box_w / 2, y2
        if y2 <= y1:  # back edge: route around the side
            sx, sy, tx, ty = x1, y1 + box_h / 2, x2, y2 + box_h / 2
            body.append(f'<path d="M {sx} {sy} C {sx - 60} {sy}, {tx - 60} {ty}, {tx} {ty}" fill="none" '
                        f'stroke="{colour}"{dash} marker-end="url(#arrow)"/>')
            body.append(f'<text x="{min(sx, tx) - 58}" y="{(sy + ty) / 2}">{escape(label)}</text>')
        else:
            body.append(f'<line x1="{sx}" y1="{sy}" x2="{tx}" y2="{ty}" stroke="{colour}"{dash} '
                        f'marker-end="url(#arrow)"/>')
            body.append(f'<text x="{(sx + tx) / 2 + 4}" y="{(sy + ty) / 2}">{escape(label)}</text>')
    for n in names:
        x, y = pos[n]
        p = schedule.ops[n]
        body.append(f'<rect x="{x}" y="{y}" width="{box_w}" height="{box_h}" rx="6" fill="{_color(p.warp)}" '
                    f'fill-opacity="0.25" stroke="{_color(p.warp)}" stroke-width="2"/>')
        body.append(f'<text x="{x + box_w / 2}" y="{y + 16}" text-anchor="middle" font-weight="bold">'
                    f'{escape(n)}</text>')
        body.append(f'<text x="{x + box_w / 2}" y="{y + 32}" text-anchor="middle">'
                    f't={p.start} stage {p.stage} w{p.warp}</text>')
    warps = sorted({p.warp for p in schedule.ops.values()})
    for i, w in enumerate(warps):
        x = margin + i * 190
        body.append(f'<rect x="{x}" y="{margin - 6}" width="14" height="14" fill="{_color(w)}" fill-opacity="0.6"/>')
        body.append(f'<text x="{x + 20}" y="{margin + 6}">{escape(_warp_label(schedule, w, _team(graph)))}</text>')
    return _svg(width, height, body)


def gantt_svg(graph: Graph, schedule: Schedule) -> str:
    """ceil(L/II) overlapped copies of the modulo schedule, rows per unit and per warp."""
    ii, copies = schedule.ii, schedule.stages
    total = (copies - 1) * ii + max(schedule.length, 1)
    for op in graph.ops:
        total = max(total, (copies - 1) * ii + schedule.ops[op.name].start + max(graph.member_offsets(op.name, ii))
                    + max(op.length, op.cycles, 1))
    rows: list[tuple[str, list[tuple[int, int, str, int]]]] = []
    for unit, cap in graph.units.items():
        bars = []
        for op in graph.ops:
            row = op.uses.get(unit)
            if not row or not any(row):
                continue
            busy = [c for c, x in enumerate(row) if x]
            # every member of a ping-pong team occupies the unit, at its offset
            for i, shift in ((i, m) for i in range(copies) for m in graph.member_offsets(op.name, ii)):
                s = schedule.ops[op.name].start + i * ii + shift
                # merge consecutive busy cycles into one bar
                c0 = prev = busy[0]
                for c in busy[1:] + [None]:
                    if c is not None and c == prev + 1:
                        prev = c
                        continue
                    bars.append((s + c0, prev - c0 + 1, op.name, i))
                    if c is not None:
                        c0 = prev = c
        rows.append((f"{unit} (x{cap})", bars))
    team = _team(graph)
    for w in sorted({p.warp for p in schedule.ops.values()}):
        members = 1 if w in (schedule.vl_warp, schedule.issuer_warp) else team
        for m in range(members):  # a ping-pong team: one row per member, offset by m * (II // team)
            bars = []
            for op in graph.ops:
                p = schedule.ops[op.name]
                if p.warp != w:
                    continue
                for i in range(copies):
                    bars.append((p.start + i * ii + m * (ii // members), max(op.cycles, 1), op.name, i))
            label = _warp_label(schedule, w) + (f", member {m} (+{m * (ii // members)})" if members > 1 else "")
            rows.append((label, bars))
    label_w, cell, row_h, margin, top = 190, max(8, min(40, 900 // max(total, 1))), 28, 16, 40
    width = margin * 2 + label_w + total * cell
    height = top + margin + len(rows) * row_h + 30
    body = [f'<text x="{margin}" y="22" font-weight="bold">II = {ii}, L = {schedule.length}, '
            f'{copies} overlapped copies (colours); steady state outlined</text>']
    x0 = margin + label_w
    for t in range(total + 1):
        if t % max(1, ii) == 0 or cell >= 20:
            body.append(f'<line x1="{x0 + t * cell}" y1="{top}" x2="{x0 + t * cell}" '
                        f'y2="{top + len(rows) * row_h}" stroke="#ddd"/>')
            body.append(f'<text x="{x0 + t * cell}" y="{top + len(rows) * row_h + 14}" text-anchor="middle" '
                        f'font-size="10">{t}</text>')
    for ri, (label, bars) in enumerate(rows):
        y = top + ri * row_h
        body.append(f'<text x="{margin}" y="{y + row_h / 2 + 4}">{escape(label)}</text>')
        for start, length, name, copy in bars:
            fill = COPY_FILL[copy % len(COPY_FILL)]
            body.append(f'<rect x="{x0 + start * cell}" y="{y + 3}" width="{length * cell}" height="{row_h - 6}" '
                        f'fill="{fill}" stroke="#333"><title>{escape(name)} (copy {copy})</title></rect>')
            if length * cell >= 6 * min(len(name), 6):
                body.append(f'<text x="{x0 + (start + length / 2) * cell}" y="{y + row_h / 2 + 4}" '
                            f'text-anchor="middle" font-size="10">{escape(name)}</text>')
    ss = (copies - 1) * ii
    body.append(f'<rect x="{x0 + ss * cell}" y="{top - 4}" width="{ii * cell}" height="{len(rows) * row_h + 8}" '
                f'fill="none" stroke="#000" stroke-width="2" stroke-dasharray="6,4"/>')
    return _svg(width, height, body)


def write_svg(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
