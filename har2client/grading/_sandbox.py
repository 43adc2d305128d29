"""Where untrusted clients run: a warm zygote, inside bubblewrap namespaces when the machine allows.

``full`` isolation: the zygote runs under ``bwrap`` in new user, PID, network,
mount, IPC and UTS namespaces with no capabilities, as a host user that is not
root (so the kernel enforces the process limit: it never does for root). Its
filesystem is the system's read-only directories, the Python installation, one
writable scratch directory and size-capped ``/tmp`` and ``/dev/shm``; its network
is a private loopback on which only the judge's grading server listens (the
judge creates that socket inside the sandbox's network namespace). After every
grade, every process in the sandbox except the zygote is killed and every
writable place emptied, so no grade sees anything of another.

``partial`` isolation (no namespaces, e.g. an unprivileged container): the same
zygote as a plain process; workers still get resource limits and a separate
process, and the grading server listens on real loopback.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
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
SANDBOX_UID = 65534  # "nobody": the sandbox's user, inside and (when the judge is root) on the host
TMPFS_BYTES = 64 * 1024 * 1024  # each of /tmp and /dev/shm: memory, so bounded
INNER_WRITABLE = ("/sandbox", "/tmp", "/dev/shm")
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin")  # bound whole, read-only
_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Limits:
    """What a client may use while it is graded: time per call and per grade, memory, file size, CPU, processes."""
    call_seconds: float = 10.0
    task_seconds: float = 120.0
    memory_mb: int = 1024
    file_mb: int = 8
    cpu_seconds: int = 120
    max_processes: int = 64
    output_bytes: int = 64 * 1024


@functools.lru_cache(maxsize=1)
def bwrap_available() -> str | None:
    """Why full isolation cannot be had here, or None when it can (asked once per process)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed"
    # --as-pid-1: without it bwrap's own init outlives the outer bwrap and is left a zombie of PID 1.
    probe = subprocess.run([exe, "--unshare-all", "--as-pid-1", "--die-with-parent", "--ro-bind", "/", "/",
                            "--proc", "/proc", "--dev", "/dev", "--", "true"], capture_output=True, text=True,
                            timeout=20)
    if probe.returncode != 0:
        return f"bwrap cannot create namespaces here: {probe.stderr.strip()[:200]}"
    return None


@functools.lru_cache(maxsize=1)
def _bwrap_sizes_tmpfs() -> bool:
    """bubblewrap 0.7 and later take ``--size`` for a tmpfs."""
    try:
        out = subprocess.run(["bwrap", "--version"], capture_output=True, text=True, timeout=5).stdout
        major, minor = (int(x) for x in out.split()[-1].split(".")[:2])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return False
    return (major, minor) >= (0, 7)


