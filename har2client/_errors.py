"""One exception hierarchy, rooted in :class:`Har2ClientError`.

Every error a user can cause (a broken HAR file, a missing task, a client that
cannot be graded) is one of these, and its ``str()`` is a single line that names
the file or thing at fault, so the CLI can print it without a traceback::

    Har2ClientError
    ├── SpecError          an API description is inconsistent or unreadable
    ├── HarError           a HAR file is malformed
    ├── TaskError          a task directory is missing, incomplete or of an unknown kind
    ├── ClientFileError    a client file to grade is missing or unreadable
    ├── GradingError       the grader itself could not run
    └── EnvError           an environment used outside its contract

A client that fails is not an error: its grade says which hidden tests it failed and why. The few
other exceptions in the package are signals inside one module, never raised to a user:
``ApiRefusal`` (a fake API's HTTP error answer), ``NotApplicable`` (a change kind that does not apply
to an API), and the judge's ``TestFailure``, ``ClientRaised`` and ``WorkerFailure``.
"""

from __future__ import annotations


class Har2ClientError(Exception):
    """Base class of every error HAR2Client raises on purpose."""


class SpecError(Har2ClientError):
    """An API description is inconsistent or cannot be read."""


class HarError(Har2ClientError):
    """A HAR file is malformed: not JSON, or missing what HAR 1.2 requires."""


class TaskError(Har2ClientError):
    """A task directory is missing, incomplete or of an unknown kind."""


class ClientFileError(Har2ClientError):
    """A client file to grade is missing or unreadable."""


class GradingError(Har2ClientError):
    """The grader itself could not run (not: the client failed a test)."""


class EnvError(Har2ClientError):
    """An environment was used outside its contract: a step after the episode ended, an unknown setting."""
