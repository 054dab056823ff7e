"""launch and desktop_entries: processes and .desktop files inside the runtime's environment."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap

import pytest

from conftest import PYTHON, RUNTIME_DIR, RuntimeProcess, wait_until
from deskgate_runtime import launcher


def _state(pid):
    """The process's state letter, or None once it is gone (reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):  # reaped before the open, or between it and the read
        return None
    return stat[stat.rindex(")") + 2]


def _ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    return int(stat[stat.rindex(")") + 2:].split()[1])


def test_launch_starts_a_session_leader_on_dev_null_and_reaps_it(rt, tmp_path):
    pid = rt.call("launch", argv=["sleep", "30"])["pid"]
    # Alive, not a zombie: right after the exec it may still be R or D (paging its binary in);
    # a sleep settles into S.
    assert wait_until(lambda: _state(pid) == "S", 5), f"pid {pid} is {_state(pid)}"
    assert _ppid(pid) == rt.proc.pid
    assert os.getsid(pid) == pid  # setsid: its own session and process group
    assert os.getpgid(pid) == pid
    for fd in (0, 1, 2):
        assert os.readlink(f"/proc/{pid}/fd/{fd}") == "/dev/null"
    os.kill(pid, signal.SIGTERM)
    assert wait_until(lambda: _state(pid) is None, 5), f"pid {pid} left as {_state(pid)}"

    # Exits on its own: reaped too, nothing left as a zombie.
    quick = rt.call("launch", argv=["true"])["pid"]
    assert wait_until(lambda: _state(quick) is None, 5), f"pid {quick} left as {_state(quick)}"


def test_launch_env_cwd_and_path_lookup(rt, tmp_path):
    out = tmp_path / "out.txt"
    pid = rt.call("launch", argv=["sh", "-c", 'printf "%s %s" "$DG_EXTRA" "$PWD" > out.txt'],
                  env={"DG_EXTRA": "hello wörld"}, cwd=str(tmp_path))["pid"]
    assert wait_until(lambda: _state(pid) is None, 5)
    assert out.read_text() == f"hello wörld {tmp_path}"
    # An absolute path is used as it is; env and cwd may be null.
    assert rt.call("launch", argv=["/bin/true"], env=None, cwd=None)["pid"] > 0


def test_launch_refusals(rt, tmp_path):
    bad = [
        {"argv": []},
        {"argv": [1]},
        {"argv": "xterm"},
        {"argv": [""]},
        {"argv": ["true", "a\0b"]},
        {"argv": ["true"] + ["x"] * 64},
        {"argv": ["true", "x" * 16 * 1024]},
        {"argv": ["true"], "env": {"A": 1}},
        {"argv": ["true"], "env": {"A=B": "c"}},
        {"argv": ["true"], "env": ["A"]},
        {"argv": ["true"], "cwd": 5},
        {"argv": ["true"], "shell": True},
        {},
    ]
    for params in bad:
        err = rt.error("launch", **params)
        assert err["kind"] == "bad_args", (params, err)
    assert rt.call("launch", argv=["true"] + ["x"] * 63)["pid"] > 0  # 64 args is the limit

    err = rt.error("launch", argv=["deskgate-no-such-program"])
    assert err["kind"] == "not_found" and "deskgate-no-such-program" in err["message"]
    err = rt.error("launch", argv=[str(tmp_path / "missing")])
    assert err["kind"] == "not_found"

    err = rt.error("launch", argv=["true"], cwd=str(tmp_path / "no-such-dir"))
    assert err["kind"] == "launch_failed" and "true" in err["message"], err
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\x7fELF\x00not really")
    garbage.chmod(0o755)
    err = rt.error("launch", argv=[str(garbage)])
    assert err["kind"] == "launch_failed" and "garbage" in err["message"], err


# Runs the real request path (server.handle_line -> ops.op_launch -> launcher) in a process
# whose user may not start another one: RLIMIT_NPROC, as a container's pids limit would.
_NPROC_CHILD = textwrap.dedent("""
    import sys, types
    sys.path.insert(0, sys.argv[1])
    from deskgate_runtime import server
    rt = types.SimpleNamespace(x=types.SimpleNamespace(drain_events=lambda: None))
    sys.stdout.buffer.write(server.handle_line(rt, b'{"id": 1, "op": "launch", "argv": ["true"]}'))
""")


def _limit_processes():
    import resource
    if os.getuid() == 0:
        # root is exempt from RLIMIT_NPROC: become nobody first (the limit is read at fork).
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))


