"""The control API under ``/_schedemu/`` and its dashboard."""
