"""The variable parts of the main attention-backward kernel (attention_bwd_kernels.backward):
MLIR text fragments, `string.Template`s over $BM (queries per iteration), $BN (keys per
program), $D (head dim) and $T (element type), for each form of reading the row statistics
(LSE, Delta: masked pointer loads, or TMA boxes of padded rows) and of adding dQ (tile.atomic_add
through pointer tiles, or TMA's reduce-add, tile.desc_store add), dQ_i or dQ_i^T."""

# Row statistics (LSE, Delta) through pointers: masked 1-D loads at L, P masked at L.
_STAT_ARGS_PTR = "%lse_ptr: !tile.ptr<f32>, %delta_ptr: !tile.ptr<f32>"

_STAT_SETUP_PTR = """\
    %rows_m = tile.make_range 0 to $BM : tensor<${BM}xi32>
    %cols_d = tile.make_range 0 to $D : tensor<${D}xi32>
    %L_m = tile.splat %L : i32 -> tensor<${BM}xi32>
    // this head's rows of LSE and Delta (row bh of [B*H, L])
    %row0 = arith.muli %bh, %L : i32
    %lse_row = tile.addptr %lse_ptr, %row0 : !tile.ptr<f32>, i32
    %delta_row = tile.addptr %delta_ptr, %row0 : !tile.ptr<f32>, i32
"""

_STAT_LOAD_PTR = """\
      %q_off_v = tile.splat %q_off : i32 -> tensor<${BM}xi32>
      %offs_m = arith.addi %q_off_v, %rows_m : tensor<${BM}xi32>
      %in_m = arith.cmpi slt, %offs_m, %L_m : tensor<${BM}xi32>
      %lse_base = tile.splat %lse_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
      %lse_ptrs = tile.addptr %lse_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
      %lse = tile.load %lse_ptrs, %in_m : tensor<${BM}x!tile.ptr<f32>> -> tensor<${BM}xf32>
      %delta_base = tile.splat %delta_row : !tile.ptr<f32> -> tensor<${BM}x!tile.ptr<f32>>
      %delta_ptrs = tile.addptr %delta_base, %offs_m : tensor<${BM}x!tile.ptr<f32>>, tensor<${BM}xi32>
      %delta = tile.load %delta_ptrs, %in_m : tensor<${BM}x!tile.ptr<f32>> -> tensor<${BM}xf32>
      %lse_e = tile.expand_dims %lse, 0 : tensor<${BM}xf32> -> tensor<1x${BM}xf32>
      %delta_e = tile.expand_dims %delta, 0 : tensor<${BM}xf32> -> tensor<1x${BM}xf32>
"""

_ST_C_PTR = """\
      %st_s = arith.mulf %st, %scale_t : tensor<${BN}x${BM}xf32>
      %lse_b = tile.broadcast %lse_e : tensor<1x${BM}xf32> -> tensor<${BN}x${BM}xf32>
      %st_c = arith.subf %st_s, %lse_b : tensor<${BN}x${BM}xf32>
"""

_DPT_C_PTR = """\
      %delta_b = tile.broadcast %delta_e : tensor<1x${BM}xf32> -> tensor<${BN}x${BM}xf32>
      %dpt_c = arith.subf %dpt, %delta_b : tensor<${BN}x${BM}xf32>
      %dst = arith.mulf %pt, %dpt_c : tensor<${BN}x${BM}xf32>
"""

_P_MASK_PTR = """\
      %pt_all = math.exp2 %st_c : tensor<${BN}x${BM}xf32>
      %in_m2 = tile.expand_dims %in_m, 0 : tensor<${BM}xi1> -> tensor<1x${BM}xi1>
      %in_mb = tile.broadcast %in_m2 : tensor<1x${BM}xi1> -> tensor<${BN}x${BM}xi1>
$seen      %pt = arith.select %$keep, %pt_all, %zero_s : tensor<${BN}x${BM}xi1>, tensor<${BN}x${BM}xf32>
"""

