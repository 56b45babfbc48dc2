"""Every recipe, by name, in the order --list shows them."""

from benchmarks.recipe import Recipe
from benchmarks.recipes import (
    catalog,
    fusion_bench,
    measurement,
    page_defaults,
    pool,
    rerun_latency,
    rss,
    what_if,
    worker_start,
)

RECIPES: dict[str, Recipe] = {
    recipe.name: recipe
    for recipe in (
        rerun_latency.RECIPE,
        what_if.RECIPE,
        worker_start.RECIPE,
        page_defaults.RECIPE,
        fusion_bench.RECIPE,
        catalog.RECIPE,
        measurement.RECIPE,
        pool.RECIPE,
        rss.RECIPE,
    )
}
