"""The warm parent of worker processes, run by the judge inside the sandbox (or, in partial mode, beside it).

It imports what clients use once, then forks one worker per grade on request,
so a grade pays for a fork, not for an interpreter start. It imports nothing
from HAR2Client (it runs as a script with ``-I``) and holds no secrets: only the
control socket to the judge.

Control messages (frames, see ``_worker.py``) arrive on fd CTRL with the
worker's call socket attached by SCM_RIGHTS:
    {"op": "fork", "dir": ..., "limits": [mem_mb, file_mb, cpu_s, procs]} -> {"ok": true, "pid": N}
    {"op": "wait", "pid": N} -> {"ok": true, "status": "exited with status 3"}
    {"op": "sweep", "clean": [dir, ...]}
        -> ends what the grade started (in the sandbox: every process but init and itself), then
           empties each dir and, in the sandbox, removes SysV IPC objects and keys, so that nothing
           one grade wrote is there for the next
The client's source never passes through here (the worker reads it from its own socket), so this
process, whose memory every worker inherits, holds nothing of any grade.
"""

import array
import ctypes
import gc
import json
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


LIBC = ctypes.CDLL(None, use_errno=True)  # opened once: the sweep after every grade uses it too


def drop_privileges():
    """Become the sandbox's unprivileged user before anything else runs (when the judge is root).

    A root judge writes the user namespace's map itself (inside 0 -> host 0 for bwrap's own set-up,
    65534 -> host 65534) and gives this process only CAP_SETUID, CAP_SETGID and CAP_SETPCAP. Dropping
    every capability set and then the ids leaves a process whose host user is not root, so the kernel
    enforces RLIMIT_NPROC on it and on every worker (it never does for root).
    """
    target = os.environ.get("H2C_DROP_TO")
    if not target:
        return
    uid = int(target)
    for cap in range(64):  # the bounding set: nothing can be regained through exec
        LIBC.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP; fails harmlessly past the last capability
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    keep = (1 << 6) | (1 << 7)  # CAP_SETGID, CAP_SETUID: still needed for the next three calls
    data = (ctypes.c_uint32 * 6)(keep, keep, 0, 0, 0, 0)  # effective, permitted, inheritable (x2 words)
    if LIBC.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # clears the effective and permitted sets
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("the sandbox could not leave uid 0")


drop_privileges()

# What clients import, loaded once before any fork.
import base64  # noqa: E402,F401
import dataclasses  # noqa: E402,F401
import datetime  # noqa: E402,F401
import hashlib  # noqa: E402,F401
import hmac  # noqa: E402,F401
import http.client  # noqa: E402,F401
import json as _json  # noqa: E402,F401
import logging  # noqa: E402,F401
import re  # noqa: E402,F401
import typing  # noqa: E402,F401
import urllib.parse  # noqa: E402
import urllib.request  # noqa: E402
import uuid  # noqa: E402,F401

import _worker  # type: ignore[import-not-found]  # noqa: E402  (beside this file, imported by path on purpose)

for _name in ("httpx", "requests"):
    try:
        __import__(_name)
    except ImportError:
        pass



CANNED = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
          b"Connection: close\r\n\r\n{}")


def exercise_http_clients():
    """Make one real request with each client library, so what they initialise lazily is done here.

    A throwaway child answers on a loopback port (this process stays single-threaded, so it can fork
    safely afterwards). httpx loads httpcore with its first transport, and a process's first parsed
    response costs ~2.5 ms more than later ones.
    """
    os.environ.setdefault("SSL_CERT_DIR", "/etc/ssl/certs")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    pid = os.fork()
    if pid == 0:  # the canned responder: three connections, then gone
        try:
            listener.settimeout(5)
            for _ in range(3):
                conn, _ = listener.accept()
                conn.recv(65536)
                conn.sendall(CANNED)
                conn.close()
        finally:
            os._exit(0)
    listener.close()
    try:
        import httpx

        with httpx.Client(timeout=2) as c:
            c.get(url).json()
    except Exception:  # noqa: BLE001 - a warm-up that fails leaves that library cold, nothing worse
        pass
    try:
        import requests

        requests.get(url, timeout=2).json()
    except Exception:  # noqa: BLE001 - as above
        pass
    try:
        urllib.request.urlopen(url, timeout=2).read()
    except Exception:  # noqa: BLE001 - as above
        pass
    os.waitpid(pid, 0)


exercise_http_clients()
# Everything loaded so far is shared with each forked worker; freezing it keeps the worker's garbage
# collector from writing to (and so copying) every inherited page.
gc.collect()
gc.freeze()

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def recv_with_fd(sock):
    fds = array.array("i")
    head, anc, _, _ = sock.recvmsg(4, socket.CMSG_SPACE(fds.itemsize))
    if not head:
        return None, None
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    while len(head) < 4:
        more = sock.recv(4 - len(head))
        if not more:
            return None, None
        head += more
    (size,) = struct.unpack(">I", head)
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            return None, None
        body += chunk
    return json.loads(body), (fds[0] if fds else None)


def send(sock, obj):
    _worker.write_frame(sock.fileno(), obj)


