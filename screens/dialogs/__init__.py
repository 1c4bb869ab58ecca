"""Dialogs: modal screens a screen may push directly (confirm, conflict, forms, previews)."""
