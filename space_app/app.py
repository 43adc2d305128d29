"""The Hugging Face Space's entry point: the HAR2Client Space (har2client.space) with this Space's data.

Locally: ``uv run har2client space`` (or ``python space_app/app.py``). Settings come from the environment:
H2C_RESULTS (analyze output), H2C_TASKS (a folder of task directories), H2C_EPISODES (episode JSONL files),
H2C_DB (the submissions database), H2C_WORKERS (grading processes), PORT.
"""

import os

from har2client.space import serve

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    serve(os.environ.get("H2C_RESULTS", os.path.join(here, "data", "results")),
          os.environ.get("H2C_TASKS", os.path.join(here, "data", "tasks")),
          os.environ.get("H2C_EPISODES", os.path.join(here, "data", "episodes")),
          os.environ.get("H2C_DB", os.path.join(here, "data", "space.sqlite")),
          port=int(os.environ.get("PORT", "7860")), host=os.environ.get("HOST", "0.0.0.0"),
          workers=int(os.environ.get("H2C_WORKERS", "1")))
