"""The redactor of an evaluation: every secret its rows, errors and manifest must not hold."""

from __future__ import annotations

from collections.abc import Sequence

from debategraph.eval.run.arms import Arm
from debategraph.models.credentials import model_secrets
from debategraph.policies.secrets import Redactor, remember_secrets


def run_redactor(arms: Sequence[Arm]) -> Redactor:
    """A redactor for this process's environment and everything the arms configure.

    That is the environment's secrets (API keys, tokens, proxy passwords, credential
    headers), the credentials of the arms' base URLs, and the keys, credential headers and
    URL passwords of the model objects in their settings.
    """
    urls = [arm.settings.get("base_url") for arm in arms]
    values = model_secrets(arm.settings for arm in arms)
    remember_secrets(values)
    return Redactor.from_environment(urls=urls, values=values)
