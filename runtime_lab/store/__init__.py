"""The store: the run history, bundles (export/import) and what the history estimates."""
