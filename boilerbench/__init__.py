"""boilerbench: a research harness for web-page main-content extraction."""

__version__ = "0.1.0"
