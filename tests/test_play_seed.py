"""``spar play``'s fresh seed carries 128 bits of entropy, as a table's deals do (32 bits let
the cards a seat sees narrow the seed down to one), and ``--seed`` still fixes the deals: the
seed shown deals the same hands again. A duplicate challenge's seed stays within the seeds
``spar bench`` deals (64 bits): it is one to share."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from helpers.cli import spar

from spar_apps.cli.play import FRESH, MAX_DEAL_SEED, SEED_BITS, _deal_seed
from spar_env.limits import MAX_SEED

DRAWS = 8  # fresh seeds drawn; all of them below 2^100 would happen once in 2^224 tries


def fresh(duplicate: int | None = None) -> int:
    return _deal_seed(argparse.Namespace(seed=None, duplicate=duplicate))


def test_a_fresh_seed_carries_128_bits() -> None:
    seeds = [fresh() for _ in range(DRAWS)]
    assert SEED_BITS >= 128 and MAX_DEAL_SEED == (1 << SEED_BITS) - 1
    assert len(set(seeds)) == DRAWS
    assert all(0 <= s <= MAX_DEAL_SEED for s in seeds)
    assert max(s.bit_length() for s in seeds) > 100  # a 32- or 64-bit seed never is


def test_a_fresh_duplicate_seed_is_one_bench_deals() -> None:
    seeds = [fresh(FRESH) for _ in range(DRAWS)]
    assert all(0 <= s <= MAX_SEED for s in seeds) and len(set(seeds)) == DRAWS


def _first_view(*argv: str, cwd: Path) -> tuple[str, str]:
    """The seed ``spar play`` shows, and the hand it deals the person first."""
    done = spar("play", "--opponents", "random", "--set", "end=one_hand", *argv, cwd=cwd,
                input="q\n", timeout=120)  # fmt: skip
    text = " ".join(done.stdout.split())  # the terminal's wrapping undone
    seed = re.search(r"Seed (\d+)", text)
    hand = re.search(r"your hand: ([^\n]*?) your card", text)
    assert seed and hand, done.stdout + done.stderr
    return seed.group(1), hand.group(1)


def test_the_seed_shown_deals_the_same_hands_again(tmp_path: Path) -> None:
    seed, hand = _first_view(cwd=tmp_path)
    assert int(seed).bit_length() > 64 or int(fresh()).bit_length() > 64  # 2^-64 to fail
    assert _first_view("--seed", seed, cwd=tmp_path) == (seed, hand)
