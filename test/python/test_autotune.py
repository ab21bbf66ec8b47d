"""wsdialects.autotune without a GPU: the tuner's logic runs on its real code, and only the
seams are fakes: `compiler` (compile a source with a pipeline), the launcher it returns
(a numpy kernel that advances a fake clock by the config's cost and adds 1 to its output,
as an accumulating kernel would), `timer` (runs the launch and reads the clock) and
`device_name`. The GPU version is test/gpu/test_autotune_gpu.py."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from conftest import REPO
from wsdialects import WsError
from wsdialects.runtime import autotune
from wsdialects.runtime.tuner import AutotuneWarning, Config
from wsdialects.runtime.tuner_cache import DiskCache

GEMM = REPO / "examples" / "kernels" / "gemm.mlir"  # real source: argument names come from it

# a small kernel with the argument names the tests use (parsed only: the fake compiler
# never lowers it)
ACC = """builtin.module {
  func.func @acc(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
      attributes {tile.kernel, tile.num_warps = 4 : i32} {
    func.return
  }
}
"""


class Fake:
    """The compile / launch / time seams. `costs`: pipeline spec -> ms per launch (a spec
    not listed costs 1.0); `broken`: specs whose compile raises, `unlaunchable`: specs
    whose launch raises."""

    def __init__(self, costs=None, broken=(), unlaunchable=()):
        self.costs, self.broken, self.unlaunchable = dict(costs or {}), set(broken), set(unlaunchable)
        self.clock = 0.0
        self.compiles: list[str] = []
        self.launches: list[tuple[str, tuple]] = []  # (spec, grid)
        self.timed = 0

    def compiler(self, source, pipeline):
        self.compiles.append(pipeline)
        if pipeline in self.broken:
            raise WsError(f"'{pipeline}' does not fit in shared memory", "k.mlir", 3, 5)
        fake = self

        class Compiled:
            def kernel(self, name):
                return self

            def __getitem__(self, grid):
                def launch(*args, stream=None):
                    if pipeline in fake.unlaunchable:
                        raise RuntimeError("cuLaunchKernel failed: CUDA_ERROR_OUT_OF_RESOURCES")
                    fake.launches.append((pipeline, grid))
                    fake.clock += fake.costs.get(pipeline, 1.0)
                    args[1][...] += 1  # `out`: what a kernel that accumulates does

                return launch

        return Compiled()

    def timer(self, fn):
        self.timed += 1
        start = self.clock
        for _ in range(3):
            fn()
        return (self.clock - start) / 3

    def tune(self, configs, key=("M", "N", "K"), source=ACC, **kw):
        kw.setdefault("cache_dir", False)
        return autotune(source, configs, list(key), compiler=self.compiler, timer=self.timer,
                        device_name=lambda args: "fake-gpu", **kw)


def args(M=64, N=32, K=16, out=None):
    x = np.ones(M * N, np.float32)
    return [x, np.zeros(M * N, np.float32) if out is None else out, M, N, K]


CONFIGS = [Config("ws-hopper"), Config("ws-hopper", persistent=True), Config("ws-hopper", depth=4, mma_depth=3)]
COSTS = {"ws-hopper": 2.0, "ws-hopper{persistent=true}": 1.5, "ws-hopper{depth=4 mma-depth=3}": 3.0}


def test_config_spells_its_pipeline():
    assert Config("ws-hopper", depth=4, mma_depth=3).name == "ws-hopper{depth=4 mma-depth=3}"
    assert Config("ws-hopper{persistent=true}").spec == "ws-hopper{persistent=true}"
    assert Config("ws-hopper", persistent=True, name="persistent").name == "persistent"
    with pytest.raises(WsError, match="need a single pass name"):
        Config("ws-hopper{depth=2}", persistent=True)


def test_picks_the_fastest_and_launches_it_once_per_call():
    fake = Fake(COSTS)
    k = fake.tune(CONFIGS)
    assert fake.compiles == []  # compiled lazily, on the first call
    a = args()
    k[(4,)](*a)
    assert k.best_config[(64, 32, 16)].name == "ws-hopper{persistent=true}"
    assert k.timings[(64, 32, 16)] == {"ws-hopper": 2.0, "ws-hopper{persistent=true}": 1.5,
                                      "ws-hopper{depth=4 mma-depth=3}": 3.0}
    assert sorted(fake.compiles) == sorted(COSTS) and fake.timed == 3
    assert fake.launches[-1] == ("ws-hopper{persistent=true}", (4,))
    n = len(fake.launches)
    k[(4,)](*a)  # same key: no compile, no timing, one launch
    assert (len(fake.compiles), fake.timed, len(fake.launches)) == (3, 3, n + 1)


def test_the_cost_order_decides_not_the_config_order():
    fake = Fake({"ws-hopper": 0.5, "ws-hopper{persistent=true}": 1.5, "ws-hopper{depth=4 mma-depth=3}": 3.0})
    k = fake.tune(CONFIGS)
    k[1](*args())
    assert k.best_config[(64, 32, 16)].name == "ws-hopper"


def test_each_key_is_tuned_once():
    fake = Fake(COSTS)
    k = fake.tune(CONFIGS)
    k[1](*args(64, 32, 16))
    k[1](*args(128, 32, 16))
    k[1](*args(64, 32, 16))
    assert set(k.best_config) == {(64, 32, 16), (128, 32, 16)}
    assert fake.timed == 6 and len(fake.compiles) == 3  # each config compiled once in all


def test_outputs_written_by_trials_are_restored():
    fake = Fake(COSTS)
    k = fake.tune(CONFIGS, restore_value=["out"])
    out = np.full(64 * 32, 7.0, np.float32)
    k[1](*args(out=out))
    assert len(fake.launches) == 3 * 3 + 1
    assert (out == 8.0).all()  # the call's one launch on the original values
    unrestored = Fake(COSTS).tune(CONFIGS)
    out = np.full(64 * 32, 7.0, np.float32)
    unrestored[1](*args(out=out))
    assert (out == 7.0 + 10).all()  # without restore_value the trials' writes stay


def test_reset_to_zero_zeroes_before_each_trial_and_the_call():
    fake = Fake(COSTS)
    seen = []
    orig = fake.compiler

    def compiler(source, pipeline):
        inner = orig(source, pipeline)
        launch_of = inner.__getitem__

        class Spy:
            def kernel(self, name):
                return self

            def __getitem__(self, grid):
                def launch(*a, stream=None):
                    seen.append(float(a[1][0]))
                    launch_of(grid)(*a)
                return launch

        return Spy()

    k = autotune(ACC, CONFIGS, ["M"], compiler=compiler, timer=fake.timer, device_name=lambda a: "x",
                 cache_dir=False, reset_to_zero=["out"])
    out = np.full(64 * 32, 5.0, np.float32)
    k[1](*args(out=out))
    assert seen == [0.0] * 10 and (out == 1.0).all()


def test_a_config_that_does_not_compile_is_skipped_with_a_warning():
    fake = Fake(COSTS, broken={"ws-hopper{persistent=true}"})
    k = fake.tune(CONFIGS)
    with pytest.warns(AutotuneWarning, match=r"config ws-hopper\{persistent=true\} skipped, it does not compile: "
                                             r"k.mlir:3:5: error: .* does not fit") as record:
        k[1](*args())
    assert record[0].filename == __file__  # attributed to the user's call, not to the tuner
    assert k.best_config[(64, 32, 16)].name == "ws-hopper"
    assert "ws-hopper{persistent=true}" not in k.timings[(64, 32, 16)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not compiled again, not warned again
        k[1](*args(128))
    assert fake.compiles.count("ws-hopper{persistent=true}") == 1


def test_a_config_that_fails_to_launch_is_skipped_with_a_warning():
    fake = Fake(COSTS, unlaunchable={"ws-hopper{persistent=true}"})
    k = fake.tune(CONFIGS)
    with pytest.warns(AutotuneWarning, match=r"persistent=true\} skipped, its trial launch failed: .*OUT_OF_RESOURCES"):
        k[1](*args())
    assert k.best_config[(64, 32, 16)].name == "ws-hopper"
    assert math.isinf(k.timings[(64, 32, 16)]["ws-hopper{persistent=true}"])


def test_every_config_failing_is_a_located_error():
    fake = Fake(COSTS, broken=set(COSTS))
    k = fake.tune(CONFIGS, source=GEMM)
    with warnings.catch_warnings(record=True), pytest.raises(WsError) as e:
        k[1](np.ones(4), np.ones(4), np.zeros(4), 64, 32, 16, 32)
    msg = str(e.value)
    assert msg.startswith(f"{GEMM}:4:3: error: autotune: no config of @matmul compiles (ws-hopper: k.mlir:3:5")
    assert all(name in msg for name in COSTS)


def test_every_launch_failing_raises_the_launch_error():
    fake = Fake(COSTS, unlaunchable=set(COSTS))
    k = fake.tune(CONFIGS)
    with pytest.raises(RuntimeError, match="OUT_OF_RESOURCES"):
        k[1](*args())


def test_a_single_config_is_not_timed():
    fake = Fake(COSTS, broken={"ws-hopper{persistent=true}", "ws-hopper{depth=4 mma-depth=3}"})
    k = fake.tune(CONFIGS)
    with warnings.catch_warnings(record=True):
        k[1](*args())
    assert fake.timed == 0 and k.best_config[(64, 32, 16)].name == "ws-hopper"


def test_unknown_argument_names_are_located_errors():
    fake = Fake()
    with pytest.raises(WsError) as e:
        fake.tune(CONFIGS, key=["M", "L"], source=GEMM)
    assert str(e.value) == (f"{GEMM}:4:3: error: autotune: key names 'L', which is not an argument of @matmul "
                            "(its arguments: a_desc, b_desc, c_ptr, M, N, K, stride_cm)")
    with pytest.raises(WsError, match="restore_value names 'c'"):
        fake.tune(CONFIGS, key=["M"], source=GEMM, restore_value=["c"])


def test_wrong_calls_are_clear_errors():
    fake = Fake(COSTS)
    k = fake.tune(CONFIGS)
    with pytest.raises(WsError, match=r"@acc takes 5 arguments \(x, out, M, N, K\), got 4"):
        k[1](*args()[:4])
    with pytest.raises(WsError, match="config ws-hopper has no grid"):
        k(*args())
    with pytest.raises(WsError, match="key argument 'M' is a list"):
        k[1](np.zeros(4), np.zeros(4), [1], 2, 3)
    with pytest.raises(ValueError, match="two configs are named 'ws-hopper'"):
        fake.tune([Config("ws-hopper"), Config("ws-hopper")])
    with pytest.raises(TypeError, match="list of wsdialects.Config"):
        fake.tune(["ws-hopper"])
    with pytest.raises(WsError, match="several|kernels @?a, b|kernels a, b"):
        fake.tune(CONFIGS, source=ACC.replace("@acc", "@a") + ACC.replace("@acc", "@b"))


def test_a_config_grid_replaces_the_call_grid():
    fake = Fake(COSTS)
    cfgs = [Config("ws-hopper", grid=lambda a: (a["M"] // 16, 2)),
            Config("ws-hopper", persistent=True, grid=lambda a: (min(3, a["M"] // 16),))]
    k = fake.tune(cfgs)
    k(*args(64))  # every config has a grid: no grid at the call
    grids = {spec: grid for spec, grid in fake.launches}
    assert grids == {"ws-hopper": (4, 2), "ws-hopper{persistent=true}": (3,)}
    mixed = Fake(COSTS)
    mixed.tune([Config("ws-hopper", grid=(9,)), Config("ws-hopper", persistent=True)])[lambda a: (a["N"],)](*args())
    assert {spec: grid for spec, grid in mixed.launches} == {"ws-hopper": (9,), "ws-hopper{persistent=true}": (32,)}


def test_a_config_source_replaces_the_kernel(tmp_path):
    wide = tmp_path / "wide.mlir"
    wide.write_text(ACC.replace("num_warps = 4", "num_warps = 8"))
    fake = Fake(COSTS)
    sources = []
    compiler = fake.compiler
    fake.compiler = lambda source, pipeline: sources.append(str(source)) or compiler(source, pipeline)
    fake.tune([Config("ws-hopper"), Config("ws-hopper", source=wide, name="wide")])[1](*args())
    assert sources == [ACC, str(wide)]
    other = tmp_path / "other.mlir"
    other.write_text(ACC.replace("%K: i32", "%L: i32"))
    with pytest.raises(WsError) as e:
        fake.tune([Config("ws-hopper"), Config("ws-hopper", source=other, name="other")])
    assert str(e.value) == (f"{other}:2:3: error: autotune: config other: its @acc takes (x, out, M, N, L), the "
                            "kernel's takes (x, out, M, N, K); a config's source must take the same arguments")


def test_prune_configs_by():
    fake = Fake(COSTS)
    early = lambda configs, named: [c for c in configs if named["M"] > 100 or "persistent" not in c.spec]  # noqa: E731
    k = fake.tune(CONFIGS, prune_configs_by={"early_config_prune": early})
    k[1](*args(64))
    assert k.best_config[(64, 32, 16)].name == "ws-hopper"
    k[1](*args(128))
    assert k.best_config[(128, 32, 16)].name == "ws-hopper{persistent=true}"
    fake = Fake(COSTS)
    model = {"ws-hopper": 1, "ws-hopper{persistent=true}": 3, "ws-hopper{depth=4 mma-depth=3}": 2}
    k = fake.tune(CONFIGS, prune_configs_by={"perf_model": lambda c, named: model[c.name], "top_k": 2})
    k[1](*args())
    assert set(k.timings[(64, 32, 16)]) == {"ws-hopper", "ws-hopper{depth=4 mma-depth=3}"}
    with pytest.raises(ValueError, match="prune_configs_by takes"):
        fake.tune(CONFIGS, prune_configs_by={"top": 1})


def test_the_disk_cache_is_used_by_a_fresh_tuner(tmp_path):
    fake = Fake(COSTS)
    fake.tune(CONFIGS, cache_dir=tmp_path)[1](*args())
    (path,) = tmp_path.glob("acc-*.json")
    entry = json.loads(path.read_text())["entries"]["[64, 32, 16]"]
    assert entry["config"] == "ws-hopper{persistent=true}" and entry["ms"]["ws-hopper"] == 2.0
    again = Fake(COSTS)
    k = again.tune(CONFIGS, cache_dir=tmp_path)
    k[1](*args())
    assert again.timed == 0 and again.compiles == ["ws-hopper{persistent=true}"]  # only the winner compiled
    assert k.best_config[(64, 32, 16)].name == "ws-hopper{persistent=true}"
    k[1](*args(128))  # a key not in the file is tuned
    assert again.timed == 3 and len(json.loads(path.read_text())["entries"]) == 2


def test_the_disk_cache_is_per_source_configs_and_device(tmp_path):
    Fake(COSTS).tune(CONFIGS, cache_dir=tmp_path)[1](*args())
    for change in ({"source": ACC.replace("tile.num_warps = 4", "tile.num_warps = 8")},
                   {"configs": CONFIGS[:2]},
                   {"configs": [Config("ws-hopper", grid=lambda a: (1,))] + CONFIGS[1:]}):
        fake = Fake(COSTS)
        fake.tune(change.get("configs", CONFIGS), source=change.get("source", ACC), cache_dir=tmp_path)[1](*args())
        assert fake.timed > 0, change  # not reused: timed again
    fake = Fake(COSTS)
    autotune(ACC, CONFIGS, ["M", "N", "K"], compiler=fake.compiler, timer=fake.timer, cache_dir=tmp_path,
             device_name=lambda a: "other-gpu")[1](*args())
    assert fake.timed == 3


def test_the_kernel_source_file_changing_invalidates_the_cache(tmp_path):
    src = tmp_path / "acc.mlir"
    src.write_text(ACC)
    cache = tmp_path / "cache"
    fast_persistent = Fake(COSTS)
    fast_persistent.tune(CONFIGS, source=src, cache_dir=cache)[1](*args())
    src.write_text(ACC.replace("func.return", "%c = arith.constant 0 : i32\n    func.return"))
    fast_plain = Fake({**COSTS, "ws-hopper": 0.1})
    k = fast_plain.tune(CONFIGS, source=src, cache_dir=cache)
    k[1](*args())
    assert fast_plain.timed == 3 and k.best_config[(64, 32, 16)].name == "ws-hopper"
    assert len(list(cache.glob("*.json"))) == 2


def test_a_damaged_or_foreign_cache_file_counts_as_empty(tmp_path):
    fake = Fake(COSTS)
    fake.tune(CONFIGS, cache_dir=tmp_path)[1](*args())
    (path,) = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    data["entries"]["[64, 32, 16]"]["config"] = "no such config"
    path.write_text(json.dumps(data))
    again = Fake(COSTS)
    again.tune(CONFIGS, cache_dir=tmp_path)[1](*args())
    assert again.timed == 3
    path.write_text("{not json")
    assert DiskCache(tmp_path, data["identity"], "acc").get("[64, 32, 16]") is None


def test_an_unwritable_cache_warns_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    fake = Fake(COSTS)
    k = fake.tune(CONFIGS, cache_dir=blocker / "sub")
    with pytest.warns(AutotuneWarning, match="cannot write the cache"):
        k[1](*args())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[1](*args(128))
    assert len(k.best_config) == 2


def test_the_default_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("WSDIALECTS_CACHE_DIR", str(tmp_path))
    fake = Fake(COSTS)
    autotune(ACC, CONFIGS, ["M"], compiler=fake.compiler, timer=fake.timer, device_name=lambda a: "g")[1](*args())
    assert len(list((tmp_path / "autotune").glob("acc-*.json"))) == 1


def test_the_choice_is_printed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WSDIALECTS_PRINT_AUTOTUNING", "1")
    Fake(COSTS).tune(CONFIGS, cache_dir=tmp_path)[1](*args())
    err = capsys.readouterr().err
    assert err.startswith("autotune: @acc key (64, 32, 16): picked ws-hopper{persistent=true} (1.500 ms; others: "
                          "ws-hopper 2.000 ms, ws-hopper{depth=4 mma-depth=3} 3.000 ms; tuned in ")
    Fake(COSTS).tune(CONFIGS, cache_dir=tmp_path)[1](*args())
    assert "picked ws-hopper{persistent=true} (1.500 ms; others: ws-hopper 2.000 ms" in capsys.readouterr().err
    monkeypatch.delenv("WSDIALECTS_PRINT_AUTOTUNING")
    Fake(COSTS).tune(CONFIGS)[1](*args())
    assert capsys.readouterr().err == ""
    Fake(COSTS).tune(CONFIGS, verbose=True)[1](*args())
    assert "picked" in capsys.readouterr().err


def test_compile_with_configs_and_key_autotunes():
    fake = Fake(COSTS)
    import wsdialects

    k = wsdialects.compile(ACC, configs=CONFIGS, key=["M", "N"], compiler=fake.compiler, timer=fake.timer,
                           device_name=lambda a: "g", cache_dir=False, restore_value=["out"])
    assert (k.key, k.restore_value, fake.compiles) == (["M", "N"], ["out"], [])
    k[1](*args())
    assert k.best_config[(64, 32)].name == "ws-hopper{persistent=true}" and fake.timed == 3
    assert repr(k) == ("<wsdialects.Autotuner @acc key=['M', 'N'] configs=[ws-hopper, ws-hopper{persistent=true}, "
                       "ws-hopper{depth=4 mma-depth=3}] tuned keys=1>")
    with pytest.raises(TypeError, match=r"needs both configs= and key= \(got only configs=\)"):
        wsdialects.compile(ACC, configs=CONFIGS)
    with pytest.raises(TypeError, match=r"needs both configs= and key= \(got only key=\)"):
        wsdialects.compile(ACC, key=["M"])
    with pytest.raises(TypeError, match="each Config names its pipeline; got pipeline='ws-specialize'"):
        wsdialects.compile(ACC, "ws-specialize", configs=CONFIGS, key=["M"])
    with pytest.raises(TypeError, match=r"depth is not \(pass options go in each Config, e.g. Config\('ws-hopper', "
                                        r"depth=\.\.\.\)\)"):
        wsdialects.compile(ACC, configs=CONFIGS, key=["M"], depth=3)


def test_the_real_compiler_seam():
    # wsdialects.compile is what the tuner calls by default: a config's options reach the
    # pipeline, a bad option is a skipped config (no GPU needed to compile)
    k = autotune(GEMM, [Config("ws-hopper", persistent=True, programs=7), Config("ws-hopper", no_such=1)],
                 key=["M"], timer=Fake().timer, cache_dir=False)
    assert k.compiled(k.configs[0]).kernels["matmul"].persistent_programs == 7
    with pytest.warns(AutotuneWarning, match=r"ws-hopper\{no-such=1\} skipped, it does not compile: .*no-such"):
        with pytest.raises(WsError, match="no-such"):
            k.compiled(k.configs[1])


def test_cuda_timer_takes_the_median_of_rep_milliseconds(monkeypatch):
    # torch replaced at its seam (runtime.launch._torch): events read a fake clock that
    # the launches advance; every 4th launch is slow
    from types import SimpleNamespace

    from wsdialects.runtime import launch
    from wsdialects.runtime.bench import cuda_timer

    clock, runs, flushes = [0.0], [0], [0]

    class Event:
        def __init__(self, enable_timing):
            assert enable_timing

        def record(self):
            self.t = clock[0]

        def elapsed_time(self, end):
            return end.t - self.t

    class Buffer:
        def zero_(self):
            flushes[0] += 1

    torch = SimpleNamespace(int32="int32", empty=lambda *a, **k: Buffer(),
                            cuda=SimpleNamespace(Event=Event, synchronize=lambda: None))
    monkeypatch.setattr(launch, "_torch", lambda: torch)

    def fn():
        runs[0] += 1
        clock[0] += 10.0 if runs[0] % 4 == 0 else 2.0

    # 1 untimed launch, 5 to estimate (2+2+10+2+2 = 18 ms: 3.6 ms each), int(10 / 3.6) = 2
    # warm-up runs, int(40 / 3.6) = 11 timed runs (2 of them slow): the median is 2 ms
    assert cuda_timer(warmup=10, rep=40)(fn) == 2.0
    assert runs[0] == 1 + 5 + 2 + 11 and flushes[0] == 5 + 2 + 11
    runs[0] = flushes[0] = 0
    assert cuda_timer(warmup=0, rep=1e-3, flush_l2=False)(fn) == 2.0  # at least one timed run
    assert runs[0] == 1 + 5 + 1 and flushes[0] == 0
    with pytest.raises(ValueError, match="rep > 0"):
        cuda_timer(rep=0)
