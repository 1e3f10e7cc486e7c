"""Loading bench/ modules, where the paper formulas only benchmarks and tests use live."""

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).parents[1] / "bench"


def bench_module(name: str) -> ModuleType:
    """The module ``bench/<name>.py`` (bench/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
