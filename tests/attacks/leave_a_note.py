"""Look for anything an earlier grade left in this sandbox; with SECRET set, leave such things first.

The attack tests grade it twice in one warm sandbox: once leaving notes (SECRET is a marker), then
looking for them. Notes go wherever a process could leave them for a later one: files in every
writable directory, a SysV shared-memory segment and message queue, a key in the user keyring, and
the client's own source (in memory, for a later worker forked from the same zygote to scan).
"""
import ctypes
import os
import platform
import re

SECRET = 0
KEY = 0x4832434E
SYS = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
PLACES = ["/tmp", "/dev/shm", "/sandbox", os.path.expanduser("~"), os.getcwd(), os.path.dirname(os.getcwd())]
MARK = re.compile(rb"H2C" + rb"-NOTE-[0-9a-f]{12}")
libc = ctypes.CDLL(None, use_errno=True)


def leave():
    for d in PLACES:
        try:
            with open(os.path.join(d, "h2c_note.txt"), "w") as fh:
                fh.write(SECRET)
        except OSError:
            pass
    shm = libc.shmget(KEY, 4096, 0o1600)  # IPC_CREAT | 0600
    if shm >= 0:
        libc.shmat.restype = ctypes.c_void_p
        addr = libc.shmat(shm, None, 0)
        ctypes.memmove(addr, SECRET.encode(), len(SECRET))
    libc.msgget(KEY, 0o1600)
    if SYS:
        data = SECRET.encode()
        libc.syscall(SYS[0], b"user", b"h2c-note", data, len(data), -4)  # add_key to the user keyring


def scan_own_memory():
    """Every marker in this process's heap and anonymous mappings, where Python keeps its objects."""
    found = set()
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        span, perms = fields[0], fields[1]
        path = fields[5] if len(fields) > 5 else ""
        if not perms.startswith("rw") or path not in ("", "[heap]"):
            continue
        start, end = (int(x, 16) for x in span.split("-"))
        found.update(m.decode() for m in MARK.findall(ctypes.string_at(start, end - start)))
    return sorted(found)


def look():
    found = []
    for d in PLACES:
        for root, _dirs, files in os.walk(d):
            found += [os.path.join(root, f) for f in files if f == "h2c_note.txt"]
    with open("/proc/sysvipc/shm") as fh:
        found += ["shm " + row.split()[0] for row in fh.read().splitlines()[1:]]
    with open("/proc/sysvipc/msg") as fh:
        found += ["msg " + row.split()[0] for row in fh.read().splitlines()[1:]]
    if SYS and libc.syscall(SYS[1], 10, -4, b"user", b"h2c-note", 0) >= 0:  # KEYCTL_SEARCH
        found.append("key h2c-note")
    found += ["memory " + m for m in scan_own_memory()]
    fds = sorted(os.listdir("/proc/self/fd"), key=int)
    return found, fds


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        if SECRET:
            leave()

    def __getattr__(self, name):
        def call(*a, **k):
            found, fds = look()
            raise RuntimeError(f"notes found: {found}; open fds: {fds}")
        return call
