"""Build the Tier B tasks: the same as ``har2client build tierb``.

    uv run python scripts/build_tierb.py --out runs/quickstart/tierB --seed 1 --limit 1 \
        --configs runs/quickstart/tierb_configs.jsonl
"""

import sys

from har2client.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "tierb", *sys.argv[1:]]))