def test_launch_at_the_process_limit_is_quota_exceeded():
    # The child runs as nobody: a copy of the runtime it can read (in /tmp itself: pytest's
    # tmp_path and the checkout may sit in folders only root can enter).
    staged = tempfile.mkdtemp(prefix="deskgate-runtime-")
    try:
        shutil.copytree(RUNTIME_DIR / "deskgate_runtime", f"{staged}/deskgate_runtime",
                        ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(["chmod", "-R", "a+rX", staged], check=True)
        r = subprocess.run([PYTHON, "-c", _NPROC_CHILD, staged], capture_output=True,
                           preexec_fn=_limit_processes, timeout=30, cwd="/")
    finally:
        shutil.rmtree(staged)
    assert r.returncode == 0, r.stderr.decode()
    resp = json.loads(r.stdout)
    assert resp["error"]["kind"] == "quota_exceeded", resp
    assert "true" in resp["error"]["message"]


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_desktop_entries_in_xdg_order(desktop, tmp_path):
    home, sys_a, sys_b = tmp_path / "home", tmp_path / "a", tmp_path / "b"
    _write(home / "applications" / "mine.desktop", b"[Desktop Entry]\nName=Mine\n")
    _write(sys_a / "applications" / "z.desktop", b"[Desktop Entry]\nName=Z\n")
    _write(sys_a / "applications" / "a.desktop", b"[Desktop Entry]\nName=caf\xe9\n")  # Latin-1
    _write(sys_a / "applications" / "big.desktop", b"#" * (64 * 1024 + 1))
    _write(sys_a / "applications" / "readme.txt", b"not an entry")
    _write(sys_a / "applications" / "sub" / "nested.desktop", b"[Desktop Entry]\n")
    os.mkfifo(sys_a / "applications" / "fifo.desktop")
    _write(sys_b / "applications" / "exact.desktop", b"x" * (64 * 1024))
    env = dict(desktop.env, XDG_DATA_HOME=str(home),
               XDG_DATA_DIRS=f"{sys_a}:{tmp_path / 'missing'}:{sys_b}")
    r = RuntimeProcess(desktop, env=env)
    try:
        result = r.call("desktop_entries")
        system_only = r.call("desktop_entries", user=False)
        assert r.error("desktop_entries", user="no")["kind"] == "bad_args"
    finally:
        r.proc.terminate()
        r.proc.wait(5)
    files = result["files"]
    assert result["truncated"] is False
    assert [f["path"] for f in system_only["files"]] == [f["path"] for f in files[1:]]
    assert [f["path"] for f in files] == [
        str(home / "applications" / "mine.desktop"),
        str(sys_a / "applications" / "a.desktop"),
        str(sys_a / "applications" / "z.desktop"),
        str(sys_b / "applications" / "exact.desktop"),
    ]
    assert files[0]["text"] == "[Desktop Entry]\nName=Mine\n"
    assert files[1]["text"] == "[Desktop Entry]\nName=caf\ufffd\n"
    assert len(files[3]["text"]) == 64 * 1024


def test_desktop_entries_defaults_and_file_cap(tmp_path):
    assert launcher.application_dirs({"HOME": "/home/u"}) == [
        "/home/u/.local/share/applications", "/usr/local/share/applications",
        "/usr/share/applications"]
    apps = tmp_path / "applications"
    apps.mkdir()
    for i in range(launcher.MAX_DESKTOP_FILES + 5):
        (apps / f"e{i:05}.desktop").write_text("[Desktop Entry]\n")
    environ = {"XDG_DATA_HOME": str(tmp_path), "XDG_DATA_DIRS": "/nonexistent"}
    files, truncated = launcher.desktop_entries(environ)
    assert len(files) == launcher.MAX_DESKTOP_FILES == 4000 and truncated
    assert files[0]["path"].endswith("e00000.desktop")
    assert launcher.desktop_entries(environ, user=False) == ([], False)


def test_desktop_entries_total_cap(tmp_path):
    apps = tmp_path / "applications"
    apps.mkdir()
    for i in range(200):  # 200 × 60 KB = 12 MB > 8 MiB
        (apps / f"e{i:03}.desktop").write_bytes(b"#" * 60_000)
    files, truncated = launcher.desktop_entries({"XDG_DATA_HOME": str(tmp_path), "XDG_DATA_DIRS": "/x"})
    assert truncated and len(files) == launcher.MAX_DESKTOP_TOTAL_BYTES // 60_000
