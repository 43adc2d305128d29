"""OpenEnv adapter (``pip install 'har2client[openenv]'``): the environments as an HTTP/WebSocket server.

    har2client serve-env --port 8000 --workers 2          # or: create_server() under any ASGI server

    from har2client.env.openenv_env import Har2ClientEnvClient, Har2ClientAction
    with Har2ClientEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        r = env.reset(case="build", curriculum="L0", seed=0)       # r.observation.observation: the dict
        r = env.step(Har2ClientAction(type="submit", code=code))  # r.reward, r.observation.info

Each WebSocket session is one environment. ``reset`` takes the environment's settings as keyword
arguments (``case``: build, investigate or repair; ``split``, ``curriculum``, ``arm``, ``source``,
``probe_budget``, ``compact``, ``tasks``; and ``seed``); a session keeps its environment while they stay
the same. Every session grades on the server's one shared grading pool. A bad action, a bad setting or
a step out of order comes back as ``info["error"]``: the server never fails on what a client sends.
"""

from __future__ import annotations

import traceback
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import ConfigDict, Field

from .._errors import EnvError, Har2ClientError
from ._base import Har2ClientEnv
from ._grader import Grader, shared_pool
from .env import TrafficToClientEnv
from .repair_env import RepairEnv

SETTINGS = ("case", "split", "curriculum", "arm", "source", "probe_budget", "compact", "tasks")


class Har2ClientAction(Action):
    """``type`` submit (with ``code``) or probe (with ``request``). Fields are not checked here: the
    environment checks them and says what is wrong in ``info["error"]``."""

    model_config = ConfigDict(extra="allow", validate_assignment=True, arbitrary_types_allowed=True)
    type: Any = Field(default=None, description="submit or probe")
    code: Any = Field(default=None, description="the whole client.py (submit)")
    request: Any = Field(default=None, description="method, url, headers, query, body (probe)")


class Har2ClientObservation(Observation):
    observation: dict[str, Any] = Field(default_factory=dict, description="the environment's observation dict")
    info: dict[str, Any] = Field(default_factory=dict, description="the step's info (the grade after a submit)")


class Har2ClientOpenEnv(Environment):
    """One session's environment: a ``TrafficToClientEnv`` or ``RepairEnv`` made from reset's settings."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, grader: Grader | None = None, defaults: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.grader = grader
        self.defaults = dict(defaults or {})
        self.inner: Har2ClientEnv | None = None
        self._settings: dict[str, Any] | None = None
        self._episode_id: str | None = None
        self._steps = 0

    def _make(self, settings: dict[str, Any]) -> Har2ClientEnv:
        case = settings.get("case", "build")
        if case not in ("build", "investigate", "repair"):
            raise EnvError(f"case must be build, investigate or repair, not {case!r}")
        kwargs = {k: v for k, v in settings.items() if k != "case" and v is not None}
        if case == "repair":
            for k in ("source", "probe_budget"):
                kwargs.pop(k, None)
            return RepairEnv(grader=self.grader, **kwargs)
        return TrafficToClientEnv(case=case, grader=self.grader, **kwargs)

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              **kwargs: Any) -> Har2ClientObservation:
        unknown = sorted(set(kwargs) - set(SETTINGS))
        if unknown:
            return self._error(f"unknown reset settings: {', '.join(unknown)} (settings: {', '.join(SETTINGS)})")
        # What a reset does not say stays as the session had it: a bare reset() is the next episode.
        settings = {**(self._settings or self.defaults), **{k: v for k, v in kwargs.items() if v is not None}}
        try:
            if self.inner is None or settings != self._settings:
                if self.inner is not None:
                    self.inner.close()
                    self.inner = None
                self.inner = self._make({**settings, "seed": seed or 0})
                self._settings = settings
                obs = self.inner.reset()
            else:
                obs = self.inner.reset(seed=seed)
        except Har2ClientError as exc:
            return self._error(str(exc))
        self._episode_id, self._steps = episode_id, 0
        return Har2ClientObservation(observation=obs, info={"error": None}, done=False, reward=None)

    def step(self, action: Har2ClientAction, timeout_s: float | None = None, **kwargs: Any) -> Har2ClientObservation:
        if self.inner is None:
            return self._error("step before reset: reset first")
        self._steps += 1
        payload = {"type": action.type}
        for name in ("code", "request"):
            if getattr(action, name) is not None:
                payload[name] = getattr(action, name)
        try:
            out = self.inner.step(payload)
        except Har2ClientError as exc:
            return self._error(str(exc), done=True)
        except Exception as exc:  # noqa: BLE001 - one session's failure must not take the server down
            last = traceback.extract_tb(exc.__traceback__)[-1]
            return self._error(f"internal error: {type(exc).__name__}: {exc} ({last.filename}:{last.lineno})",
                               done=True)
        return Har2ClientObservation(observation=out["observation"], info=out["info"], done=out["done"],
                                     reward=out["reward"])

    def _error(self, message: str, done: bool = False) -> Har2ClientObservation:
        return Har2ClientObservation(observation={}, info={"error": message}, done=done, reward=0.0)

    @property
    def state(self) -> State:
        inner = self.inner.state() if self.inner is not None else {}
        return State(episode_id=self._episode_id, step_count=self._steps, **inner)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
            self.inner = None


def create_server(workers: int | None = None, max_sessions: int = 64, isolation: str = "auto",
                  **defaults: Any) -> Any:
    """The OpenEnv FastAPI app: ``max_sessions`` WebSocket sessions grading on one pool of ``workers``.

    The pool forks its processes here, before the server starts threads. ``defaults`` are reset
    settings a session gets unless its reset says otherwise.
    """
    grader = Grader(shared_pool(workers, isolation))
    return create_app(lambda: Har2ClientOpenEnv(grader, defaults), Har2ClientAction, Har2ClientObservation,
                      env_name="har2client", max_concurrent_envs=max_sessions)


class Har2ClientEnvClient(EnvClient[Har2ClientAction, Har2ClientObservation, State]):
    """The client of :func:`create_server`'s sessions (async; ``.sync()`` for a blocking one)."""

    def _step_payload(self, action: Har2ClientAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"}, exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[Har2ClientObservation]:
        obs = payload.get("observation", {})
        observation = Har2ClientObservation(observation=obs.get("observation", {}), info=obs.get("info", {}),
                                            done=payload.get("done", False), reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> State:
        return State(**payload)
