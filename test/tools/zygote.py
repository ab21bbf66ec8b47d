"""A fork server for the lit suite: console scripts started without paying their imports.

Every lit RUN line starts `ws-opt`, `ws-schedule` or `filecheck`, and most of such a
process's time is Python importing xDSL, numpy and llvmlite (about 0.6 s of CPU each,
some 300 times per run). The server imports those tools once; each RUN line's
command is then a small client (test/tools/zygote_client.c where a C compiler is found,
about 1 ms; else `python -S -E zygote.py client ...`, about 13 ms) that hands the server its argv, working directory, environment and its own stdin, stdout
and stderr file descriptors. The server forks, the child takes over those
descriptors, runs the console script's entry point exactly as the script would
(`sys.exit(main())`) and sends the exit status back; the client exits with it. So
output, exit codes, files written and environment variables are those of the real
process; only the start is shared. Without a server (not started, or it died) the
client runs the real tool instead (`os.execv`), so a broken server costs time, never
results. `test/python` still runs the real `ws-opt` executable as a process.

    python zygote.py serve SOCKET PARENT_PID [--preload=PKG] [--skip=PKG.SUB] [--path=DIR] [--import=MOD[:FUNC]] TOOL=SCRIPT...
    python -S -E zygote.py client SOCKET SCRIPT ARGS...       # one RUN-line command

The server imports every module of each --preload package (but the --skip ones) and each
--import module (and calls FUNC of `--import=MOD:FUNC`; --path folders are searched
too), and runs every tool's `--version` and `--help` once (see `_warm_up`), so
that a child starts with what the tools import on first use. The client imports builtin
modules only; test/lit.cfg.py starts it with `-c "from zygote import client"`, so that its
code comes from zygote's cached bytecode rather than being compiled for every command.

test/lit.cfg.py starts the server; `WSDIALECTS_LIT_ZYGOTE=0 lit ...` runs every RUN
line in a fresh process instead.
"""


import os
import sys

# The client imports nothing but builtin modules (`_socket`): json, socket and struct (enum,
# re) took two thirds of its 24 ms of CPU, paid by every RUN-line command. Where a C compiler
# is found, test/lit.cfg.py runs test/tools/zygote_client.c instead (same protocol, no Python).
_HDR = 4  # payload size: 4 bytes, big-endian
_STATUS = 4  # exit status: 4 bytes, big-endian, signed


# --- client: one per RUN-line command, no site imports -------------------------------