_SEEN_PTR = """\
      %offs_m2 = tile.expand_dims %offs_m, 0 : tensor<${BM}xi32> -> tensor<1x${BM}xi32>
      %offs_mb = tile.broadcast %offs_m2 : tensor<1x${BM}xi32> -> tensor<${BN}x${BM}xi32>
      %seen = arith.cmpi sge, %offs_mb, %offs_nb : tensor<${BN}x${BM}xi32>
      %keep = arith.andi %seen, %in_mb : tensor<${BN}x${BM}xi1>
"""

# Row statistics through [1, BM] boxes of 2-D descriptors over the padded [B*H, Lp] rows (the
# producer's TMA loads, in the same ring as Q and dO): no mask at L. Past L, Q and dO read zeros
# and the padded LSE and Delta are 0 (flash_attention_bwd_preprocess writes them up to Lp; TMA
# reads 0 past Lp), so Pt = 1, dPt = 0, dSt = 0 there, and every term of a query past L is 0.
_STAT_ARGS_TMA = "%lse_desc: !tile.desc<tensor<1x${BM}xf32>>, %delta_desc: !tile.desc<tensor<1x${BM}xf32>>"


# -LSE and -Delta computed from the slot's row (one value per thread and column) before they are
# broadcast: Pt's exponent is one fma, S^T * scale + (-LSE). dSt = Pt * (dPt - Delta) takes Pt as
# rounded for dV's dot (the f16 / bf16 tile, held for that dot anyway), not the f32 one: dSt is
# rounded to that type next, and the f32 Pt (32 registers a thread) need not live on while dPt
# is computed.
_ST_C_TMA = """\
      %lse_e = tile.desc_load %lse_desc[%bh, %q_off] : !tile.desc<tensor<1x${BM}xf32>> -> tensor<1x${BM}xf32>
      %nlse = arith.negf %lse_e : tensor<1x${BM}xf32>
      %nlse_b = tile.broadcast %nlse : tensor<1x${BM}xf32> -> tensor<${BN}x${BM}xf32>
      %st_c = math.fma %st, %scale_t, %nlse_b : tensor<${BN}x${BM}xf32>
"""

_DPT_C_TMA = """\
      %delta_e = tile.desc_load %delta_desc[%bh, %q_off] : !tile.desc<tensor<1x${BM}xf32>> -> tensor<1x${BM}xf32>
      %ndelta = arith.negf %delta_e : tensor<1x${BM}xf32>
      %ndelta_b = tile.broadcast %ndelta : tensor<1x${BM}xf32> -> tensor<${BN}x${BM}xf32>
      %dpt_c = arith.addf %dpt, %ndelta_b : tensor<${BN}x${BM}xf32>
      %pt_r = arith.extf %pt16 : tensor<${BN}x${BM}x$T> to tensor<${BN}x${BM}xf32>
      %dst = arith.mulf %pt_r, %dpt_c : tensor<${BN}x${BM}xf32>
"""

_P_MASK_TMA = """\
      %pt = math.exp2 %st_c : tensor<${BN}x${BM}xf32>
"""

_P_MASK_TMA_CAUSAL = """\
      %pt_all = math.exp2 %st_c : tensor<${BN}x${BM}xf32>
      %rows_m = tile.make_range 0 to $BM : tensor<${BM}xi32>
      %q_off_v = tile.splat %q_off : i32 -> tensor<${BM}xi32>
      %offs_m = arith.addi %q_off_v, %rows_m : tensor<${BM}xi32>
      %offs_m2 = tile.expand_dims %offs_m, 0 : tensor<${BM}xi32> -> tensor<1x${BM}xi32>
      %offs_mb = tile.broadcast %offs_m2 : tensor<1x${BM}xi32> -> tensor<${BN}x${BM}xi32>
      %seen = arith.cmpi sge, %offs_mb, %offs_nb : tensor<${BN}x${BM}xi32>
      %pt = arith.select %seen, %pt_all, %zero_s : tensor<${BN}x${BM}xi1>, tensor<${BN}x${BM}xf32>
"""

