"""The KB learns what it could not answer.

When a match ends without a confident answer, the paste's error lines are kept as masked
templates (secrets redacted first, then the variable parts masked) and counted; editors
turn them into symptoms or draft articles. ``masking`` is plain Python (no Django) and is
tested on its own; ``services`` / ``selectors`` are the Django side.
"""
