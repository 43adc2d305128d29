"""Print the Markdown table of the Tier A specs (API, auth, paging, envelope, version, licence).

    uv run python scripts/tiera_spec_table.py            # print it
    uv run python scripts/tiera_spec_table.py --write    # put it in har2client/tiera/specs/README.md

The README embeds this table between its marker lines; a test keeps the two equal.
"""

import glob
import os
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "har2client", "tiera", "specs")


def table() -> str:
    rows = ["| # | API | resource | auth | paging | list envelope | version | spec licence | checked against |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for path in sorted(glob.glob(os.path.join(ROOT, "*.yaml"))):
        with open(path, encoding="utf-8") as fh:
            x = yaml.safe_load(fh)["x-har2client"]
        num = os.path.basename(path).split("_", 1)[0]
        auth = x["auth"]["style"] + (f" (`{x['auth']['prefix'].strip()}`)" if x["auth"].get("prefix") else "")
        version = x["version"]
        shown = {"header": f"header `{version.get('name')}`", "path": f"path `{version.get('prefix')}`",
                 "accept": "Accept media type", "none": "none"}[version["style"]]
        envelope = f"`{x['envelope']['list']}`" if x["envelope"].get("list") else "bare array"
        checked = x["checked_against"]
        rows.append(f"| {num} | [{x['api']}]({x['docs']}) | {x['resource']} | {auth} | {x['paging']['style']} | "
                    f"{envelope} | {shown} | {x['spec_licence']} | {checked['source']}, version {checked['version']}, "
                    f"on {checked['on']} |")
    return "\n".join(rows) + "\n"


def write_readme() -> None:
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    head, rest = text.split("<!-- table:begin -->\n", 1)
    tail = rest.split("<!-- table:end -->", 1)[1]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + "<!-- table:begin -->\n" + table() + "<!-- table:end -->" + tail)


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write_readme()
    else:
        sys.stdout.write(table())
