"""Benchmarks: every figure is compared with a baseline measured in the same run."""
