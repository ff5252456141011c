"""scripts/fuzz.py as a project tool: a few thousand mutated captures give no untyped
exception, no split mismatch and no driver mismatch (the README's incremental loop judging a
body otherwise than decode()); a seed gives the same inputs; a defect is reported with its
input and traceback, and the exit status says so."""

from __future__ import annotations

import importlib.util
import io
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

import sse_core

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"


@pytest.fixture(scope="module")
def fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sse_fuzz_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(60)
def test_a_few_thousand_inputs_find_nothing(fuzz: ModuleType) -> None:
    out = io.StringIO()
    status = fuzz.main(["--inputs", "3000", "--seed", "1"], out=out)
    text = out.getvalue()
    assert "inputs tried: 3000" in text and "untyped exceptions: 0" in text, text
    assert "split mismatches: 0" in text and status == 0, text
    assert "driver mismatches: 0" in text, text  # the README's loop agrees with decode()


def test_the_corpus_is_every_capture(fuzz: ModuleType) -> None:
    assert len(fuzz.load_corpus()) >= 40


def test_the_anthropic_corpus_is_every_anthropic_capture(fuzz: ModuleType) -> None:
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "anthropic"
    corpus = fuzz.load_corpus(protocol="anthropic")
    assert len(corpus) == len([p for p in folder.iterdir() if p.suffix in (".sse", ".jsonl")])
    assert all(b"message_start" in body for body in corpus)
    assert not set(corpus) & set(fuzz.load_corpus())  # neither protocol's in the other's


@pytest.mark.timeout(60)
def test_a_few_thousand_anthropic_inputs_find_nothing(fuzz: ModuleType) -> None:
    out = io.StringIO()
    status = fuzz.main(["--inputs", "3000", "--seed", "1", "--protocol", "anthropic"], out=out)
    text = out.getvalue()
    assert "inputs tried: 3000" in text and "untyped exceptions: 0" in text, text
    assert "split mismatches: 0" in text and "driver mismatches: 0" in text, text
    assert status == 0 and "ok " in text  # some mutated bodies still decode


@pytest.mark.timeout(60)
def test_the_same_seed_gives_the_same_inputs(fuzz: ModuleType) -> None:
    first = fuzz.fuzz(150, 5, out=io.StringIO())
    again = fuzz.fuzz(150, 5, out=io.StringIO())
    other = fuzz.fuzz(150, 6, out=io.StringIO())
    assert first.digest == again.digest != other.digest
    assert first.outcomes == again.outcomes


MUTATIONS = [
    "bit-flips",
    "truncation",
    "splice",
    "wrong-types",
    "huge-numbers",
    "deep-nesting",
    "control-chars",
    "split-utf8",
]


def test_the_mutations_are_the_ones_named(fuzz: ModuleType) -> None:
    assert sorted(fuzz.MUTATORS) == sorted(MUTATIONS)


@pytest.mark.parametrize("name", MUTATIONS)
def test_every_mutation_changes_the_body(fuzz: ModuleType, name: str) -> None:
    rng = random.Random(0)
    corpus = fuzz.load_corpus()
    changed = sum(
        fuzz.MUTATORS[name](rng, body, corpus) != body for body in corpus for _ in range(3)
    )
    assert changed >= len(corpus)  # most tries change something


@pytest.mark.timeout(60)
def test_an_untyped_exception_is_reported_with_its_input(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(body: object, **kwargs: object) -> object:
        raise KeyError("a defect")

    monkeypatch.setattr(sse_core, "decode", broken)
    out = io.StringIO()
    status = fuzz.main(["--inputs", "3"], out=out)
    text = out.getvalue()
    assert status == 1
    assert "untyped exception in decode whole" in text and "KeyError: 'a defect'" in text
    assert "input: b" in text and "untyped exceptions: 6" in text  # whole and cut, per input


def test_a_driver_mismatch_is_reported(fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fuzz, "through_decoder", lambda pieces, bound, protocol: ("Unheard", None))
    out = io.StringIO()
    status = fuzz.main(["--inputs", "5"], out=out)
    text = out.getvalue()
    assert status == 1 and "driver mismatch in StreamDecoder+Accumulator" in text
    assert "the incremental loop cut at" in text and "driver mismatches: 5" in text
