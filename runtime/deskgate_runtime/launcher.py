"""Starting processes and reading .desktop files inside the desktop's own environment.

For desktops in containers (docs/containers.md) the worker can neither spawn a process inside
the desktop nor read its files; the `launch` and `desktop_entries` ops do it here, in the
runtime's environment (the desktop user, its PATH and XDG folders, its display).
"""
import errno
import logging
import os
import stat
import subprocess
import signal
import threading

from .errors import LaunchFailed, NotFound, QuotaExceeded

log = logging.getLogger(__name__)

MAX_ARGS = 64
MAX_LAUNCH_BYTES = 16 * 1024  # argv + env + cwd, UTF-8 encoded
MAX_DESKTOP_FILES = 4000
MAX_DESKTOP_FILE_BYTES = 64 * 1024
MAX_DESKTOP_TOTAL_BYTES = 8 * 1024 * 1024  # of file contents in one answer
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


def check_launch(argv, env, cwd):
    """Reject a bad launch request (ValueError, reported as bad_args) before anything runs."""
    if not isinstance(argv, list) or not argv:
        raise ValueError("launch: 'argv' must be a non-empty list of strings")
    if len(argv) > MAX_ARGS:
        raise ValueError(f"launch: 'argv' has {len(argv)} items; the limit is {MAX_ARGS}")
    for i, a in enumerate(argv):
        if not isinstance(a, str):
            raise ValueError(f"launch: 'argv[{i}]' must be a string")
        if "\0" in a:
            raise ValueError(f"launch: 'argv[{i}]' contains a NUL byte")
    if not argv[0]:
        raise ValueError("launch: 'argv[0]' must not be empty")
    total = sum(len(a.encode("utf-8", "surrogatepass")) + 1 for a in argv)
    for k, v in (env or {}).items():
        if not isinstance(v, str):
            raise ValueError(f"launch: 'env.{k}' must be a string")
        if not k or "=" in k or "\0" in k or "\0" in v:
            raise ValueError(f"launch: bad environment variable name or value {k!r}")
        total += len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass")) + 2
    if cwd is not None:
        if not cwd or "\0" in cwd:
            raise ValueError("launch: 'cwd' must be a non-empty path without NUL bytes")
        total += len(cwd.encode("utf-8", "surrogatepass"))
    if total > MAX_LAUNCH_BYTES:
        raise ValueError(f"launch: argv, env and cwd are {total} bytes; the limit is {MAX_LAUNCH_BYTES}")


def resolve(file, path):
    """The executable `file` names: itself when it has a slash, else the first match on PATH."""
    candidates = [file] if "/" in file else [os.path.join(d or ".", file) for d in path.split(":") if d]
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def launch(argv, env=None, cwd=None):
    """Start argv in a new session with stdio on /dev/null; returns its pid. A thread reaps
    it when it exits, so it never lingers as a zombie of the runtime."""
    check_launch(argv, env, cwd)
    merged = dict(os.environ, **(env or {}))
    name = argv[0]
    executable = resolve(name, merged.get("PATH", DEFAULT_PATH))
    if executable is None:
        raise NotFound(f"launch: cannot start {name}: no such executable")
    try:
        proc = subprocess.Popen(argv, executable=executable, env=merged, cwd=cwd,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    except OSError as e:
        if e.errno == errno.EAGAIN:
            raise QuotaExceeded(
                f"launch: cannot start {name}: the desktop's process limit is reached "
                f"({os.strerror(e.errno)}); close an app before starting another") from None
        raise LaunchFailed(f"launch: cannot start {name}: {e.strerror or e}") from None
    _children[proc.pid] = proc
    _install_reaper()
    reap()  # the child may already be gone
    return proc.pid


# Launched processes not reaped yet. They are reaped from a SIGCHLD handler (no thread per
# child: under a container's pids limit a thread costs a pid like a process does), and from
# the runtime's idle ticks as a backstop.
_children = {}
_reaper_installed = False


def reap():
    """Collect every launched process that has exited (waitpid WNOHANG on each)."""
    for pid, proc in list(_children.items()):
        try:
            code = proc.poll()
        except ChildProcessError:
            code = -1
        if code is not None:
            _children.pop(pid, None)
            log.info("launched process %d exited with %s", pid, code)


def running():
    """Pids of launched processes that have not exited (or not been reaped) yet."""
    return sorted(_children)


def _install_reaper():
    global _reaper_installed
    if _reaper_installed or threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGCHLD, lambda *_: reap())
    _reaper_installed = True


def application_dirs(environ=None, user=True):
    """$XDG_DATA_HOME/applications (unless `user` is false), then each $XDG_DATA_DIRS entry's
    applications/ (XDG order)."""
    environ = os.environ if environ is None else environ
    home = environ.get("XDG_DATA_HOME") or os.path.join(environ.get("HOME") or "/", ".local/share")
    dirs = [d for d in (environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share").split(":") if d]
    out = []
    for d in ([home] if user else []) + dirs:
        a = os.path.join(d, "applications")
        if a not in out:
            out.append(a)
    return out


def desktop_entries(environ=None, user=True):
    """Every *.desktop file directly in the application folders, first folder first, names
    sorted within a folder; files over MAX_DESKTOP_FILE_BYTES skipped, text decoded as UTF-8
    with replacement characters. Returns (files, truncated): at most MAX_DESKTOP_FILES files
    and MAX_DESKTOP_TOTAL_BYTES of contents; truncated says files were left out for that."""
    files, total = [], 0
    for d in application_dirs(environ, user):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".desktop"):
                continue
            if len(files) >= MAX_DESKTOP_FILES:
                return files, True
            path = os.path.join(d, name)
            try:
                st = os.stat(path)
                if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DESKTOP_FILE_BYTES:
                    continue  # never open a FIFO or a device; big files are not desktop entries
                with open(path, "rb") as f:
                    data = f.read(MAX_DESKTOP_FILE_BYTES + 1)
            except OSError:
                continue
            if len(data) > MAX_DESKTOP_FILE_BYTES:
                continue
            if total + len(data) > MAX_DESKTOP_TOTAL_BYTES:
                return files, True
            total += len(data)
            files.append({"path": path, "text": data.decode("utf-8", "replace")})
    return files, False