# dQ added with tile.atomic_add through pointer tiles into an f32 [B*H, L, d] buffer.
_DQ_ARG_ATOMIC = "%dq_ptr: !tile.ptr<f32>"

_DQ_HEAD_ATOMIC = """\
    // this head's slice of dQ (slice bh of [B*H, L, d])
    %dq_row0 = arith.muli %bh, %L : i32
    %elem0 = arith.muli %dq_row0, %Dh : i32
    %dq_head = tile.addptr %dq_ptr, %elem0 : !tile.ptr<f32>, i32
"""

_DQ_SETUP = """\
    // offsets of a BM x d block of dQ: row * d + column
    %zero_q = arith.constant dense<0.000000e+00> : tensor<${BM}x${D}xf32>
    %Dh_v = tile.splat %Dh : i32 -> tensor<${BM}xi32>
    %row_elems = arith.muli %rows_m, %Dh_v : tensor<${BM}xi32>
    %row_e = tile.expand_dims %row_elems, 1 : tensor<${BM}xi32> -> tensor<${BM}x1xi32>
    %row_b = tile.broadcast %row_e : tensor<${BM}x1xi32> -> tensor<${BM}x${D}xi32>
    %col_e = tile.expand_dims %cols_d, 0 : tensor<${D}xi32> -> tensor<1x${D}xi32>
    %col_b = tile.broadcast %col_e : tensor<1x${D}xi32> -> tensor<${BM}x${D}xi32>
    %dq_offs = arith.addi %row_b, %col_b : tensor<${BM}x${D}xi32>"""

_DQ_BODY = """\
      // dQ_i += dS K_j, added into the f32 buffer (rows below L)
      %ds16 = tile.trans %dst16 [1, 0] : tensor<${BN}x${BM}x$T> -> tensor<${BM}x${BN}x$T>
      %dq_i = tile.dot %ds16, %k, %zero_q : tensor<${BM}x${BN}x$T>, tensor<${BN}x${D}x$T> -> tensor<${BM}x${D}xf32>
      %q_elem = arith.muli %q_off, %Dh : i32
      %dq_blk = tile.addptr %dq_head, %q_elem : !tile.ptr<f32>, i32
      %dq_base = tile.splat %dq_blk : !tile.ptr<f32> -> tensor<${BM}x${D}x!tile.ptr<f32>>
      %dq_ptrs = tile.addptr %dq_base, %dq_offs : tensor<${BM}x${D}x!tile.ptr<f32>>, tensor<${BM}x${D}xi32>
      %in_q2 = tile.expand_dims %in_m, 1 : tensor<${BM}xi1> -> tensor<${BM}x1xi1>
      %in_q = tile.broadcast %in_q2 : tensor<${BM}x1xi1> -> tensor<${BM}x${D}xi1>
      %old = tile.atomic_add %dq_ptrs, %dq_i, %in_q : tensor<${BM}x${D}x!tile.ptr<f32>>, tensor<${BM}x${D}xf32> -> tensor<${BM}x${D}xf32>"""

# dQ_i^T = K_j^T dS^T (d x BM): the same sum with d as the dot's M, for query blocks too small
# to be the M of the consumer's warp groups; added through transposed offsets.
_DQT_SETUP = """\
    // offsets of the d x BM block of dQ^T: row (query) * d + column
    %zero_qt = arith.constant dense<0.000000e+00> : tensor<${D}x${BM}xf32>
    %Dh_v = tile.splat %Dh : i32 -> tensor<${BM}xi32>
    %row_elems = arith.muli %rows_m, %Dh_v : tensor<${BM}xi32>
    %row_e = tile.expand_dims %row_elems, 0 : tensor<${BM}xi32> -> tensor<1x${BM}xi32>
    %row_b = tile.broadcast %row_e : tensor<1x${BM}xi32> -> tensor<${D}x${BM}xi32>
    %col_e = tile.expand_dims %cols_d, 1 : tensor<${D}xi32> -> tensor<${D}x1xi32>
    %col_b = tile.broadcast %col_e : tensor<${D}x1xi32> -> tensor<${D}x${BM}xi32>
    %dqt_offs = arith.addi %row_b, %col_b : tensor<${D}x${BM}xi32>"""

