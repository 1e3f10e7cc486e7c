"""Rebuild src/debategraph/data/gsm8k_test.jsonl.gz from ../shared/data/gsm8k (MIT, OpenAI)."""

import gzip
import json
import re
import sys
from pathlib import Path

SOURCES = ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")


def reference(answer: str) -> str:
    return answer.split("####")[-1].strip().replace(",", "")


def strip_calculator(text: str) -> str:
    """Drop GSM8K's calculator annotations ``<<16-3=13>>``."""
    return re.sub(r"<<[^>]*>>", "", text)


def main(src: Path, dst: Path) -> None:
    tests = [json.loads(line) for line in (src / "test.jsonl").open()]
    solved = [json.loads(line) for line in (src / "example_model_solutions.jsonl").open()]
    with gzip.open(dst, "wt", encoding="utf-8") as out:
        for i, (item, sols) in enumerate(zip(tests, solved, strict=True)):
            assert item["question"] == sols["question"]
            row = {
                "id": f"gsm8k-test-{i:04d}",
                "question": item["question"],
                "reference": reference(item["answer"]),
                "rationale": strip_calculator(item["answer"].split("####")[0]).strip(),
                "model_solutions": {
                    name: {
                        "solution": strip_calculator(sols[name]["solution"]),
                        "is_correct": sols[name]["is_correct"],
                    }
                    for name in SOURCES
                },
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/gsm8k")
    main(root, Path(__file__).parents[1] / "src/debategraph/data/gsm8k_test.jsonl.gz")
