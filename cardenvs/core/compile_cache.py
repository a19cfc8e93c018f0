"""Make numba's on-disk cache safe for state records of many layouts.

Every game compiles its kernels once per state-record layout, and the layout changes with the parameters
(``num_players`` sizes the per-seat arrays). numba names a compiled function after its argument types, and it
names a record type by a counter that restarts in every process (``types.Record.mangling_args``). Two processes
that compiled two different layouts could therefore cache machine code under the *same* symbol names; a third
process that loaded both linked one layout's code into the other's kernels, and ran the wrong rules (or hung).

Two measures, applied when :mod:`cardenvs` is imported, before any kernel compiles:

* A record type's mangled name is a digest of its full layout (field names, types, offsets, size), so the
  same name always means the same layout, in every process.
* Cache entries of cardenvs functions are stamped with :data:`CACHE_TAG` and a digest of the whole package's
  source (cardenvs.agents included, whose folder is agents/ in the repository), not only of the function's own
  file: numba discards an index whose stamp differs. So entries written under the old naming are never loaded,
  and neither is a kernel that compiled in (inlined or linked) a function or a constant of another file that has
  changed since, which numba's own per-file stamp would miss.

Both only change names and cache bookkeeping, never what a kernel computes; functions of other packages keep
numba's defaults except for the record naming, which is deterministic for them too.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from pathlib import Path

from numba.core import caching, types

#: Bump when the naming of compiled record types changes, so that older cache entries are ignored.
CACHE_TAG = "cardenvs-record-layout-digest-v1"

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: subpackages whose folders lie outside cardenvs/ in the repository (pyproject's package-dir) and hold compiled
#: functions that kernels call (the rule-based policies of compiled playouts)
_MAPPED_SUBPACKAGES = ("cardenvs.agents",)
_DIGEST_HEX_CHARS = 32  # 128 bits: collisions between layouts are out of the question
# numba 0.61 renamed ``_CacheImpl`` to ``CacheImpl``; the locator list is a class attribute of either.
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl


@functools.cache
def source_dirs() -> tuple[str, ...]:
    """The folders of the package's source: cardenvs/, and those of its subpackages kept elsewhere (the same folder
    in an installed wheel)."""
    dirs = [_PACKAGE_DIR]
    for name in _MAPPED_SUBPACKAGES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            location = os.path.abspath(location)
            if not any(location == known or location.startswith(known + os.sep) for known in dirs):
                dirs.append(location)
    return tuple(dirs)


@functools.cache
def package_source_digest() -> str:
    """A digest of every Python source file of the cardenvs package (read once per process)."""
    digest = hashlib.sha256()
    for index, folder in enumerate(source_dirs()):
        for path in sorted(Path(folder).rglob("*.py")):
            digest.update(f"{index}/{path.relative_to(folder)}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def record_mangling_args(record: types.Record) -> tuple[str, tuple[str]]:
    """The mangling of a record type: a digest of its layout instead of a per-process counter."""
    digest = hashlib.sha256(record.name.encode()).hexdigest()[:_DIGEST_HEX_CHARS]
    return "Record", (f"L{digest}",)


class LayoutSafeCacheLocator(caching._CacheLocator):
    """numba's own cache locator for a cardenvs function, with :data:`CACHE_TAG` added to the source stamp."""

    def __init__(self, inner: caching._CacheLocator):
        self._inner = inner

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return self._inner.get_cache_path()

    def get_source_stamp(self) -> tuple:
        return (CACHE_TAG, package_source_digest())

    def get_disambiguator(self) -> str:
        return self._inner.get_disambiguator()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not any(os.path.abspath(py_file).startswith(folder + os.sep) for folder in source_dirs()):
            return None
        for other in _CACHE_IMPL._locator_classes:
            if other is not cls:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner)
        return None


def install() -> None:
    """Apply both measures (idempotent)."""
    types.Record.mangling_args = property(record_mangling_args)
    locators = _CACHE_IMPL._locator_classes
    if LayoutSafeCacheLocator not in locators:
        locators.insert(0, LayoutSafeCacheLocator)
