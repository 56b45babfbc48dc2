"""Compile evidence read without torch: the structured trace, kernels joined to source, occupancy."""
