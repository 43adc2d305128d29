"""verifiers adapter (``pip install 'har2client[verifiers]'``, verifiers 0.3).

    from har2client.env.verifiers_env import load_environment
    env = load_environment(tasks="runs/tierB")                    # or: n=64 fresh train tasks
    results = env.evaluate_sync(client=..., model="...", num_examples=8)

Cases 1 and 3 as a ``SingleTurnEnv``: the prompt is the task's observation; the rubric has one
function, the grade: the pass rate of the client in the completion on the task's grading instance
(0.0 when the completion holds no client). ``info`` carries the task's id and directory.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from .._errors import EnvError
from .._seeding import derive_seed
from ..agents import SYSTEM, assistant_text, extract_client
from ._grader import Grader
from .trl_env import build_train_tasks, task_rows

try:
    import verifiers as vf
    from datasets import Dataset
except ImportError as exc:  # the adapter is optional: say which extra it needs
    raise ImportError(f"the verifiers adapter needs the verifiers extra ({exc.name} is missing): "
                      "pip install 'har2client[verifiers]' (Python 3.11 to 3.13)") from None


def make_rubric(grader: Grader | None = None) -> Any:
    """A rubric whose one function is the grade of the completion's client."""
    g = grader or Grader()

    def har2client_grade(completion: Any, info: dict[str, Any], **kwargs: Any) -> float:
        code = extract_client(assistant_text(completion))
        if code is None:
            return 0.0
        seed = derive_seed(info["task_id"], str(kwargs.get("example_id", "")), "verifiers") % (1 << 62)
        return float(g.grade(info["task_dir"], code, seed)["pass_rate"])

    return vf.Rubric(funcs=[har2client_grade], weights=[1.0])


def load_environment(tasks: str | None = None, n: int = 64, case: str = "build", curriculum: str = "all",
                     arm: str | None = None, compact: bool = True, seed: int = 0, system_prompt: str | None = SYSTEM,
                     grader: Grader | None = None, **kwargs: Any) -> Any:
    """A verifiers environment over ``tasks`` (a folder of task directories), or over ``n`` train tasks
    built now from public seeds (``case`` build or repair; ``curriculum`` one stage or ``all``)."""
    if case not in ("build", "repair"):
        raise EnvError("the verifiers environment is single-turn: case is build or repair")
    if tasks is None:
        tasks = build_train_tasks(tempfile.mkdtemp(prefix="h2c-verifiers-"), n, case, curriculum, seed)
    rows = task_rows(tasks, arm, compact, system=None)
    dataset = Dataset.from_list([{"prompt": r["prompt"], "answer": "",
                                  "info": {"task_id": r["task_id"], "task_dir": os.path.join(tasks, r["task_id"])}}
                                 for r in rows])
    return vf.SingleTurnEnv(dataset=dataset, system_prompt=system_prompt, rubric=make_rubric(grader), **kwargs)
