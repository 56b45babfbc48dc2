"""The lab's one Streamlit helper package (pages call it; the rest of runtime_lab never imports st)."""

from runtime_lab.ui.bundles import bundle_section, run_index
from runtime_lab.ui.compare import compare, compare_section
from runtime_lab.ui.form import plain, spec_form
from runtime_lab.ui.history_labels import run_labels
from runtime_lab.ui.results import POLL_S, STATE_ICONS, draw, history_call, run_panel
from runtime_lab.ui.shell import check_data_dir, experiment_page, manager, navigation, sidebar
from runtime_lab.ui.stored import delete, draw_stored, when
from runtime_lab.ui.user_workloads import user_workloads

__all__ = [
    "bundle_section",
    "run_index",
    "POLL_S",
    "STATE_ICONS",
    "check_data_dir",
    "compare",
    "compare_section",
    "delete",
    "draw",
    "draw_stored",
    "experiment_page",
    "history_call",
    "manager",
    "navigation",
    "plain",
    "run_labels",
    "run_panel",
    "sidebar",
    "spec_form",
    "user_workloads",
    "when",
]
