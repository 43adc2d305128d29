"""Where untrusted clients run: a warm zygote, inside bubblewrap namespaces when the machine allows.

``full`` isolation: the zygote runs under ``bwrap`` in new user, PID, network,
mount, IPC and UTS namespaces with no capabilities. Its filesystem is the
system's read-only directories, the Python installation, and one writable
scratch directory; its network is a private loopback on which only the
judge's grading server listens (the judge creates that socket inside the
sandbox's network namespace). After every grade, every process in the sandbox
except the zygote is killed.

``partial`` isolation (no namespaces, e.g. an unprivileged container): the same
zygote as a plain process; workers still get resource limits and a separate
process, and the grading server listens on real loopback.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from .._errors import GradingError
from ._channel import WorkerChannel
from ._frames import recv_frame, send_frame

HERE = os.path.dirname(os.path.abspath(__file__))
ZYGOTE = os.path.join(HERE, "_zygote.py")
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 10.0
    task_seconds: float = 120.0
    memory_mb: int = 1024
    file_mb: int = 8
    cpu_seconds: int = 120
    max_processes: int = 64
    output_bytes: int = 64 * 1024


def bwrap_available() -> str | None:
    """Why full isolation cannot be had here, or None when it can."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed"
    probe = subprocess.run([exe, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
                            "--dev", "/dev", "--", "true"], capture_output=True, text=True, timeout=20)
    if probe.returncode != 0:
        return f"bwrap cannot create namespaces here: {probe.stderr.strip()[:200]}"
    return None


_ALL: "weakref.WeakSet[Sandbox]" = weakref.WeakSet()
_local = threading.local()


def _forget_inherited() -> None:
    # A forked child must not drive, stop or delete its parent's sandboxes.
    for box in list(_ALL):
        box._forget()
    _local.__dict__.clear()


os.register_at_fork(after_in_child=_forget_inherited)


def scratch_prefix(kind: str) -> str:
    """``h2c-KIND-PID-``: a temporary directory named so that a later run can tell its owner is gone."""
    return f"h2c-{kind}-{os.getpid()}-"