_ALL: weakref.WeakSet[Sandbox] = weakref.WeakSet()
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
        self._scratch = ""  # the judge's: zygote.err, and box/ (the sandbox's /sandbox)
        self._box = ""
        self._count = 0
        self._ready = False
        self._sweeping = False  # a sweep was sent and its answer not yet read (see sweep)
        _ALL.add(self)

    def _forget(self) -> None:
        """Drop this process's copies of another process's sandbox, touching nothing of it."""
        if self._ctrl is not None:
            self._ctrl.close()
        if self._netns_fd is not None:
            os.close(self._netns_fd)
        self._ctrl = self._netns_fd = self._proc = None
        self._scratch = self._box = ""

    # -- life -----------------------------------------------------------------

    def start(self) -> None:
        """Launch the zygote without waiting for it: a caller can prepare the grade meanwhile."""
        if self._proc is not None and self._proc.poll() is None:
            return
        self.close()
        self._ready = False
        if self.requested == "partial":
            self._launch_as("partial", "partial isolation was asked for")
            return
        # Starting is the test: a separate probe would cost a second bwrap on every one-shot grade.
        try:
            if shutil.which("bwrap") is None:
                raise GradingError("bubblewrap (bwrap) is not installed")
            self._launch_as("full", None)
        except (GradingError, OSError) as exc:
            self._launch_as("partial", self._why_not_full(exc))

    def ensure(self) -> None:
        """A running sandbox, ready for a grade: started (or restarted) if need be."""
        self.start()
        if self._ready:
            return
        try:
            self._await_ready()
        except GradingError as exc:
            if self.isolation != "full":
                raise
            self._launch_as("partial", self._why_not_full(exc))
            self._await_ready()

    def _why_not_full(self, exc: BaseException) -> str:
        reason = str(exc).replace("the grading sandbox failed to start: ", "bwrap failed: ")
        if self.requested == "full":
            raise GradingError(f"full isolation was asked for, but {reason}")
        return reason

    def _launch_as(self, isolation: str, why_partial: str | None) -> None:
        self.close()
        self.isolation, self.why_partial, self._ready = isolation, why_partial, False
        try:
            self._start()
        except GradingError:
            raise
        except BaseException:
            self.close()  # never leave a half-started zygote or its scratch directory behind
            raise

    def _await_ready(self) -> None:
        assert self._ctrl is not None
        try:
            hello = recv_frame(self._ctrl, 20)
        except (ConnectionError, OSError, ValueError):
            hello = None
        if not isinstance(hello, dict) or not hello.get("ready"):
            self._fail_start("the zygote did not start")
        self._ready = True

    def _start(self) -> None:
        remove_orphaned_scratch()
        self._scratch = tempfile.mkdtemp(prefix=scratch_prefix("sandbox"))
        os.chmod(self._scratch, 0o700)
        self._box = os.path.join(self._scratch, "box")
        os.mkdir(self._box, 0o700)
        full = self.isolation == "full"
        as_root = full and os.geteuid() == 0
        if as_root:
            # Owned by the sandbox's user; 0755 so bwrap's own set-up, capability-less, can enter it
            # (its parent stays 0700: nothing else on the host sees in).
            os.chown(self._box, SANDBOX_UID, SANDBOX_UID)
            os.chmod(self._box, 0o755)
        judge_end, zygote_end = socket.socketpair()
        # Normalized: a path started as dir/../venv/bin/python names a dir the sandbox does not have.
        python = os.path.normpath(os.path.abspath(sys.executable))
        inner = [python, "-I", "/h2c/_zygote.py" if full else ZYGOTE, str(zygote_end.fileno())]
        info_r = info_w = block_r = block_w = -1
        fds: tuple[int, ...] = (zygote_end.fileno(),)
        cmd = inner
        if full:
            info_r, info_w = os.pipe()
            if as_root:
                block_r, block_w = os.pipe()
            cmd = self._bwrap_command(info_w, block_r) + inner
            fds = (zygote_end.fileno(), info_w) + ((block_r,) if as_root else ())
        err = open(os.path.join(self._scratch, "zygote.err"), "wb")
        try:
            self._proc = subprocess.Popen(cmd, pass_fds=fds, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                          cwd=self._box, start_new_session=True,
                                          env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        finally:
            err.close()
            zygote_end.close()
            for fd in (info_w, block_r):
                if fd >= 0:
                    os.close(fd)
        self._ctrl = judge_end
        if full:
            info = self._read_info(info_r)
            if "child-pid" not in info:
                if block_w >= 0:
                    os.close(block_w)
                self._fail_start("bwrap did not report its child")
            if as_root:
                self._map_user(int(info["child-pid"]), block_w)
            self._netns_fd = os.open(f"/proc/{info['child-pid']}/ns/net", os.O_RDONLY)

    @staticmethod
    def _read_info(fd: int) -> dict[str, Any]:
        with os.fdopen(fd) as fh:
            text = ""
            for line in fh:  # bwrap writes one JSON object over several lines
                text += line
                try:
                    return dict(json.loads(text))
                except ValueError:
                    continue
        return {}

    def _map_user(self, child: int, block_w: int) -> None:
        """Map the new user namespace so that its processes are not host root, then let bwrap go on.

        bwrap alone would map the sandbox's user to the caller, root, whom the kernel never holds to
        RLIMIT_NPROC. Inside 0 stays host root only for bwrap's own set-up (mounts); the zygote gives
        it up for 65534 before it runs anything else.
        """
        try:
            for name in ("uid_map", "gid_map"):
                with open(f"/proc/{child}/{name}", "w") as fh:
                    fh.write(f"0 0 1\n{SANDBOX_UID} {SANDBOX_UID} 1\n")
            os.write(block_w, b"1")
        except OSError as exc:
            self._fail_start(f"cannot map the sandbox's user ({exc.strerror})")
        finally:
            os.close(block_w)

    def _fail_start(self, what: str) -> None:
        detail = ""
        try:
            with open(os.path.join(self._scratch, "zygote.err"), "rb") as fh:
                detail = fh.read().decode("utf-8", "replace").strip().splitlines()[-1:][0][:300]
        except (OSError, IndexError):
            pass
        self.close()
        raise GradingError(f"the grading sandbox failed to start: {what}" + (f" ({detail})" if detail else ""))

    def _bwrap_command(self, info_fd: int, block_fd: int) -> list[str]:
        # --as-pid-1: the zygote is the namespace's init, so clients cannot signal it and it reaps every orphan.
        cmd = ["bwrap", "--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--hostname", "sandbox", "--info-fd", str(info_fd)]
        if block_fd >= 0:  # a root judge maps the user namespace itself (see _map_user)
            cmd += ["--unshare-user", "--userns-block-fd", str(block_fd)]
            cmd += [a for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP") for a in ("--cap-add", cap)]
        else:
            cmd += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
        # 1777 as on any system: the sandbox's user may write there (and the sweep empties both).
        size = ["--perms", "1777", "--size", str(TMPFS_BYTES)] if _bwrap_sizes_tmpfs() else []
        # First: mounts apply in order, and Python may live under /tmp (a clone there, say).
        cmd += size + ["--tmpfs", "/tmp"]
        for d in SYSTEM_DIRS:
            cmd += ["--ro-bind-try", d, d]
        for f in ("/etc/ld.so.cache", "/etc/localtime", "/etc/hosts", "/etc/nsswitch.conf", "/etc/passwd",
                  "/etc/group", "/etc/ssl"):
            cmd += ["--ro-bind-try", f, f]
        prefixes = {os.path.normpath(p) for p in (sys.base_prefix, sys.prefix,
                                                   os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))}
        made = {"/", "/tmp", *SYSTEM_DIRS}
        for p in sorted(prefixes):
            # bwrap gives the directories it creates on the way the host's modes, and Python often lives
            # under a 0700 home (/root/.pyenv): the sandbox's user could not reach it. (/tmp is a new,
            # empty tmpfs: a Python installed below it needs its parents made too.)
            parent = os.path.dirname(p)
            chain = []
            while parent not in made and not any(parent.startswith(b + "/") for b in SYSTEM_DIRS):
                chain.append(parent)
                parent = os.path.dirname(parent)
            for d in reversed(chain):
                cmd += ["--perms", "0755", "--dir", d]
                made.add(d)
            cmd += ["--ro-bind", p, p]
        cmd += ["--ro-bind", HERE, "/h2c", "--bind", self._box, "/sandbox", "--proc", "/proc", "--dev", "/dev"]
        cmd += size + ["--tmpfs", "/dev/shm"]
        # --clearenv comes before the --setenv it would otherwise undo (options apply in order).
        env = ["--setenv", "H2C_SANDBOX", "full", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/sandbox"]
        if block_fd >= 0:  # the zygote gives up uid 0 for this one first (see _map_user)
            env += ["--setenv", "H2C_DROP_TO", str(SANDBOX_UID)]
        return cmd + ["--chdir", "/sandbox", "--clearenv"] + env + ["--"]

    def close(self) -> None:
        """Stop the sandbox's zygote; every worker process it started ends with it."""
        self._sweeping = False  # the zygote ends with its control socket, and every process with it
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
            self._scratch = self._box = ""

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
            except BaseException as exc:  # noqa: BLE001 - handed back to the judge's thread
                box["error"] = exc

        t = threading.Thread(target=inside, name="netns-listen")
        t.start()
        t.join()
        if "error" in box:
            raise GradingError(f"cannot listen inside the sandbox: {box['error']}")
        return box["sock"]

    def spawn(self, limits: Limits) -> WorkerChannel:
        """Fork a worker; the client's source goes to it over its own socket (the ``load`` call)."""
        self.settle()
        if self._ctrl is None:
            raise GradingError("the grading sandbox is gone (the client ended it)")
        self._count += 1
        name = f"g{self._count}"
        inner_dir = f"/sandbox/{name}" if self.isolation == "full" else os.path.join(self._box, name)
        judge_end, worker_end = socket.socketpair()
        try:
            send_frame(self._ctrl, {"op": "fork", "dir": inner_dir,
                                    "limits": [limits.memory_mb, limits.file_mb, limits.cpu_seconds,
                                               limits.max_processes]}, worker_end.fileno())
            reply = recv_frame(self._ctrl, 10)
            pid = int(reply["pid"])
        except (ConnectionError, OSError, ValueError, TypeError, KeyError) as exc:
            judge_end.close()
            self.close()
            raise GradingError(f"the grading sandbox stopped answering ({exc})") from None
        finally:
            worker_end.close()
        return WorkerChannel(self, judge_end, os.path.join(self._box, name), pid, limits)

    def sweep(self, wait: bool = True) -> None:
        """End every process the last grade started and empty every writable place; restart if it fails.

        The zygote kills at once; with ``wait=False`` reaping and emptying finish while the caller
        prepares its next grade, and every later use of the sandbox (:meth:`settle`) waits for them.
        """
        if self._ctrl is None:
            return
        self.settle()
        clean = list(INNER_WRITABLE) if self.isolation == "full" else [self._box]
        try:
            send_frame(self._ctrl, {"op": "sweep", "clean": clean})
        except (ConnectionError, OSError, ValueError):
            self.close()  # a client killed or stopped the zygote: start afresh next time
            return
        self._sweeping = True
        if wait:
            self.settle()

    def settle(self) -> None:
        """Wait for a sweep under way: afterwards nothing of an earlier grade is left in the sandbox."""
        if not self._sweeping or self._ctrl is None:
            return
        self._sweeping = False
        try:
            recv_frame(self._ctrl, 10)
        except (ConnectionError, OSError, ValueError):
            self.close()


def shared_sandbox(isolation: str = "auto", wait: bool = True) -> Sandbox:
    """This thread's sandbox for ``isolation``, started on first use and after any failure.

    With ``wait=False`` it is only launched; the first grade waits for it to be ready.

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
    if wait:
        box.ensure()
    else:
        box.start()
    return box
