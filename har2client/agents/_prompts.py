"""The prompts every harness sends a model, in one place: the runner, the RL adapters and the Space.

A prompt is a system message and one user message. The user message is the task's visible files as
the arm shows them (``tasks._arms.render_observation``: the goal with the arm's note, a repair's
client_v1.py and failure.txt, the recording compact or raw) and, in Case 2, the practice section.
"""

from __future__ import annotations

from typing import Any

from ..tasks import render_observation

SYSTEM = ("You write Python API clients from recorded HTTP traffic. Answer with the whole client.py in one "
          "```python fenced block.")
SYSTEM_REPAIR = ("You maintain Python API clients. The API has a new release; repair the client so it works "
                 "again. Answer with the whole repaired client.py in one ```python fenced block.")
SYSTEM_INVESTIGATE = ("You write Python API clients from recorded HTTP traffic. You may test your guesses with "
                      "the http_request tool within its budget; end by calling submit_client with the whole "
                      "client.py.")


def system_prompt(case: str) -> str:
    return {"repair": SYSTEM_REPAIR, "investigate": SYSTEM_INVESTIGATE}.get(case, SYSTEM)


def task_messages(task_dir: str, case: str, arm: str, compact: bool = True, practice: str = "") -> list[dict[str, Any]]:
    """The messages that open an episode of ``task_dir`` for ``arm``."""
    user = render_observation(task_dir, arm, compact)
    if practice:
        user = f"{user.rstrip()}\n\n{practice}"
    return [{"role": "system", "content": system_prompt(case)}, {"role": "user", "content": user}]