def remove_orphaned_scratch() -> None:
    """Delete scratch directories whose owner died without cleaning up (a SIGKILL runs no cleanup)."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        parts = name.split("-")
        if len(parts) >= 4 and parts[0] == "h2c" and parts[1] in ("sandbox", "batch") and parts[2].isdigit():
            if not os.path.exists(f"/proc/{parts[2]}"):
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)


class Sandbox:
    """One zygote and its scratch directory. Grades use it one at a time."""

    def __init__(self, isolation: str = "auto") -> None:
        if isolation not in ("auto", "full", "partial"):
            raise GradingError(f"isolation must be auto, full or partial, not {isolation!r}")
        self.requested = isolation
        self.isolation = "partial"
        self.why_partial: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctrl: socket.socket | None = None
        self._netns_fd: int | None = None
        self._scratch = ""
        self._count = 0
        _ALL.add(self)

    def _forget(self) -> None:
        """Drop this process's copies of another process's sandbox, touching nothing of it."""
        if self._ctrl is not None:
            self._ctrl.close()
        if self._netns_fd is not None:
            os.close(self._netns_fd)
        self._ctrl = self._netns_fd = self._proc = None
        self._scratch = ""

    # -- life -----------------------------------------------------------------

    def ensure(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        self.close()
        reason = None if self.requested == "partial" else bwrap_available()
        if self.requested == "full" and reason:
            raise GradingError(f"full isolation was asked for, but {reason}")
        if self.requested == "partial":
            reason = "partial isolation was asked for"
        self.isolation = "partial" if reason else "full"
        self.why_partial = reason
        try:
            self._start()
        except GradingError:
            raise
        except BaseException:
            self.close()  # never leave a half-started zygote or its scratch directory behind
            raise

    def _start(self) -> None:
        remove_orphaned_scratch()
        self._scratch = tempfile.mkdtemp(prefix=scratch_prefix("sandbox"))
        os.chmod(self._scratch, 0o700)
        judge_end, zygote_end = socket.socketpair()
        python = sys.executable
        inner = [python, "-I", "/h2c/_zygote.py" if self.isolation == "full" else ZYGOTE, str(zygote_end.fileno())]
        if self.isolation == "full":
            info_r, info_w = os.pipe()
            cmd = self._bwrap_command(info_w) + inner
            fds = (zygote_end.fileno(), info_w)
        else:
            info_r = info_w = -1
            cmd = inner
            fds = (zygote_end.fileno(),)
        err = open(os.path.join(self._scratch, "zygote.err"), "wb")
        self._proc = subprocess.Popen(cmd, pass_fds=fds, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                      cwd=self._scratch, start_new_session=True,
                                      env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        err.close()
        zygote_end.close()
        self._ctrl = judge_end
        if self.isolation == "full":
            os.close(info_w)
            info: dict[str, Any] = {}
            with os.fdopen(info_r) as fh:
                text = ""
                for line in fh:  # bwrap writes one JSON object over several lines
                    text += line
                    try:
                        info = json.loads(text)
                        break
                    except ValueError:
                        continue
            if "child-pid" not in info:
                self._fail_start("bwrap did not report its child")
            self._netns_fd = os.open(f"/proc/{info['child-pid']}/ns/net", os.O_RDONLY)
        try:
            hello = recv_frame(self._ctrl, 20)
        except (ConnectionError, OSError, ValueError):
            self._fail_start("the zygote did not start")
        if not hello.get("ready"):
            self._fail_start("the zygote did not start")

    def _fail_start(self, what: str) -> None:
        detail = ""
        try:
            with open(os.path.join(self._scratch, "zygote.err"), "rb") as fh:
                detail = fh.read().decode("utf-8", "replace").strip().splitlines()[-1:][0][:300]
        except (OSError, IndexError):
            pass
        self.close()
        raise GradingError(f"the grading sandbox failed to start: {what}" + (f" ({detail})" if detail else ""))

    def _bwrap_command(self, info_fd: int) -> list[str]:
        # --as-pid-1: the zygote is the namespace's init, so clients cannot signal it and it reaps every orphan.
        cmd = ["bwrap", "--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--uid", "65534", "--gid", "65534", "--hostname", "sandbox", "--info-fd", str(info_fd),
               # First: mounts apply in order, and Python may live under /tmp (a clone there, say).
               "--tmpfs", "/tmp"]
        for d in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin"):
            cmd += ["--ro-bind-try", d, d]
        for f in ("/etc/ld.so.cache", "/etc/localtime", "/etc/hosts", "/etc/nsswitch.conf", "/etc/passwd",
                  "/etc/group", "/etc/ssl"):
            cmd += ["--ro-bind-try", f, f]
        prefixes = {sys.base_prefix, sys.prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
        for p in sorted(prefixes):
            cmd += ["--ro-bind", p, p]
        cmd += ["--ro-bind", HERE, "/h2c", "--bind", self._scratch, "/sandbox",
                "--proc", "/proc", "--dev", "/dev", "--chdir", "/sandbox", "--clearenv",
                "--setenv", "H2C_SANDBOX", "full", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/sandbox",
                "--", ]
        return cmd

    def close(self) -> None:
        if self._ctrl is not None:
            self._ctrl.close()
            self._ctrl = None
        if self._netns_fd is not None:
            os.close(self._netns_fd)
            self._netns_fd = None
        if self._proc is not None:
            # The zygote exits when its control socket closes, and bwrap then reaps its own init;
            # killing bwrap first would orphan that init to a PID 1 that may never reap it.
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self._proc.pid, 9)
                except (ProcessLookupError, PermissionError):
                    pass
                self._proc.wait()
            self._proc = None
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = ""

    # -- for a grade ---------------------------------------------------------------

    def listen(self, host: str) -> socket.socket:
        """A listening socket on ``host`` that the sandbox's clients, and only they, can reach."""
        if self.isolation == "partial":
            from ..api import listen_socket

            return listen_socket(host)
        box: dict[str, Any] = {}

        def inside() -> None:
            # setns changes only this short-lived thread; the socket stays in the sandbox's namespace.
            try:
                if _libc.setns(self._netns_fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns failed")
                from ..api import listen_socket

                box["sock"] = listen_socket(host)
            except BaseException as exc:  # handed back to the judge's thread
                box["error"] = exc

        t = threading.Thread(target=inside, name="netns-listen")
        t.start()
        t.join()
        if "error" in box:
            raise GradingError(f"cannot listen inside the sandbox: {box['error']}")
        return box["sock"]

    def spawn(self, source: str, limits: Limits) -> "WorkerChannel":
        """Fork a worker for ``source`` (the text of client.py)."""
        if self._ctrl is None:
            raise GradingError("the grading sandbox is gone (the client ended it)")
        self._count += 1
        name = f"g{self._count}"
        inner_dir = f"/sandbox/{name}" if self.isolation == "full" else os.path.join(self._scratch, name)
        judge_end, worker_end = socket.socketpair()
        try:
            send_frame(self._ctrl, {"op": "fork", "dir": inner_dir, "client": source,
                                    "limits": [limits.memory_mb, limits.file_mb, limits.cpu_seconds,
                                               limits.max_processes]}, worker_end.fileno())
            reply = recv_frame(self._ctrl, 10)
        except (ConnectionError, OSError, ValueError) as exc:
            judge_end.close()
            self.close()
            raise GradingError(f"the grading sandbox stopped answering ({exc})") from None
        finally:
            worker_end.close()
        return WorkerChannel(self, judge_end, os.path.join(self._scratch, name), int(reply["pid"]), limits)

    def sweep(self) -> None:
        """End every process the last grade started; restart the sandbox if it does not answer."""
        if self._ctrl is None:
            return
        try:
            send_frame(self._ctrl, {"op": "sweep"})
            recv_frame(self._ctrl, 5)
        except (ConnectionError, OSError, ValueError):
            self.close()  # a client killed or stopped the zygote: start afresh next time
        if self._scratch:
            for name in os.listdir(self._scratch):
                if name.startswith("g"):
                    shutil.rmtree(os.path.join(self._scratch, name), ignore_errors=True)


def shared_sandbox(isolation: str = "auto") -> Sandbox:
    """This thread's sandbox for ``isolation``, started on first use and after any failure.

    One per thread, because a sandbox serves one grade at a time: threads that
    grade in parallel each get their own zygote and network namespace.
    """
    boxes = getattr(_local, "boxes", None)
    if boxes is None:
        boxes = _local.boxes = {}
    box = boxes.get(isolation)
    if box is None:
        box = boxes[isolation] = Sandbox(isolation)
        atexit.register(box.close)
    box.ensure()
    return box
