"""The on-disk cache of autotuning choices: one JSON file per kernel source, config list,
device and compiler, holding the winner (and every config's time) per key.

    $WSDIALECTS_CACHE_DIR/autotune/matmul-<digest>.json   (else ~/.cache/wsdialects/autotune)
    {"identity": {...}, "entries": {"[8192, 8192, 4096]": {"config": "ws-hopper{persistent=true}",
                                                          "ms": {"ws-hopper": 1.31, ...}}}}

The digest covers the identity: the kernel's source text, the configs (name, pipeline,
source, grid function), the kernel's name, the device's name and the compiler (package
version and a hash of the package's sources, so an edited compiler never reuses a choice
timed with the old one). A file that cannot be read counts as empty; one that cannot be
written is reported once, and the choice is kept in memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path


def default_cache_dir() -> Path:
    """`$WSDIALECTS_CACHE_DIR/autotune`, else `~/.cache/wsdialects/autotune`."""
    env = os.environ.get("WSDIALECTS_CACHE_DIR")
    if env:
        return Path(env) / "autotune"
    return Path.home() / ".cache" / "wsdialects" / "autotune"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=None)
def compiler_version() -> str:
    """`<package version>+<hash of wsdialects/**/*.py>`: the compiler that produced a timing."""
    try:
        from importlib.metadata import version

        v = version("wsdialects")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        v = "unknown"
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
    return f"{v}+{h.hexdigest()[:16]}"


class DiskCache:
    """The entries of one identity (a JSON-able dict), in `directory`."""

    def __init__(self, directory: Path, identity: dict, label: str):
        self.identity = identity
        digest = text_hash(json.dumps(identity, sort_keys=True))[:24]
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:40] or "kernel"
        self.path = Path(directory) / f"{safe}-{digest}.json"
        self.write_error: str | None = None

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("identity") != self.identity:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    def get(self, key: str) -> dict | None:
        entry = self._load().get(key)
        if isinstance(entry, dict) and isinstance(entry.get("config"), str):
            return entry
        return None

    def put(self, key: str, entry: dict) -> bool:
        """Add one entry (read, merge, write to a temporary file, rename: another process
        writing the same file loses at most its own newest entry). False if not written."""
        entries = self._load()
        entries[key] = entry
        text = json.dumps({"identity": self.identity, "entries": entries}, indent=1, sort_keys=True)
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)
        except OSError as e:
            self.write_error = f"{self.path}: {e.strerror or e}"
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            return False
        return True
