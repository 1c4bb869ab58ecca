"""Reusable widgets: they import textual and ``store`` only, never screens or the app."""
