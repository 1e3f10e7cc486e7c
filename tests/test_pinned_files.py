"""GSM-IC and GSM-Ranges read their GitHub files at a pinned commit, checked by digest.

The fixtures are real lines of the pinned files: the GSM-Ranges CSVs are rows 1, 2 and 51
of level4.csv and rows 1 and 5,000 of level6.csv byte for byte (the whole files were
read when they were pinned); the GSM-IC records are three of GSM-IC_2step.json (rows 78
and 661 among them) and one of GSM-IC_mstep.json as public code quotes them (the files
themselves could not be read here), in the files' JSON-array form.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import stat
import urllib.error
from dataclasses import replace
from pathlib import Path

import pytest

from debategraph.errors import DataError
from debategraph.eval.datasets import DATASETS, load_dataset
from debategraph.eval.datasets.gsm_variants import GSM_IC_FILES, GSM_RANGES_FILES
from debategraph.eval.datasets.hub import HubUnavailable
from debategraph.eval.datasets.pinned import (
    PinnedFile,
    cached_path,
    data_cache,
    digest_mismatch,
    git_blob_id,
)

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
RAW = "https://raw.githubusercontent.com"
RANGES = "minwukim/GSM-Ranges/4ee84658dbcda3a65227d81610f715cce54b9627"
GSM_IC = "google-research-datasets/GSM-IC/0c1da13552afcc5d995d6f1ad5288417cb110246"

FIXTURE_OF = {
    f"{RAW}/{RANGES}/sample_dataset/level4.csv": "gsm_ranges_level4.csv",
    f"{RAW}/{RANGES}/sample_dataset/level6.csv": "gsm_ranges_level6.csv",
    f"{RAW}/{GSM_IC}/GSM-IC_2step.json": "gsm_ic_2step.json",
    f"{RAW}/{GSM_IC}/GSM-IC_mstep.json": "gsm_ic_mstep.json",
}


def as_fixture(file: PinnedFile) -> PinnedFile:
    """The declaration with the digests of the fixture that stands in for its file."""
    data = (FIXTURES / FIXTURE_OF[file.url()]).read_bytes()
    sha256 = None if file.sha256 is None else hashlib.sha256(data).hexdigest()
    return replace(file, git_blob=git_blob_id(data), sha256=sha256)


def serve_pinned_fixtures(monkeypatch: pytest.MonkeyPatch, cache: Path) -> list[str]:
    """Downloads answered from the fixtures, the declarations given the fixtures' digests,
    and an empty cache at ``cache``; the list returned holds every address downloaded."""
    monkeypatch.setenv("DEBATEGRAPH_DATA_CACHE", str(cache))
    for files in (GSM_RANGES_FILES, GSM_IC_FILES):
        for key, file in list(files.items()):
            monkeypatch.setitem(files, key, as_fixture(file))  # type: ignore[arg-type]
    fetched: list[str] = []

    def download(url: str) -> bytes:
        fetched.append(url)
        if url not in FIXTURE_OF:
            return b"index,question,answer\n"  # a CSV with no rows
        return (FIXTURES / FIXTURE_OF[url]).read_bytes()

    monkeypatch.setattr("debategraph.eval.datasets.pinned.download", download)
    return fetched


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    return serve_pinned_fixtures(monkeypatch, tmp_path / "cache")


def test_the_pins_are_these_commits_files_and_digests() -> None:
    assert {level: (f.url(), f.git_blob, f.sha256) for level, f in GSM_RANGES_FILES.items()} == {
        4: (
            f"{RAW}/{RANGES}/sample_dataset/level4.csv",
            "4d580ec82854b533b27472a5ac9b665bd12f4052",
            "4824bfb5e73867cd54965788fa415b1a6548f2accd40cdfb08d9c6101ac6dcbb",
        ),
        6: (
            f"{RAW}/{RANGES}/sample_dataset/level6.csv",
            "b0c85bee12584467f82007dfb4440f7efeb9d815",
            "a26d069da2a11a4cb354775a9d8b9c9c028d054f88ec6853b726a83f0f769d77",
        ),
    }
    assert {variant: (f.url(), f.git_blob, f.sha256) for variant, f in GSM_IC_FILES.items()} == {
        "2step": (
            f"{RAW}/{GSM_IC}/GSM-IC_2step.json",
            "68c09b96cb5d491c888d83adc90bc8069b33224f",
            None,
        ),
        "mstep": (
            f"{RAW}/{GSM_IC}/GSM-IC_mstep.json",
            "c6966bca803207dd188c669852de010e8b978f70",
            None,
        ),
    }
    for name in ("gsm-ranges-4", "gsm-ranges-6", "gsm-ic-2step", "gsm-ic-mstep"):
        commit = (RANGES if "ranges" in name else GSM_IC).rsplit("/", 1)[1]
        assert DATASETS[name].revision == commit
        assert DATASETS[name].source.startswith("github ")


def test_git_blob_id_is_gits_object_id() -> None:
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object
    assert git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def test_gsm_ranges_reads_the_pinned_csv_with_its_problem_and_draw(served: list[str]) -> None:
    items = load_dataset("gsm-ranges-4")
    assert served == [f"{RAW}/{RANGES}/sample_dataset/level4.csv"]
    assert [i.id for i in items] == ["gsm-ranges-4-0000", "gsm-ranges-4-0001", "gsm-ranges-4-0002"]
    assert [i.reference for i in items] == ["474960", "97014", "11065880"]
    assert [(i.metadata["problem"], i.metadata["draw"]) for i in items] == [(1, 1), (1, 2), (2, 1)]
    assert items[2].question.startswith("James decides to run 39521 sprints 7 times a week.")
    assert {i.metadata["level"] for i in items} == {4}
    level6 = load_dataset("gsm-ranges-6")
    assert [i.reference for i in level6] == ["18404007", "14933611"]
    assert [i.metadata["problem"] for i in level6] == [1, 100]


def test_gsm_ic_reads_the_pinned_json_array(served: list[str]) -> None:
    items = load_dataset("gsm-ic-2step")
    assert served == [f"{RAW}/{GSM_IC}/GSM-IC_2step.json"]
    assert [i.id for i in items] == ["gsm-ic-2step-0000", "gsm-ic-2step-0001", "gsm-ic-2step-0002"]
    assert [i.reference for i in items] == ["72", "845640", "307"]  # "845,640" in the file
    assert "The height of Emma is 8 feet." in items[0].question
    assert items[0].metadata == {
        "variant": "2step",
        "original_question": "Steve is 5'6\".  He grows 6 inches.  How tall is he in inches?",
        "n_steps": 2,
        "role_label": "nonoverlapped",
        "number_label": "in_range",
        "sentence_label": "in_topic",
    }
    assert items[2].metadata["number_label"] == "n/a"
    (mstep,) = load_dataset("gsm-ic-mstep")
    assert (mstep.id, mstep.reference, mstep.metadata["n_steps"]) == ("gsm-ic-mstep-0000", "5", 4)


def test_a_fetched_file_is_cached_and_read_again_without_network(served: list[str]) -> None:
    first = load_dataset("gsm-ranges-6")
    file = GSM_RANGES_FILES[6]
    assert cached_path(file).read_bytes() == (FIXTURES / "gsm_ranges_level6.csv").read_bytes()
    assert (
        cached_path(file)
        == data_cache()
        / "minwukim+GSM-Ranges"
        / RANGES.rsplit("/")[-1]
        / "sample_dataset"
        / "level6.csv"
    )
    assert load_dataset("gsm-ranges-6") == first
    assert len(served) == 1


def test_a_damaged_cached_file_is_fetched_again(served: list[str]) -> None:
    path = cached_path(GSM_RANGES_FILES[4])
    path.parent.mkdir(parents=True)
    path.write_bytes(b"index,question,answer\n")
    assert len(load_dataset("gsm-ranges-4")) == 3
    assert len(served) == 1
    assert digest_mismatch(GSM_RANGES_FILES[4], path.read_bytes()) is None


def test_a_file_that_is_not_the_pinned_one_is_refused_and_not_cached(
    served: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned = GSM_RANGES_FILES[4]
    monkeypatch.setitem(GSM_RANGES_FILES, 4, replace(pinned, sha256="0" * 64))
    with pytest.raises(DataError) as raised:
        load_dataset("gsm-ranges-4")
    got = hashlib.sha256((FIXTURES / "gsm_ranges_level4.csv").read_bytes()).hexdigest()
    assert str(raised.value) == (
        f"GSM-Ranges level 4: the file at {RAW}/{RANGES}/sample_dataset/level4.csv is not the "
        f"pinned one (SHA-256 {got}, pinned {'0' * 64}), so it was not used; to read what the "
        "repository serves now, pass revision= to load_dataset"
    )
    assert not cached_path(pinned).exists()
    monkeypatch.setitem(GSM_IC_FILES, "2step", replace(GSM_IC_FILES["2step"], git_blob="1" * 40))
    wrong_blob = r"not the pinned one \(git blob [0-9a-f]{40}, pinned 1{40}\)"
    with pytest.raises(DataError, match=wrong_blob):
        load_dataset("gsm-ic-2step")


def test_offline_the_load_is_one_line_naming_the_set_the_address_and_the_cache(
    served: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def offline(url: str) -> bytes:
        raise urllib.error.URLError(OSError(-3, "Temporary failure in name resolution"))

    monkeypatch.setattr("debategraph.eval.datasets.pinned.download", offline)
    with pytest.raises(HubUnavailable) as raised:
        load_dataset("gsm-ic-mstep", limit=1)
    path = cached_path(GSM_IC_FILES["mstep"])
    assert str(raised.value) == (
        f"could not fetch GSM-IC mstep from {RAW}/{GSM_IC}/GSM-IC_mstep.json ([Errno -3] "
        f"Temporary failure in name resolution): connect to the network, or save that file as "
        f"{path}"
    )
    assert "\n" not in str(raised.value)

    def missing(url: str) -> bytes:
        raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)  # type: ignore[arg-type]

    monkeypatch.setattr("debategraph.eval.datasets.pinned.download", missing)
    with pytest.raises(HubUnavailable, match=r"\(HTTP 404 Not Found\): connect to the network"):
        load_dataset("gsm-ranges-4")


def test_a_file_saved_by_hand_in_the_cache_loads_offline(
    served: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def offline(url: str) -> bytes:
        raise urllib.error.URLError("no network")

    monkeypatch.setattr("debategraph.eval.datasets.pinned.download", offline)
    path = cached_path(GSM_IC_FILES["2step"])
    path.parent.mkdir(parents=True)
    path.write_bytes(b"[]")
    with pytest.raises(HubUnavailable) as raised:
        load_dataset("gsm-ic-2step")
    assert str(raised.value).endswith(
        f"save that file as {path} (the file there now is not it: git blob "
        f"{git_blob_id(b'[]')}, pinned {GSM_IC_FILES['2step'].git_blob})"
    )
    path.write_bytes((FIXTURES / "gsm_ic_2step.json").read_bytes())
    assert len(load_dataset("gsm-ic-2step")) == 3


def test_another_revision_is_read_unchecked_and_not_cached(served: list[str]) -> None:
    items = load_dataset("gsm-ranges-4", revision="main")
    assert served == [f"{RAW}/minwukim/GSM-Ranges/main/sample_dataset/level4.csv"]
    assert items == []  # that address is served a CSV with no rows, taken as it is
    assert not cached_path(GSM_RANGES_FILES[4]).exists()


def test_files_in_the_wrong_shape_are_refused_naming_the_set(
    served: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def serve(data: bytes) -> None:
        monkeypatch.setattr("debategraph.eval.datasets.pinned.download", lambda url: data)

    serve(b'{"new_question": "q", "answer": "1"}')
    with pytest.raises(DataError, match=r"^GSM-IC mstep: the file is not a JSON array of records$"):
        load_dataset("gsm-ic-mstep", revision="main")
    serve(b"[{")
    with pytest.raises(DataError, match=r"^GSM-IC mstep: the file is not JSON \("):
        load_dataset("gsm-ic-mstep", revision="main")
    serve(b"id,question,answer\n1,q,#### 2\n")
    lacks = r"^GSM-Ranges level 6: the CSV lacks column\(s\) \['index'\]"
    with pytest.raises(DataError, match=lacks):
        load_dataset("gsm-ranges-6", revision="main")


@pytest.mark.parametrize(
    "failure",
    [
        http.client.IncompleteRead(b"index,q", 90),  # the connection dropped mid-file
        http.client.InvalidURL("URL can't contain control characters"),
    ],
)
def test_a_download_cut_off_or_refused_is_the_one_line(
    served: list[str], monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    def fail(url: str) -> bytes:
        raise failure

    monkeypatch.setattr("debategraph.eval.datasets.pinned.download", fail)
    with pytest.raises(HubUnavailable) as raised:
        load_dataset("gsm-ranges-4")
    message = str(raised.value)
    assert message.startswith(f"could not fetch GSM-Ranges level 4 from {RAW}/{RANGES}/")
    assert message.endswith(f"save that file as {cached_path(GSM_RANGES_FILES[4])}")
    assert "\n" not in message


def test_a_revision_is_stripped_and_one_with_a_blank_is_refused_by_name(
    served: list[str],
) -> None:
    assert load_dataset("gsm-ranges-4", revision=" main\n") == []
    assert served == [f"{RAW}/minwukim/GSM-Ranges/main/sample_dataset/level4.csv"]
    for bad in ("my branch", "a..b", "v1?x"):
        with pytest.raises(DataError) as raised:
            load_dataset("gsm-ranges-4", revision=bad)
        assert str(raised.value) == (
            f"GSM-Ranges level 4: revision={bad!r} is no commit, tag or branch name "
            "(pass a commit hash, a tag or a branch, without blanks)"
        )
    assert len(served) == 1  # none of them was fetched


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_a_cached_file_is_as_readable_as_the_umask_allows(served: list[str], umask: int) -> None:
    before = os.umask(umask)
    try:
        load_dataset("gsm-ranges-4")
    finally:
        os.umask(before)
    path = cached_path(GSM_RANGES_FILES[4])
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left