_DQT_BODY = """\
      // dQ_i^T += K_j^T dS^T, added into the f32 buffer (queries below L)
      %kt = tile.trans %k [1, 0] : tensor<${BN}x${D}x$T> -> tensor<${D}x${BN}x$T>
      %dqt_i = tile.dot %kt, %dst16, %zero_qt : tensor<${D}x${BN}x$T>, tensor<${BN}x${BM}x$T> -> tensor<${D}x${BM}xf32>
      %q_elem = arith.muli %q_off, %Dh : i32
      %dq_blk = tile.addptr %dq_head, %q_elem : !tile.ptr<f32>, i32
      %dq_base = tile.splat %dq_blk : !tile.ptr<f32> -> tensor<${D}x${BM}x!tile.ptr<f32>>
      %dq_ptrs = tile.addptr %dq_base, %dqt_offs : tensor<${D}x${BM}x!tile.ptr<f32>>, tensor<${D}x${BM}xi32>
      %in_q2 = tile.expand_dims %in_m, 0 : tensor<${BM}xi1> -> tensor<1x${BM}xi1>
      %in_q = tile.broadcast %in_q2 : tensor<1x${BM}xi1> -> tensor<${D}x${BM}xi1>
      %old = tile.atomic_add %dq_ptrs, %dqt_i, %in_q : tensor<${D}x${BM}x!tile.ptr<f32>>, tensor<${D}x${BM}xf32> -> tensor<${D}x${BM}xf32>"""

# dQ added with TMA's reduce-add (tile.desc_store add) through a 3-D descriptor: dQ_i into
# [B*H, L, d], or dQ_i^T into [B*H, d, Lp] (rows of Lp, a multiple of 4: 16-byte TMA strides).
# TMA clips at the tensor's end: no mask, no offsets.
_DQ_ARG_TMA = "%dq_desc: !tile.desc<tensor<${BM}x${D}xf32>>"
_DQT_ARG_TMA = "%dqt_desc: !tile.desc<tensor<${D}x${BM}xf32>>"

_DQ_SETUP_TMA = """\
    %zero_q = arith.constant dense<0.000000e+00> : tensor<${BM}x${D}xf32>"""

_DQT_SETUP_TMA = """\
    %zero_qt = arith.constant dense<0.000000e+00> : tensor<${D}x${BM}xf32>"""

_DQ_BODY_TMA = """\
      // dQ_i += dS K_j, reduce-added into the f32 [B*H, L, d] buffer by TMA
      %ds16 = tile.trans %dst16 [1, 0] : tensor<${BN}x${BM}x$T> -> tensor<${BM}x${BN}x$T>
      %dq_i = tile.dot %ds16, %k, %zero_q : tensor<${BM}x${BN}x$T>, tensor<${BN}x${D}x$T> -> tensor<${BM}x${D}xf32>
      tile.desc_store add %dq_desc[%bh, %q_off, %c0], %dq_i : !tile.desc<tensor<${BM}x${D}xf32>>"""

_DQT_BODY_TMA = """\
      // dQ_i^T += K_j^T dS^T, reduce-added into the f32 [B*H, d, Lp] buffer by TMA
      %kt = tile.trans %k [1, 0] : tensor<${BN}x${D}x$T> -> tensor<${D}x${BN}x$T>
      %dqt_i = tile.dot %kt, %dst16, %zero_qt : tensor<${D}x${BN}x$T>, tensor<${BN}x${BM}x$T> -> tensor<${D}x${BM}xf32>
      tile.desc_store add %dqt_desc[%bh, %c0, %q_off], %dqt_i : !tile.desc<tensor<${D}x${BM}xf32>>"""


