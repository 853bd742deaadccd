"""The card of a shipped bot (``checkpoints/NAME.json``), from its run and its benchmarks.

Every figure comes from a file a command wrote, and the card names that command. The
universal bot's card::

    spar export runs/universal --out checkpoints/universal.onnx
    python benchmarks/universal_table.py --bot checkpoints/universal.onnx --deals 20000 --json table.json
    spar bench onnx:checkpoints/universal.onnx onnx:checkpoints/spar4.onnx onnx:checkpoints/spar4.onnx \\
        onnx:checkpoints/spar4.onnx --variant spar --players 4 --deals 20000 --seed 0 --json > specialist.json
    spar bench onnx:checkpoints/universal.onnx pimc pimc pimc --variant spar --players 4 \\
        --deals 4000 --seed 0 --json > pimc.json
    python benchmarks/onnx_speed.py --bot checkpoints/universal.onnx --game spar4 --json speed.json
    python benchmarks/bot_card.py --run runs/universal --bot checkpoints/universal.onnx \\
        --table table.json --bench specialist=specialist.json --bench pimc=pimc.json \\
        --speed speed.json --machine "2-core VM, CPU only" --out checkpoints/universal.json

The two-player bot's card (``spar2``, the 2-player self-play fine-tune) has no table of
games but a best response's figure (``spar exploit ... --json``, or the run's ``exploit.json``)::

    python benchmarks/bot_card.py --run runs/selfplay_spar2 --bot checkpoints/spar2.onnx \\
        --bench universal=universal.json --bench heuristic=heuristic.json \\
        --bench random=random.json --exploit runs/exploit_selfplay_spar2 \\
        --machine "2-core VM, CPU only" --out checkpoints/spar2.json

The match bot's card (``match``) carries match benches (``spar bench --matches ...
--json``: its share of matches won beside its stakes per hand), and the command that
trained its run, whose name is not its config's::

    python benchmarks/bot_card.py --run runs/match_b --bot checkpoints/match.onnx \\
        --trained-by "spar train ppo_match --name match_b --runs-dir runs" \\
        --bench universal_matches=m4_universal.json --bench heuristic=h4_heuristic.json \\
        --speed speed.json --machine "2-core VM, CPU only" --out checkpoints/match.json

It reads the run's last checkpoint (its config, update, learner decisions and
minutes), the bot's metadata (the games it covers) and the JSON of each
benchmark, and writes the card atomically. The run was trained by the shipped config
``configs/ppo_<run name>.toml`` (the shipped configs are named so), unless
``--trained-by`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

import onnx

from spar_agents.export.bot import load_session
from spar_agents.export.metadata import signature_of
from spar_agents.export.specialise import reads_own_inputs
from spar_agents.ppo.agent import latest_checkpoint
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_agents.signature import covered_text
from spar_env.atomic import atomic_output
from spar_train.config import load_config
from spar_train.exploit import UNLIMITED_UPDATES


def bench_entry(path: Path) -> dict[str, Any]:
    """A ``spar bench --json`` file as a card entry: its command, and the first agent's figure
    (its mean payoff per hand; for a match bench, ``--matches``, its share of matches won too)."""
    text = path.read_text(encoding="utf-8")
    found = json.loads(text[text.index("{") :])  # past the "the game is ..." line, if any
    options = [f"--set {k}={json.dumps(v) if isinstance(v, bool) else v}"
               for k, v in found["options"].items()]  # fmt: skip
    matches = "matches" in found  # a match bench (--matches); a --set end is among its options
    size = f"--matches {found['matches']}" if matches else f"--deals {found['deals']}"
    command = (
        shlex.join(["spar", "bench", *found["lineup"]])
        + " "
        + " ".join(
            [
                f"--variant {found['variant']}",
                f"--players {found['players']}",
                *options,
                size,
                f"--seed {found['seed']}",
            ]  # fmt: skip
        )
    )
    first = found["agents"][0]
    if not matches:
        low, high = first["ci95"]
        return {"command": command, "deals": found["deals"],
                "mean_payoff": round(first["mean_payoff"], 4),
                "ci95": [round(low, 4), round(high, 4)]}  # fmt: skip
    low, high = first["match_ci95"]
    return {"command": command, "matches": found["games"], "end": found["end"],
            "match_share": round(first["match_share"], 4),
            "ci95": [round(low, 4), round(high, 4)], "fair_share": first["fair_share"],
            "mean_payoff": round(first["mean_payoff"], 4),
            "payoff_ci95_halfwidth": round(first["payoff_ci95_halfwidth"], 4),
            "mean_hands": round(found["mean_hands"], 2)}  # fmt: skip


def exploit_entry(run: Path) -> dict[str, Any]:
    """A best response's run (its ``exploit.json``) as a card entry: its command and figure.

    The command is rebuilt from the run's config: the game, the budget, the warm start and
    the seeds (a ``--set`` change of the learner is not repeated: the shipped runs have none).
    """
    found = json.loads((run / "exploit.json").read_text(encoding="utf-8"))
    config = load_config(run / "config.toml")
    budget = []
    if config.run.updates != UNLIMITED_UPDATES:
        budget += ["--updates", str(config.run.updates)]
    if config.run.max_minutes:
        budget += ["--minutes", f"{config.run.max_minutes:g}"]
    imitated = config.warmstart.imitate
    game = found["game"]
    command = shlex.join(
        ["spar", "exploit", found["agent"], "--variant", game["variant"],
         "--players", str(game["players"]), *budget,
         *(["--warm-start", imitated] if imitated else []),
         *(f"--set=game.options.{k}={v}" for k, v in game["options"].items()),
         "--deals", str(found["deals"]), "--deals-seed", str(found["deals_seed"]),
         "--seed", str(config.run.seed)]
    )  # fmt: skip
    low, high = found["ci95"]
    return {"command": command, "updates": found["updates"], "deals": found["deals"],
            "mean_payoff": round(found["mean_payoff"], 4), "ci95": [round(low, 4), round(high, 4)],
            "measures": found["measures"]}  # fmt: skip


def inputs_text(meta: dict[str, str], own_inputs: bool) -> str:
    """What the bot's graph takes and gives, from its metadata (observation v2 bots only);
    ``own_inputs``: the graph computes score inputs of its own from the observation."""
    size, actions = meta["obs_size"], meta["num_actions"]
    score = (
        " It computes its score inputs (spar_agents.ppo.score_inputs) from the observation, "
        "inside the graph."
        if own_inputs
        else ""
    )
    return (
        f"obs uint8 [batch, {size}] (spar_env.observation.universal, observation v2), mask bool "
        f"[batch, {actions}] (the v2 action grid: 48 cards, KEEP, EXCHANGE); output "
        f"probs float32 [batch, {actions}], 0 on illegal actions.{score} Loaded for one game, "
        "it plays through that game's own graph (agents/export/specialise.py)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="the training run folder")
    parser.add_argument("--bot", type=Path, required=True, help="the exported bot")
    parser.add_argument("--table", type=Path, help="universal_table.py --json")
    parser.add_argument("--bench", action="append", default=[], metavar="NAME=FILE",
                        help="a spar bench --json file, under NAME")  # fmt: skip
    parser.add_argument("--exploit", type=Path, help="a spar exploit run folder (its exploit.json)")
    parser.add_argument("--speed", type=Path, help="onnx_speed.py --json")
    parser.add_argument("--machine", default="", help="where it was trained and measured")
    parser.add_argument("--trained-by", default="", metavar="COMMAND",
                        help="the command that trained the run (default: spar train "
                        "configs/ppo_<run name>.toml, the shipped config of its name)")  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="the card to write")
    args = parser.parse_args(argv)

    meta = load_session(args.bot, str(args.bot)).get_modelmeta().custom_metadata_map
    if meta["obs_version"] != "2":
        parser.error(f"{args.bot}: observation v{meta['obs_version']}; this script writes "
                     "the cards of observation-v2 bots")  # fmt: skip
    checkpoint = load_checkpoint(latest_checkpoint(args.run))
    counters = checkpoint["counters"]
    games = signature_of(meta, str(args.bot))["games"]
    covered = covered_text(games)
    config = f"configs/ppo_{checkpoint['config']['run']['name']}.toml"
    trained_by = args.trained_by or f"spar train {config} --runs-dir {args.run.parent}"
    card: dict[str, Any] = {
        "bot": str(args.bot),
        "game": f"{len(games)} games, every one it covers: {covered}"
        if len(games) > 1
        else covered,
        "games": games,
        "inputs": inputs_text(meta, reads_own_inputs(onnx.load(args.bot))),
        "size_bytes": args.bot.stat().st_size,
        "trained": {
            "command": trained_by,
            "update": counters["update"],
            "learner_decisions": counters["decisions"],
            "training_minutes": round(counters["seconds"] / 60, 1),
            "machine": args.machine,
            "config": checkpoint["config"],
        },
        "exported": f"spar export {args.run} --out {args.bot}",
    }
    summary = [f"{args.out}: {covered if len(games) == 1 else f'{len(games)} games'}"]
    if args.table:
        cells = json.loads(args.table.read_text(encoding="utf-8"))  # universal_table.py's rows
        above = sum(cell["above_zero"] for cell in cells)
        card["table"] = {
            "what": "mean payoff per hand (stakes) of the bot's seat against heuristic in every "
            "other seat, duplicate deals with every rotation, seed 0, 95% interval over deals",
            "command": f"python benchmarks/universal_table.py --bot {args.bot} "
            f"--deals {cells[0]['deals']} --json table.json",
            "games_above_zero": f"{above} of {len(cells)}",
            "cells": cells,
        }
        summary.append(f"{card['table']['games_above_zero']} games above 0 against heuristic")
    card["bench"] = {}
    for item in args.bench:
        name, _, file = item.partition("=")
        card["bench"][name] = bench_entry(Path(file))
    if args.speed:
        speed = json.loads(args.speed.read_text(encoding="utf-8"))
        card["bench"]["speed"] = {
            "command": f"python benchmarks/onnx_speed.py --bot {args.bot} --game {speed['game']}",
            **speed,
        }
    if args.exploit:
        card["exploitability"] = exploit_entry(args.exploit)
        summary.append(f"a best response wins {card['exploitability']['mean_payoff']:+.3f}")
    with atomic_output(args.out) as f:
        json.dump(card, f, indent=2)
        f.write("\n")
    print("; ".join(summary))


if __name__ == "__main__":
    main()
