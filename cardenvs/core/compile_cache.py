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
  source, not only of the function's own file: numba discards an index whose stamp differs. So entries written
  under the old naming are never loaded, and neither is a kernel that compiled in (inlined or linked) a function
  or a constant of another file that has changed since, which numba's own per-file stamp would miss.

Both only change names and cache bookkeeping, never what a kernel computes; functions of other packages keep
numba's defaults except for the record naming, which is deterministic for them too.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from numba.core import caching, types

#: Bump when the naming of compiled record types changes, so that older cache entries are ignored.
CACHE_TAG = "cardenvs-record-layout-digest-v1"

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DIGEST_HEX_CHARS = 32  # 128 bits: collisions between layouts are out of the question
# numba 0.61 renamed ``_CacheImpl`` to ``CacheImpl``; the locator list is a class attribute of either.
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl


@functools.cache
def package_source_digest() -> str:
    """A digest of every Python source file of the cardenvs package (read once per process)."""
    digest = hashlib.sha256()
    for path in sorted(Path(_PACKAGE_DIR).rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
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
        if not os.path.abspath(py_file).startswith(_PACKAGE_DIR + os.sep):
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
