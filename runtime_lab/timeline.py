"""A job's stage timeline (a run's `worker.stages`): the marks the worker writes, the report reads."""

from __future__ import annotations

# The stage the timeline gets when the headline is drawable. The worker writes it (runner/) and
# the report splits the timeline at it (view/): kept here so that neither imports the other.
HEADLINE_MARK = "[headline ready]"
