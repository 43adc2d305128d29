"""HAR2Client: write an API client from recorded traffic, graded by hidden tests."""

__version__ = "0.1.0"