def client(sock_path: str, script: str, args: list[str]) -> None:
    import _socket

    payload = _payload([script, *args], os.getcwd(), os.environ)
    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))  # C ints
    try:
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        s.connect(sock_path)
        s.sendmsg([len(payload).to_bytes(_HDR, "big")], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        s.sendall(payload)
    except OSError:
        os.execv(script, [script, *args])  # no server: the real process
    data = b""
    while len(data) < _STATUS:
        chunk = s.recv(_STATUS - len(data))
        if not chunk:
            sys.stderr.write(f"zygote: the forked {os.path.basename(script)} died without an exit status\n")
            sys.exit(70)
        data += chunk
    sys.exit(int.from_bytes(data, "big", signed=True))


def _payload(argv: list[str], cwd: str, env) -> bytes:
    """What a client sends after the header: NUL-separated b"WSZ1", the argument count, the
    arguments, the working directory and each NAME=VALUE of the environment, as the operating
    system gave them (test/tools/zygote_client.c sends the same)."""
    fields = [b"WSZ1", str(len(argv)).encode(), *map(os.fsencode, argv), os.fsencode(cwd)]
    fields += [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
    return b"\0".join(fields)


def _request(payload: bytes) -> tuple[list[str], str, dict[str, str]]:
    """(argv, cwd, environment) of a `_payload`, decoded as Python decodes its own."""
    magic, n, *rest = payload.split(b"\0")
    if magic != b"WSZ1":
        raise ValueError("zygote: not a client of this server")
    n = int(n)
    argv, cwd = [os.fsdecode(a) for a in rest[:n]], os.fsdecode(rest[n])
    env = {}
    for entry in rest[n + 1 :]:
        name, sep, value = entry.partition(b"=")
        if sep and name:  # as os.environ: an entry without "=" is left out
            env.setdefault(os.fsdecode(name), os.fsdecode(value))
    return argv, cwd, env


# --- server ---------------------------------------------------------------------------

def _entry_point(script: str):
    """The `from MODULE import NAME` that a pip console script calls, imported now."""
    import importlib
    import re

    with open(script, encoding="utf-8") as f:
        m = re.search(r"^from (\S+) import (\w+)$", f.read(), re.M)
    if m is None:
        raise RuntimeError(f"{script}: not a console script")
    return getattr(importlib.import_module(m.group(1)), m.group(2))


def _preload(package: str, skip: tuple[str, ...]) -> None:
    """Import every module of `package` (what the tools import lazily, e.g. the passes
    and the dialect context), so that no child pays for it; `skip` are left out."""
    import importlib
    import pkgutil

    pkg = importlib.import_module(package)
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        if not info.name.startswith(skip):
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - an optional dependency missing: imported on use
                pass


def _import(module: str) -> None:
    """Import one module (a dependency the tools import on first use, e.g. llvmlite);
    `module:function` also calls the function (the tools' own way of importing something)."""
    import importlib

    module, _, function = module.partition(":")
    try:
        m = importlib.import_module(module)
        if function:
            getattr(m, function)()
    except Exception:  # noqa: BLE001 - not installed: each child imports (and reports) it as usual
        pass


def _warm_up(main) -> None:
    """Run a tool's `--version` and `--help` once here, output discarded: what its first
    call imports (argparse's parser, importlib.metadata and email for the version, about
    20 ms of a 25 ms `ws-opt --version`) is then imported once, not in every child. Both
    only print; no cache of the compiler is filled."""
    import contextlib
    import io

    argv = sys.argv
    for flag in ("--version", "--help"):
        sys.argv = [argv[0], flag]
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                main()
        except BaseException:  # noqa: BLE001 - SystemExit from argparse, or a tool without the flag
            pass
    sys.argv = argv


def _std_streams() -> None:
    """Fresh sys.stdin/stdout/stderr over fds 0-2, as a new interpreter would make them."""
    import io

    def wrap(fd: int, old, write: bool):
        raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
        buf = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
        # stdout is line-buffered on a terminal only, stderr always (Python >= 3.9)
        return io.TextIOWrapper(buf, encoding=old.encoding, errors=old.errors, newline="\n",
                                line_buffering=fd == 2 or (write and raw.isatty()))

    sys.stdin = sys.__stdin__ = wrap(0, sys.__stdin__, False)
    sys.stdout = sys.__stdout__ = wrap(1, sys.__stdout__, True)
    sys.stderr = sys.__stderr__ = wrap(2, sys.__stderr__, True)


def _run_child(conn, tools: dict) -> None:
    """In the forked child: become the client's process and run its tool."""
    import socket
    import traceback

    code = 70
    try:
        msg, fds, _, _ = socket.recv_fds(conn, _HDR, 3)
        n = int.from_bytes(msg, "big")
        payload = b""
        while len(payload) < n:
            chunk = conn.recv(n - len(payload))
            if not chunk:
                os._exit(70)
            payload += chunk
        argv, cwd, env = _request(payload)
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
            os.close(fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = argv
        _std_streams()
        main = tools.get(os.path.realpath(sys.argv[0]))
        if main is None:
            print(f"zygote: no tool {sys.argv[0]} in this server", file=sys.stderr)
            return
        try:
            code = main()
            raise SystemExit(code)
        except SystemExit as e:  # what the interpreter does with sys.exit(x)
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001 - an uncaught exception: traceback, status 1
            traceback.print_exc()
            code = 1
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:  # noqa: BLE001 - a closed pipe, as at interpreter exit
                code = code or 120
    finally:
        try:
            conn.sendall(code.to_bytes(_STATUS, "big", signed=True))
        finally:
            os._exit(0)


def serve(sock_path: str, parent: int, specs: list[str]) -> None:
    import gc
    import select
    import signal
    import socket

    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    srv.listen(256)  # clients queue here while the tools are imported
    tools, preload, skip, modules = {}, [], [], []
    for spec in specs:
        key, value = spec.split("=", 1)
        if key == "--preload":
            preload.append(value)
        elif key == "--skip":
            skip.append(value)
        elif key == "--import":
            modules.append(value)
        elif key == "--path":  # a folder to import --import modules from (test/ for solve_cache)
            sys.path.append(value)
        else:
            tools[os.path.realpath(value)] = _entry_point(value)
    for package in preload:
        _preload(package, tuple(skip))
    for module in modules:
        _import(module)
    for main in tools.values():
        _warm_up(main)
    # What the server imported is here to stay: collected once more, then frozen, so that no
    # child's garbage collection scans it (nor, writing to the objects it scans, copies their
    # pages): lit's CPU time 39.4 -> 37.4 CPU-s (means of 4 alternating runs, 2-core machine).
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    try:
        while os.getppid() == parent:
            if not select.select([srv], [], [], 1.0)[0]:
                continue
            conn, _ = srv.accept()
            sys.stdout.flush()
            sys.stderr.flush()
            if os.fork() == 0:
                srv.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _run_child(conn, tools)
            conn.close()
    finally:
        os.unlink(sock_path)
        os.rmdir(os.path.dirname(sock_path))


if __name__ == "__main__":
    if sys.argv[1] == "client":
        client(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        serve(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
