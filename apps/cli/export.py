"""``spar export``: a trained run's policy as an ONNX bot that plays on onnxruntime alone.

Exports the actor of the run's latest checkpoint (or of a checkpoint file):
inputs ``obs`` (uint8 [batch, D], the observation as spar_env.observation.per_game encodes
it) and ``mask`` (bool [batch, A], the legal actions), output ``probs``
(float32 [batch, A], exactly 0 on illegal actions). The file's metadata names
the game, the observation encoding, the action ids and the training run; the
bot refuses to play any other game. Before the file is written the bot is
checked against torch on real observations of random self-play. The file is
written atomically.

    spar export runs/spar4 --out bots/spar4.onnx
    spar bench onnx:bots/spar4.onnx heuristic heuristic heuristic --deals 20000
"""

from __future__ import annotations

import argparse

from spar_apps.cli.arguments import add_command, nonempty_path, positive_int_at_most
from spar_apps.cli.output import atomic_output, check_output_path
from spar_env.limits import MAX_CHECK
from spar_env.printable import printable

TOLERANCE = 1e-5  # largest difference from torch's probabilities that may be written


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "export", "export a trained policy as an ONNX bot (onnx:FILE)", __doc__
    )
    parser.add_argument(
        "run", type=nonempty_path, metavar="RUN", help="a run folder or a checkpoint file"
    )
    parser.add_argument(
        "--out",
        type=nonempty_path,
        required=True,
        metavar="FILE",
        help="the bot file to write (.onnx)",
    )
    parser.add_argument(
        "--check",
        type=positive_int_at_most(MAX_CHECK, "observations"),
        default=4096,
        metavar="N",
        help="observations of random self-play to check the bot on against torch",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_output_path(args.out, "--out", (".onnx",))
    import torch

    from spar_agents.export.samples import self_play_observations
    from spar_agents.export.writer import export_checkpoint, largest_difference

    torch.set_num_threads(1)
    exported = export_checkpoint(args.run)
    obs, mask = self_play_observations(exported.rules, args.check, v2=exported.universal)
    difference = largest_difference(exported, obs, mask)
    if not difference < TOLERANCE:
        raise ValueError(
            f"the exported bot differs from torch by {difference:.2e} (more than {TOLERANCE:g}) "
            f"on {args.check:,} observations; nothing written"
        )
    with atomic_output(args.out, "wb") as out:
        out.write(exported.data)
    rules = exported.rules
    run = {key: printable(value) for key, value in exported.run.items()}  # read from the file
    if exported.universal:
        from spar_agents.signature import covered_text

        games = exported.signature["games"]
        print(
            f"wrote {args.out} ({len(exported.data) / 1024:,.0f} KiB): a universal bot for "
            f"{len(games)} games ({covered_text(games)}), from {run['name']} update "
            f"{run['update']} ({exported.checkpoint}); largest difference from torch over "
            f"{args.check:,} observations {difference:.1e}\n"
            f"bench it: spar bench onnx:{args.out} heuristic --variant VARIANT --players N\n"
            f"play it:  spar play --opponents onnx:{args.out} --variant VARIANT --players N"
        )
        return 0
    game = f"--variant {rules.variant} --players {rules.players}" + "".join(
        f" --set {key}={_setting(value)}" for key, value in rules.options().items()
    )
    print(
        f"wrote {args.out} ({len(exported.data) / 1024:,.0f} KiB): {rules.variant}, "
        f"{rules.players} players, from {run['name']} update {run['update']} "
        f"({exported.checkpoint}); largest difference from torch over {args.check:,} "
        f"observations {difference:.1e}\n"
        f"bench it: spar bench onnx:{args.out} random {game}\n"
        f"play it:  spar play --opponents onnx:{args.out} {game}"
    )
    return 0


def _setting(value: object) -> str:
    """A ruleset option as ``--set`` reads it: ``true``, ``none``, ``3,2``."""
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))  # one value is a tuple of one to --set
    return str(value)
