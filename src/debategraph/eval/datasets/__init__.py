"""Question sets for evaluation: one module per source, one loader contract.

The bundled GSM8K split and Du et al.'s arithmetic task load offline; your own question sets
load from JSONL (:mod:`.items` documents the format); MMLU, MMLU-Pro, ARC-Challenge, MATH-500
and StrategyQA load through the Hugging Face ``datasets`` library for users with network
access, each at the commit its ``DatasetInfo.revision`` pins where public code pins one
(``load_dataset(name, revision=...)`` reads another); GSM-IC and GSM-Ranges are files of
their GitHub repositories at a pinned commit, checked by digest (:mod:`.pinned`). Every source is a
:class:`~.source.DatasetInfo` whose ``load`` takes a
:class:`~.source.Selection` (limit, seed, ids, path, revision); :func:`load_dataset` looks the
name up in :data:`DATASETS`. :mod:`.source` documents how items are sampled.
"""

from debategraph.eval.datasets.arc import arc_row_to_item, load_arc_challenge
from debategraph.eval.datasets.arithmetic import ARITHMETIC_DEFAULT_SIZE, arithmetic_items
from debategraph.eval.datasets.catalog import (
    DATASET_COLUMNS,
    DATASETS,
    dataset_rows,
    dataset_table,
    load_dataset,
)
from debategraph.eval.datasets.errors import DatasetFormatError
from debategraph.eval.datasets.gsm8k import gsm8k_row_to_item, load_gsm8k_bundled, load_gsm8k_hub
from debategraph.eval.datasets.hub import INSTALL_HINT
from debategraph.eval.datasets.items import (
    LETTERS,
    TASKS,
    Item,
    load_jsonl,
    record_to_item,
    save_jsonl,
    strip_boxed,
)
from debategraph.eval.datasets.math500 import load_math500, math_row_to_item
from debategraph.eval.datasets.mmlu import (
    load_mmlu,
    load_mmlu_pro,
    mmlu_pro_row_to_item,
    mmlu_row_to_item,
)
from debategraph.eval.datasets.source import DatasetInfo, Selection, read_ids, select_items
from debategraph.eval.datasets.strategyqa import load_strategyqa, strategyqa_row_to_item

__all__ = [
    "ARITHMETIC_DEFAULT_SIZE",
    "DATASETS",
    "DATASET_COLUMNS",
    "INSTALL_HINT",
    "LETTERS",
    "TASKS",
    "DatasetFormatError",
    "DatasetInfo",
    "Item",
    "Selection",
    "arc_row_to_item",
    "arithmetic_items",
    "dataset_rows",
    "dataset_table",
    "gsm8k_row_to_item",
    "load_arc_challenge",
    "load_dataset",
    "load_gsm8k_bundled",
    "load_gsm8k_hub",
    "load_jsonl",
    "load_math500",
    "load_mmlu",
    "load_mmlu_pro",
    "load_strategyqa",
    "math_row_to_item",
    "mmlu_pro_row_to_item",
    "mmlu_row_to_item",
    "read_ids",
    "record_to_item",
    "save_jsonl",
    "select_items",
    "strategyqa_row_to_item",
    "strip_boxed",
]
