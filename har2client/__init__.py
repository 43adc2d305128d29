"""HAR2Client: write an API client from recorded traffic, graded by hidden tests."""

from ._errors import ClientFileError, GradingError, Har2ClientError, HarError, SpecError, TaskError

__version__ = "0.1.0"
