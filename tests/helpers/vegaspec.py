"""Walking a Vega-Lite spec (a chart's to_dict()) for the chart tests."""


def walk(node):
    """Every dict in a Vega-Lite spec."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)
