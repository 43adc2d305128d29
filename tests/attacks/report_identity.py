"""Say who the client runs as: user, groups, capabilities, and the host user behind the sandbox's."""


def identity():
    with open("/proc/self/status") as fh:
        fields = dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    with open("/proc/self/uid_map") as fh:
        maps = [line.split() for line in fh if line.strip()]
    host_uid = next((int(outer) for inner, outer, _ in maps if int(inner) == 65534), None)
    caps = {k: fields[k] for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    return f"uid={fields['Uid'].split()[0]} groups=[{fields['Groups'].strip()}] caps={caps} host_uid={host_uid}"


class NotFoundError(Exception):
    pass


class Client:
    def __init__(self, base_url, *args, **kwargs):
        raise RuntimeError(identity())