def overlap_dots(text: str, hold_dv: bool = True, dq_first: bool = False) -> str:
    """The main kernel's loop with its five dots issued as FlashAttention-3 orders them, each
    waited for where its result is first needed (`mma.async_dot`, `mma.wait`; wgmma groups
    retire in issue order): S^T and dP^T issued together, S^T waited for (dP^T may run on)
    while P is computed, dV's dot issued before dP^T is waited for, dK's and dQ's issued
    together and all three waited for at the end of the iteration:

        %st_f = mma.async_dot %k, %qt, %zero_s         // S^T
        %dpt_f = mma.async_dot %v, %dot, %zero_s       // dP^T
        %st = mma.wait %st_f {pending = 1}             // S^T retired, dP^T in flight
        ... Pt ...
        %dv_f = mma.async_dot %pt16, %do, %dv
        %dpt = mma.wait %dpt_f {pending = 1}           // dP^T retired, dV in flight
        ... dSt ...
        %dk_f = mma.async_dot %dst16, %q, %dk
        %dqt_f = mma.async_dot %kt, %dst16, %zero_qt
        %dv_new, %dk_new, %dqt_i = mma.wait %dv_f, %dk_f, %dqt_f {pending = 0}

    With `hold_dv=False` dV's dot is waited for at once (with dP^T: `pending = 0`), so P does
    not stay in registers as its A operand while dS^T is computed: only the pairs (S^T, dP^T)
    and (dK, dQ) overlap.

    With `dq_first=True` dQ's dot is issued before dK's and waited for (with dV's) while dK's
    is still in flight, so dQ's reduce-add (its staging stores and the TMA issue) runs beside
    dK's dot rather than after every dot has retired (FlashAttention-3 orders dQ before dK for
    this); dK's dot is waited for at the end of the iteration:

        %dqt_f = mma.async_dot %kt, %dst16, %zero_qt
        %dk_f = mma.async_dot %dst16, %q, %dk
        %dv_new, %dqt_i = mma.wait %dv_f, %dqt_f {pending = 1}   // dK in flight
        tile.desc_store add %dqt_desc[...], %dqt_i
        %dk_new = mma.wait %dk_f {pending = 0}

    `text` is the kernel as `backward` writes it (one tile.dot per product, in that order)."""
    lines = text.split("\n")
    by_name = {}
    for i, line in enumerate(lines):
        head = line.strip().split(" = tile.dot ", 1)
        if len(head) == 2:
            by_name[head[0]] = i
    dq = "%dqt_i" if "%dqt_i" in by_name else "%dq_i"
    if set(by_name) != {"%st", "%dv_new", "%dpt", "%dk_new", dq}:
        raise ValueError(f"overlap_dots: expected the backward's five dots, got {sorted(by_name)}")
    ind = lines[by_name["%st"]][:len(lines[by_name["%st"]]) - len(lines[by_name["%st"]].lstrip())]

    def issue(name: str, new: str) -> str:
        return lines[by_name[name]].replace(f"{name} = tile.dot ", f"{new} = mma.async_dot ")

    def result_type(name: str) -> str:
        return lines[by_name[name]].rsplit("-> ", 1)[1]

    trans = next(i for i, line in enumerate(lines) if line.strip().startswith("%dot = tile.trans %do "))
    out = []
    for i, line in enumerate(lines):
        if i == by_name["%st"]:
            out += [issue("%st", "%st_f"), lines[trans], issue("%dpt", "%dpt_f"),
                    f"{ind}%st = mma.wait %st_f {{pending = 1}} : {result_type('%st')}"]
        elif i == trans:
            continue
        elif i == by_name["%dpt"]:
            if hold_dv:
                out.append(f"{ind}%dpt = mma.wait %dpt_f {{pending = 1}} : {result_type('%dpt')}")
        elif i == by_name["%dv_new"]:
            out.append(issue("%dv_new", "%dv_f"))
            if not hold_dv:
                out.append(f"{ind}%dv_new, %dpt = mma.wait %dv_f, %dpt_f {{pending = 0}} : "
                           f"{result_type('%dv_new')}, {result_type('%dpt')}")
        elif i == by_name["%dk_new"]:
            if not dq_first:
                out.append(issue("%dk_new", "%dk_f"))
        elif i == by_name[dq]:
            held = ("%dv_new, ", "%dv_f, ", f"{result_type('%dv_new')}, ") if hold_dv else ("", "", "")
            if dq_first:
                out += [issue(dq, f"{dq}_f"), issue("%dk_new", "%dk_f"),
                        f"{ind}{held[0]}{dq} = mma.wait {held[1]}{dq}_f {{pending = 1}} : "
                        f"{held[2]}{result_type(dq)}"]
            else:
                out += [issue(dq, f"{dq}_f"),
                        f"{ind}{held[0]}%dk_new, {dq} = mma.wait {held[1]}%dk_f, {dq}_f {{pending = 0}} : "
                        f"{held[2]}{result_type('%dk_new')}, {result_type(dq)}"]
        elif dq_first and line.strip().startswith("scf.yield %dk_new, %dv_new"):
            out += [f"{ind}%dk_new = mma.wait %dk_f {{pending = 0}} : {result_type('%dk_new')}", line]
        else:
            out.append(line)
    return "\n".join(out)


