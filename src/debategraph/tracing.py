"""What debategraph's runs are called in traces (LangSmith, or any LangChain callback handler).

Every model call runs under a :func:`call_run_config`: its run is named after the method, the
speaker and the round (``du · a2 · r1``), or the call's id where a speaker makes several calls
in a round (``du-sum · summarizer · r1:summary:a2``), and carries them, with the call's id and
kind, as tags and metadata. Every evaluation item's debate runs under an
:func:`item_run_config` that names the arm, the item and the dataset; tags and metadata are
inherited by child runs, so every model call of that item carries them too.

Only what a run is called changes: no key, seed or cached reply depends on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from debategraph.state.records import Call

TAG = "debategraph"
"""The tag every debategraph run carries."""


def call_run_config(method: str, call: Call) -> RunnableConfig:
    """The run name, tags and metadata of one model call.

    Args:
        method: The method's registry name.
        call: The call as planned.

    Returns:
        A config with ``run_name``, ``tags`` and ``metadata`` only (merge it into the run's).
    """
    speaker, round_, kind, id_ = call["speaker"], call["round"], call["kind"], call["id"]
    # An agent's answer is named by its round; any other call by its id, unique in the debate.
    step = f"r{round_}" if id_ == f"r{round_}:{speaker}" else id_
    name = f"{method} · {speaker} · {step}"
    return {
        "run_name": name,
        "tags": [TAG, f"method:{method}", f"agent:{speaker}", f"round:{round_}", f"kind:{kind}"],
        "metadata": {
            "debategraph_method": method,
            "agent": speaker,
            "round": round_,
            "call_id": id_,
            "call_kind": kind,
        },
    }


def item_run_config(arm_label: str, item_id: str, dataset: str) -> RunnableConfig:
    """The run name, tags and metadata of one evaluation item's debate.

    Args:
        arm_label: The arm's label (``du``, ``sc@du``, ...).
        item_id: The item's id in its dataset.
        dataset: The dataset's name.

    Returns:
        A config with ``run_name``, ``tags`` and ``metadata`` only.
    """
    return {
        "run_name": f"{arm_label} · {item_id}",
        "tags": [TAG, f"arm:{arm_label}", f"item:{item_id}", f"dataset:{dataset}"],
        "metadata": {"debategraph_arm": arm_label, "item_id": item_id, "dataset": dataset},
    }
