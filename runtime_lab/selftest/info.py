"""The worker self-test's catalog entry (CLI only: jobs that sleep, raise, crash, hang, …)."""

from runtime_lab.options import ExperimentInfo, OptionSpec

INFO = ExperimentInfo(
    name="selftest",
    title="Worker self-test",
    summary=(
        "Diagnostics of the worker: a job that succeeds, sleeps, raises, crashes, hangs, "
        "runs out of memory or turns on a tool that disturbs the process."
    ),
    default_shape="8",
    options={
        "behaviour": OptionSpec(
            default="ok",
            help="what the job does",
            choices=(
                "ok",
                "sleep",
                "raise",
                "crash",
                "hang",
                "oom",
                "profile",
                "memory-history",
                "phased",
            ),
        ),
        "seconds": OptionSpec(
            default=1,
            help="how long 'sleep' runs ('phased': each of its two phases)",
            kind="int",
            low=0,
            high=3600,
        ),
    },
    hidden=True,
)
