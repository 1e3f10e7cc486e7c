"""Print docs/evaluation.md's table of differences the exact McNemar test finds (80% power).

Usage: python scripts/mcnemar_power_table.py
Exact power of the test the report runs
(``debategraph.eval.analysis.stats.mcnemar_power``), two-sided at the 5% level; also how
many items a 3- and a 5-point difference need at d = 0.2.
"""

from __future__ import annotations

from debategraph.eval.analysis.stats import exact_minimum_detectable_difference, mcnemar_power

SIZES = (100, 500, 1319)
SHARES = (0.1, 0.2, 0.3)


def items_needed(difference: float, discordant: float, *, power: float = 0.8) -> int:
    """The smallest n from which the power stays at least ``power`` (checked over 15 more n)."""
    n = 10
    while mcnemar_power(n, discordant, difference) < power:
        n = int(n * 1.25)
    while n > 1 and mcnemar_power(n - 1, discordant, difference) >= power:
        n -= 1
    while not all(mcnemar_power(n + j, discordant, difference) >= power for j in range(16)):
        n += 1
    return n


def main() -> None:
    """Print the table's rows, then the two item counts."""
    print("| Discordant share d | n = 100 | n = 500 | n = 1319 (GSM8K test) |")
    print("|---|---:|---:|---:|")
    for share in SHARES:
        cells = [f"{100 * exact_minimum_detectable_difference(n, share):.1f}" for n in SIZES]
        print(f"| {share} | {' | '.join(cells)} |")
    for difference in (0.03, 0.05):
        print(f"{difference:.0%} at d = 0.2: {items_needed(difference, 0.2):,} items")


if __name__ == "__main__":
    main()
