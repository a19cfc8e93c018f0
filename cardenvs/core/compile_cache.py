"""Where numba's compiled cache of cardenvs lives, and how it stays safe for state records of many layouts.

**Where.** Every cardenvs function's cache entries go to one per-user folder, :func:`cache_dir`: the folder
named by ``CARDENVS_CACHE_DIR`` if set, else numba's own ``NUMBA_CACHE_DIR`` (a user who points numba's cache
somewhere gets cardenvs's there too), else the platform's per-user cache folder (``$XDG_CACHE_HOME/cardenvs`` or
``~/.cache/cardenvs`` on Linux, ``~/Library/Caches/cardenvs`` on macOS, ``%LOCALAPPDATA%\\cardenvs\\Cache`` on
Windows). Never beside the sources, which is numba's default: an installed package's folder stays exactly as pip
wrote it, so a read-only install (a system or container image) works and ``pip uninstall`` leaves nothing behind.
Inside that folder each source folder has a subfolder of its own, named (as numba names them under
``NUMBA_CACHE_DIR``) by the folder's name and a digest of its absolute path: two installs, or two checkouts, that
share one cache folder never share an entry. If the folder cannot be written, a warning says so and the process
compiles into a private temporary folder that is removed when it exits.

**Safe.** Every game compiles its kernels once per state-record layout, and the layout changes with the
parameters (``num_players`` sizes the per-seat arrays). numba names a compiled function after its argument types,
and it names a record type by a counter that restarts in every process (``types.Record.mangling_args``). Two
processes that compiled two different layouts could therefore cache machine code under the *same* symbol names; a
third process that loaded both linked one layout's code into the other's kernels, and ran the wrong rules (or hung).
Two measures, applied when :mod:`cardenvs` is imported, before any kernel compiles:

* A record type's mangled name is a digest of its full layout (field names, types, offsets, size), so the
  same name always means the same layout, in every process.
* Cache entries of cardenvs functions are stamped with :data:`CACHE_TAG` and a digest of the whole package's
  source (cardenvs.agents included, whose folder is agents/ in the repository), not only of the function's own
  file: numba discards an index whose stamp differs. So entries written under the old naming are never loaded,
  and neither is a kernel that compiled in (inlined or linked) a function or a constant of another file that has
  changed since, which numba's own per-file stamp would miss; nor one written by another version installed at
  the same path.

Both only change names and cache bookkeeping, never what a kernel computes; functions of other packages keep
numba's defaults except for the record naming, which is deterministic for them too.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import importlib.util
import os
import shutil
import tempfile
import threading
import warnings
from pathlib import Path

from numba.core import caching, config, types
from numba.misc.appdirs import AppDirs

#: Bump when the naming of compiled record types changes, so that older cache entries are ignored.
CACHE_TAG = "cardenvs-record-layout-digest-v1"
#: the environment variable that names cardenvs's cache folder (it wins over ``NUMBA_CACHE_DIR``)
CACHE_DIR_VARIABLE = "CARDENVS_CACHE_DIR"
#: the name of the per-user cache folder in the platform's cache location
APP_NAME = "cardenvs"

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: subpackages whose folders lie outside cardenvs/ in the repository (pyproject's package-dir) and hold compiled
#: functions that kernels call (the rule-based policies of compiled playouts)
_MAPPED_SUBPACKAGES = ("cardenvs.agents",)
_DIGEST_HEX_CHARS = 32  # 128 bits: collisions between layouts are out of the question
# numba 0.61 renamed ``_CacheImpl`` to ``CacheImpl``; the locator list is a class attribute of either.
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl
_fallback_lock = threading.Lock()
_fallback_dirs: list[str] = []  # the private folder of this process, once the cache folder proved unwritable


def cache_dir() -> str:
    """The folder that holds the compiled cache of cardenvs: ``CARDENVS_CACHE_DIR`` if set, else numba's
    ``NUMBA_CACHE_DIR`` if set, else the platform's per-user cache folder for cardenvs (an absolute path; it is
    created on first use)."""
    chosen = os.environ.get(CACHE_DIR_VARIABLE) or config.CACHE_DIR or AppDirs(APP_NAME, appauthor=False).user_cache_dir
    return os.path.abspath(os.path.expanduser(chosen))


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


def _private_cache_dir(unwritable: str, error: OSError) -> str:
    """This process's temporary cache folder (made, announced and scheduled for removal on first use)."""
    with _fallback_lock:
        if not _fallback_dirs:
            path = tempfile.mkdtemp(prefix=f"{APP_NAME}-cache-")
            atexit.register(shutil.rmtree, path, ignore_errors=True)
            warnings.warn(
                f"cardenvs cannot write its compiled cache to {unwritable} ({error}); this process compiles into a "
                f"temporary folder that is removed when it exits. Set {CACHE_DIR_VARIABLE} to a writable folder to "
                f"keep the compiled rules between runs.",
                RuntimeWarning,
                stacklevel=2,
            )
            _fallback_dirs.append(path)
        return _fallback_dirs[0]


class LayoutSafeCacheLocator(caching._CacheLocator):
    """The cache locator of every cardenvs function: its entries in :func:`cache_dir`, in a subfolder of the
    function's source folder, stamped with :data:`CACHE_TAG` and the digest of the package's source."""

    def __init__(self, py_func, py_file: str, root: str):
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> tuple:
        return (CACHE_TAG, package_source_digest())

    def get_disambiguator(self) -> str:
        return str(self._lineno)  # numba's own: the first line tells apart same-named functions of one file

    @classmethod
    def from_function(cls, py_func, py_file):
        if not any(os.path.abspath(py_file).startswith(folder + os.sep) for folder in source_dirs()):
            return None
        root = cache_dir()
        locator = cls(py_func, py_file, root)
        try:
            locator.ensure_cache_path()
        except OSError as error:
            locator = cls(py_func, py_file, _private_cache_dir(root, error))
            locator.ensure_cache_path()
        return locator


def install() -> None:
    """Apply both measures and the cache folder (idempotent)."""
    types.Record.mangling_args = property(record_mangling_args)
    locators = _CACHE_IMPL._locator_classes
    if LayoutSafeCacheLocator not in locators:
        locators.insert(0, LayoutSafeCacheLocator)