# The programs in longest-first order (order="lpt"): the launch takes programs in order, x
# fastest; program (x, y) is the y * cdiv(L, BN) + x-th. In that order the programs walk groups
# of %group heads (the last group may hold fewer), and in a group key block 0 of each of its
# heads first, then key block 1, ...: in the causal kernel key block j has cdiv(L, BM) - j BN / BM
# query blocks, so the longest programs start first and the launch ends on the shortest ones
# (no long program left running alone at the end). %group = 1 is the plain order.
_PIDS = """\
    %start_n = tile.program_id 0 : i32
    %bh = tile.program_id 1 : i32"""

_PIDS_LPT = """\
    %n_kb = tile.num_programs 0 : i32
    %n_bh = tile.num_programs 1 : i32
    %pid_x = tile.program_id 0 : i32
    %pid_y = tile.program_id 1 : i32
    %lin_y = arith.muli %pid_y, %n_kb : i32
    %lin = arith.addi %lin_y, %pid_x : i32
    %grp_n = arith.muli %group, %n_kb : i32
    %grp = arith.divsi %lin, %grp_n : i32
    %grp_0 = arith.muli %grp, %grp_n : i32
    %in_grp = arith.subi %lin, %grp_0 : i32
    %bh_0 = arith.muli %grp, %group : i32
    %bh_left = arith.subi %n_bh, %bh_0 : i32
    %heads = arith.minsi %group, %bh_left : i32
    %start_n = arith.divsi %in_grp, %heads : i32
    %kb_0 = arith.muli %start_n, %heads : i32
    %head = arith.subi %in_grp, %kb_0 : i32
    %bh = arith.addi %bh_0, %head : i32"""


def lpt_order(text: str) -> str:
    """The main kernel `text` (as `backward` writes it) with its programs in longest-first
    order (_PIDS_LPT): one more argument, `%group: i32` (heads per group, at least 1), after
    `%sm_scale`."""
    sig = "%L: i32, %sm_scale: f32)"
    if text.count(_PIDS) != 1 or text.count(sig) != 1:
        raise ValueError("lpt_order: expected the backward's program ids and signature")
    return text.replace(_PIDS, _PIDS_LPT).replace(sig, "%L: i32, %sm_scale: f32, %group: i32)")


def lpt_group(bh: int, L: int, d: int, sms: int, block_n: int = 128, bytes_per_head_row: int = 8,
              l2_share: int = 16 << 20) -> int:
    """Heads per group of the longest-first order (_PIDS_LPT) for B*H = bh heads of length L:
    enough for two waves of programs on `sms` SMs (a long program then starts while a wave of
    others still runs), no more than keep the group's Q, dO (2 bytes each) and f32 dQ rows
    (bytes_per_head_row per element of d) within `l2_share` bytes of L2, at least 1."""
    n_kb = -(-L // block_n)
    waves = -(-2 * sms // max(n_kb, 1))
    fit = max(1, l2_share // max(L * d * bytes_per_head_row, 1))
    return max(1, min(waves, fit, bh))
