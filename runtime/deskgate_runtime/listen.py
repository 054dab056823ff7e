"""--listen PATH: the JSON-lines protocol on a Unix socket, one connection at a time.

For a worker outside the desktop's container (docs/containers.md). Each connection is served
with exactly the stdin/stdout protocol (server.serve, a fresh line decoder) until it closes;
then what it held is released (`end_connection`) and the next connection is accepted. While
nobody is connected the runtime keeps its idle ticks (X events drained, borrowed keycodes given
back). The socket is made 0660 whatever the umask, and unlinked when the process ends (SIGTERM
included: __main__ turns it into SystemExit, which unwinds through here).
"""
import logging
import os
import select
import socket
import stat

log = logging.getLogger(__name__)
SOCKET_MODE = 0o660


def bind(path):
    """A listening socket at `path`; a stale socket there is removed, any other file refused."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISSOCK(st.st_mode):
            raise OSError(f"{path} exists and is not a socket")
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # never more open than the final mode, not even for a moment
    try:
        sock.bind(path)
    except BaseException:
        sock.close()
        raise
    finally:
        os.umask(old)
    os.chmod(path, SOCKET_MODE)
    sock.listen(16)
    return sock


def serve_socket(path, serve_one, idle=lambda: None, end=lambda: None, tick_s=0.25):
    """Accept connections on `path` one at a time: serve_one(fd) serves one until EOF, end()
    runs after each, idle() every tick_s while waiting. Unlinks `path` however it ends."""
    listener = bind(path)
    log.info("listening on %s", path)
    try:
        while True:
            readable, _, _ = select.select([listener], [], [], tick_s)
            if not readable:
                idle()
                continue
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, ConnectionAbortedError, InterruptedError):
                continue
            try:
                serve_one(conn.fileno())
            except (BrokenPipeError, ConnectionResetError) as e:
                log.info("connection ended: %s", e)
            finally:
                conn.close()
                end()
    finally:
        listener.close()
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