def sweep(workers, clean=()):
    """End every process a grade started, clear what it wrote, and answer only when both are done.

    In the sandbox this zygote is PID 1 of its own namespace: kill(-1) reaches
    every other process there and nothing outside it, and every orphan is
    re-parented here, so reaping until no child is left proves the sandbox empty.
    """
    in_sandbox = os.environ.get("H2C_SANDBOX") == "full" and os.getpid() == 1
    if in_sandbox:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
    else:
        for pid in workers:  # partial isolation: the process groups we started
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        reap_orphans()
    workers.clear()
    if in_sandbox:
        # Every process here is ours and SIGKILLed: block until the last is reaped (bounded by an alarm).
        signal.alarm(3)
        try:
            while True:
                os.waitpid(-1, 0)
        except (ChildProcessError, InterruptedError, TimeoutError):
            pass
        finally:
            signal.alarm(0)
    for d in clean:
        empty_dir(d)
    if in_sandbox:
        remove_ipc_objects()
    return in_sandbox


def empty_dir(path, device=None):
    """Remove everything inside ``path``, even what a client made hard to remove (mode 000, deep trees).

    It stays on ``path``'s own filesystem: a directory mounted below it (the Python installation,
    when it lives under /tmp) is not the grade's to empty, and walking it would cost seconds.
    """
    try:
        device = os.stat(path).st_dev if device is None else device
        entries = list(os.scandir(path))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=False):
                if e.stat(follow_symlinks=False).st_dev != device:
                    continue
                os.chmod(e.path, 0o700)
                empty_dir(e.path, device)
                os.rmdir(e.path)
            else:
                os.unlink(e.path)
        except (OSError, RecursionError):
            pass


IPC_RMID = 0
KEYCTL_CLEAR = 7
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311}.get(os.uname().machine)


def remove_ipc_objects():
    """What outlives a process in the sandbox's IPC namespace and user: SysV objects and user keyrings.

    (POSIX message queues cannot be made at all: a worker's RLIMIT_MSGQUEUE is 0.)
    """
    for kind, remove in (("shm", lambda i: LIBC.shmctl(i, IPC_RMID, None)),
                         ("sem", lambda i: LIBC.semctl(i, 0, IPC_RMID)),
                         ("msg", lambda i: LIBC.msgctl(i, IPC_RMID, None))):
        try:
            with open(f"/proc/sysvipc/{kind}") as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit():
                remove(int(fields[1]))
    if SYS_KEYCTL is not None:
        for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
            LIBC.syscall(SYS_KEYCTL, KEYCTL_CLEAR, ring)


def reap_orphans(seconds=3.0):
    """Partial isolation: kill and reap every child, orphans of workers included (we are their subreaper).

    Repeated until none is left, since a dying process's own children are re-parented here meanwhile.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        kids = children()
        if not kids:
            return
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        reaped = False
        while True:
            try:
                done = os.waitpid(-1, os.WNOHANG)[0]
            except ChildProcessError:
                return
            if done == 0:
                break
            reaped = True
        if not reaped:
            time.sleep(0.001)


def children():
    """This process's children now (every process here is one of them, orphans included)."""
    pids = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as fh:
                pids += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return pids


def _alarm(signum, frame):
    raise TimeoutError("sweep took too long")


def wait_status(pid, seconds=2.0):
    """How worker ``pid`` ended, in words, waiting for it a little."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return "ended"
        if done:
            break
        if time.monotonic() > deadline:
            return "stopped answering"
        time.sleep(0.005)
    if os.WIFEXITED(status):
        return f"exited with status {os.WEXITSTATUS(status)}"
    sig = os.WTERMSIG(status)
    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = f"signal {sig}"
    hint = {"SIGKILL": " (likely the memory or CPU limit)", "SIGXCPU": " (the CPU time limit)",
            "SIGSEGV": " (a crash)"}.get(name, "")
    return f"was killed by {name}{hint}"


def run_worker(msg, fd):
    os.setsid()
    work = msg["dir"]
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    out = os.open(os.path.join(work, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    # Only standard streams and the call socket: nothing the zygote holds reaches client code.
    os.closerange(3, fd)
    os.closerange(fd + 1, 1 << 16)
    os.environ.clear()
    # A certificate directory is read lazily, where a bundle file costs every new httpx.Client about 15 ms;
    # nothing in the sandbox can reach a TLS server anyway.
    os.environ.update({"HOME": work, "TMPDIR": work, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                       "SSL_CERT_DIR": "/etc/ssl/certs"})
    _worker.set_limits(*msg["limits"])
    _worker.serve(fd, os.path.join(work, "client.py"))


def fork_worker(ctrl, msg, fd):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            ctrl.close()
            run_worker(msg, fd)
        except BaseException:  # noqa: BLE001 - whatever ends a worker, its process exits with a code, never returns
            code = 70
        finally:
            os._exit(code)
    return pid


def main():
    ctrl = socket.socket(fileno=int(sys.argv[1]))
    try:
        LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no ptrace or /proc/PID/mem from workers
    except (OSError, AttributeError):
        pass
    if os.getpid() != 1:
        # Partial isolation: orphans of workers come here rather than to the host's PID 1, which may
        # never reap them; the sweep ends and reaps them.
        LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGALRM, _alarm)
    workers = set()
    send(ctrl, {"ok": True, "ready": True, "pid": os.getpid()})
    while True:
        msg, fd = recv_with_fd(ctrl)
        if msg is None:
            return
        op = msg.get("op")
        if op == "fork":
            pid = fork_worker(ctrl, msg, fd)
            os.close(fd)
            workers.add(pid)
            send(ctrl, {"ok": True, "pid": pid})
        elif op == "wait":
            send(ctrl, {"ok": True, "status": wait_status(msg["pid"])})
        elif op == "sweep":
            if fd is not None:
                os.close(fd)
            send(ctrl, {"ok": True, "whole_sandbox": sweep(workers, msg.get("clean", ()))})
        else:
            send(ctrl, {"ok": False, "error": f"unknown op {op!r}"})


if __name__ == "__main__":
    main()
