"""One bot for every game: observation v2's layout, the game mix, and a universal bot's file,
specs and seat at the real ``spar play`` (no-leak and policy-input checks of v2 sit beside
v1's, in test_observe and test_ppo; exact resume of a mix in test_ppo)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from test_observe import random_states
from test_play import finish, spawn

import spar_env.observation.universal as universal_observation
from spar_agents import make_agent
from spar_agents.base import Situation
from spar_apps.table.voice import Voice, say_phrase
from spar_env.history import History
from spar_env.observation.per_game import encode, layout_for
from spar_env.observation.universal import NUM_ACTIONS_V2, OBS_V2_SIZE, OFFSETS, encode_v2, view_for
from spar_env.rules import PRESETS, make_rules
from spar_train.config import ConfigError, load_config
from spar_train.games import mix_games, shares

ROOT = Path(__file__).resolve().parents[1]
PLAY_PRESETS = [name for name in PRESETS if name not in ("mini", "micro")]
GAMES = [
    (v, n) for v in PLAY_PRESETS for n in range(2, min(make_rules(v, players=2).max_players, 7) + 1)
]
MIX = (
    'game.mix=[{variant = "spar", players = [2, 3]}, {variant = "sipa", players = 3}, '
    '{variant = "spar", players = 4, options = {weak_hand_exchange = true}, weight = 0.5}]'
)


def test_the_docstring_table_is_the_layout() -> None:
    rows = re.findall(r"^(\w+)\s+\S+\s+(\d+)\s{2,}\S", universal_observation.__doc__, re.M)
    assert dict((name, int(off)) for name, off in rows) == OFFSETS
    assert f"``D = {OBS_V2_SIZE}``" in universal_observation.__doc__


@pytest.mark.parametrize(("variant", "players"), GAMES, ids=[f"{v}{n}" for v, n in GAMES])
def test_every_play_preset_at_every_player_count_fits_v2_which_carries_all_of_v1(
    variant: str, players: int
) -> None:
    rules = make_rules(variant, players=players)
    view, layout = view_for(rules), layout_for(rules)
    src, dst = view.column_map
    assert sorted(set(src.tolist())) == list(range(layout.size))  # every v1 entry moves to v2
    state = random_states(rules, 16, np.random.default_rng(players))
    rules_at = OFFSETS["seat_in_game"]
    for seat in range(players):
        v1, v2 = encode(state, seat), encode_v2(state, seat)
        assert v2.shape == (16, OBS_V2_SIZE) and v2.dtype == np.uint8
        np.testing.assert_array_equal(v2[:, dst], v1[:, src])
        np.testing.assert_array_equal(v2[:, rules_at:], np.broadcast_to(view.constants[rules_at:],
                                                                         (16, OBS_V2_SIZE - rules_at)))  # fmt: skip
    hand = v2[:, OFFSETS["hand"] : OFFSETS["hand"] + 48]
    assert (hand.sum(axis=1) <= rules.hand_size).all()
    # The action grid: the v2 mask is the game's mask moved, and back again.
    mask = view.mask(state.legal)
    game_mask = state.legal  # bit sets
    assert mask.shape == (16, NUM_ACTIONS_V2)
    from spar_env.core import unpack

    np.testing.assert_array_equal(mask[:, view.action_of], unpack(game_mask, rules.num_actions))
    assert mask.sum() == unpack(game_mask, rules.num_actions).sum()
    np.testing.assert_array_equal(unpack(view.legal(game_mask), NUM_ACTIONS_V2), mask)
    actions = np.arange(rules.num_actions)
    np.testing.assert_array_equal(view.to_game(view.action_of[actions]), actions)


def test_the_rules_block_tells_the_games_apart() -> None:
    rows = {
        (v, n): view_for(make_rules(v, players=n)).constants[OFFSETS["seat_in_game"] :].tobytes()
        for v, n in GAMES
    }
    assert len(set(rows.values())) == len(GAMES)
    spar = view_for(make_rules("spar"))
    six_of_hearts = universal_observation.universal_card(
        make_rules("spar"), make_rules("spar").card_id("6H")
    )
    assert spar.constants[OFFSETS["card_points"] + six_of_hearts] == 3


def test_a_game_v2_cannot_hold_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 8 cards"):
        view_for(make_rules("spar", players=2, hand_size=9))


def test_a_mix_names_its_games_and_shares_the_rollout_out() -> None:
    config = load_config(ROOT / "configs" / "ppo_universal.toml")
    names = [g.name for g in mix_games(config)]
    assert len(names) == 49 and {"spar4", "sipa6", "agram_mali5", "spar4_end_target_5"} <= set(
        names
    )
    assert shares(10, [1.0, 1.0, 2.0]) == [3, 3, 4]
    assert sum(shares(6144, [1.0] * 49)) == 6144


@pytest.mark.parametrize(
    ("mix", "message"),
    [
        ('[{variant = "spar", players = 9}]', r"game.mix\[0\]: spar allows at most 7"),
        ('[{variant = "spar", players = "many"}]', r"game.mix\[0\].players: must be"),
        ('[{variant = "spar", weight = -1}]', r"game.mix\[0\].weight: must be a positive"),
        ('[{variant = "spar", colour = 1}]', r"game.mix\[0\].colour: unknown key"),
        (
            '[{variant = "spar", weight = inf}]',
            r"game.mix\[0\].weight: must be a positive number of",
        ),
        (
            "[{players = 2, weight = 1e308}, {players = 3, weight = 1e308}]",
            r"game.mix\[0\].weight: .* at most 1e\+06; got 1e\+308",
        ),
        (
            '[{variant = "sipa", options = {players = 3}}]',
            r"game.mix\[0\].options.players: give players beside options",
        ),
        # the first entry's players are ppo_tiny's own (2): [game] gives a mix's defaults
        ('[{variant = "spar"}, {variant = "spar", players = [2]}]', "spar2 is listed twice"),
    ],
)
def test_a_bad_mix_is_one_line_naming_the_entry(mix: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(ROOT / "configs" / "ppo_tiny.toml", [f"game.mix={mix}"])


@pytest.fixture(scope="module")
def universal_bot(tmp_path_factory) -> tuple[Path, Path]:
    """A tiny universal run through `spar train` (two updates over four games), its exported
    bot, and what the command printed."""
    import contextlib
    import io

    from spar_agents.export.writer import export_checkpoint
    from spar_apps.cli import main

    runs = tmp_path_factory.mktemp("runs")
    overrides = [MIX, "run.updates=2", "warmstart.updates=1", 'eval.opponents=["heuristic"]',
                 "eval.deals=10"]  # fmt: skip
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        code = main(["train", str(ROOT / "configs" / "ppo_tiny.toml"), "--name", "mix",
                     "--runs-dir", str(runs), *[f"--set={o}" for o in overrides]])  # fmt: skip
    assert code == 0, said.getvalue()
    assert "evaluation after update 2" in said.getvalue()  # the summary of a mix
    config = load_config(ROOT / "configs" / "ppo_tiny.toml", overrides)
    assert {g.name for g in mix_games(config)} == {"spar2", "spar3", "sipa3",
                                                   "spar4_weak_hand_exchange_true"}  # fmt: skip
    bot = runs / "mix.onnx"
    bot.write_bytes(export_checkpoint(runs / "mix").data)
    return runs / "mix", bot


def test_the_run_logs_every_game_against_heuristic(universal_bot) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(universal_bot[0]))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for name in ("spar2", "spar3", "sipa3", "spar4_weak_hand_exchange_true"):
        assert f"eval/{name}/payoff_vs_heuristic" in tags


@pytest.mark.parametrize("kind", ["ppo", "onnx"])
def test_a_universal_bot_plays_every_game_it_covers_and_refuses_others(
    universal_bot, kind: str
) -> None:
    path = universal_bot[0] if kind == "ppo" else universal_bot[1]
    rng = np.random.default_rng(0)
    for rules in (make_rules("spar", players=3), make_rules("spar", weak_hand_exchange=True)):
        agent = make_agent(f"{kind}:{path}", rules)
        state = random_states(rules, 64, rng)
        live = np.flatnonzero(~state.terminated)
        situation = Situation(state, History(state), live)
        decision = agent.act(situation, rng)
        assert situation.mask[np.arange(live.size), decision.actions].all()
        assert decision.probs.shape == (live.size, rules.num_actions)
        np.testing.assert_allclose(decision.probs.sum(axis=1), 1, atol=1e-5)
    with pytest.raises(ValueError, match=r"covers 4 games .* but not sipa with 4 players$"):
        make_agent(f"{kind}:{path}", make_rules("sipa", players=4))


def test_the_onnx_bot_gives_the_checkpoints_probabilities(universal_bot) -> None:
    rules = make_rules("sipa", players=3)
    state = random_states(rules, 64, np.random.default_rng(5))
    situation = Situation(state, History(state), np.flatnonzero(~state.terminated))
    rng = np.random.default_rng(0)
    ppo = make_agent(f"ppo:{universal_bot[0]}", rules).act(situation, rng)
    onnx = make_agent(f"onnx:{universal_bot[1]}", rules).act(situation, rng)
    np.testing.assert_allclose(onnx.probs, ppo.probs, atol=1e-5)


def test_the_table_has_every_cell_and_its_command_gives_its_figure(universal_bot, capsys) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import universal_table

    from spar_apps.cli import main

    every = universal_table.cells()
    assert len(every) == len(set(every)) == len(GAMES) + 5
    assert ("spar", 4, ("end=target:15",)) in every and ("agram_mali", 5, ()) in every
    bot = f"onnx:{universal_bot[1]}"
    (row,) = universal_table.run(bot, 30, [("spar", 3, ())])
    assert row["command"] == (
        f"spar bench {bot} heuristic heuristic --variant spar --players 3 --deals 30 --seed 0"
    )
    assert main([*row["command"].split()[1:], "--json"]) == 0
    out = capsys.readouterr().out
    figures = json.loads(out[out.index("{") : out.rindex("}") + 1])
    assert figures["agents"][0]["mean_payoff"] == pytest.approx(row["mean_payoff"])
    assert "| spar | 3 |" in universal_table.markdown([row])


def test_spar_export_checks_and_writes_a_universal_bot(universal_bot, tmp_path, capsys) -> None:
    from spar_apps.cli import main

    out = tmp_path / "u.onnx"
    assert main(["export", str(universal_bot[0]), "--out", str(out), "--check", "256"]) == 0
    said = capsys.readouterr().out
    assert "a universal bot for 4 games (spar with 2-3 players; sipa with 3 players;" in said
    assert out.read_bytes() == universal_bot[1].read_bytes()


SHIPPED_UNIVERSAL = ROOT / "checkpoints" / "universal.onnx"


def test_every_game_the_shipped_universal_bot_covers_is_seated_with_a_shipped_bot() -> None:
    from spar_agents.export.bot import load_session
    from spar_agents.export.metadata import signature_of
    from spar_agents.signature import rules_of
    from spar_apps.cli.play import _default_spec

    meta = load_session(SHIPPED_UNIVERSAL, "bot").get_modelmeta().custom_metadata_map
    games = signature_of(meta, "bot")["games"]
    assert len(games) == len(GAMES) + 5  # every play preset and count, and the spar options
    specialists = {  # the shipped bot that wins more matches than the universal bot there
        (2, "spar"): "onnx:exit2",
        (4, "spar"): "onnx:exit4",
    }
    for game in games:
        rules = rules_of({"games": [game]})
        spec, note = _default_spec(rules)
        plain = set(game["options"]) <= {"end"}  # the match bot plays spar to any end
        seated = specialists.get((game["players"], game["variant"]), "onnx:universal")
        assert (spec, note) == (seated if plain else "onnx:universal", None), game
    for end in ("target:20", "stones:30", "hands:5"):  # a covered game, to any end
        assert _default_spec(make_rules("spar", players=4, end=end))[0] == "onnx:exit4"
        assert _default_spec(make_rules("spar", players=2, end=end))[0] == "onnx:exit2"
        assert _default_spec(make_rules("spar", players=3, end=end))[0] == "onnx:universal"
    assert _default_spec(make_rules("spar", players=4, last_two="bonus"))[0] == "heuristic"


@pytest.mark.parametrize(
    ("args", "seats"),
    [
        (("--players", "3"), "seats 1, 2"),
        (("--variant", "sipa"), "seats 1, 2, 3"),
        (("--variant", "jeu_de_carte", "--players", "2"), "seat 1"),
        (("--set", "ace_of_spades=true"), "seats 1, 2, 3"),
    ],
)
def test_spar_play_seats_the_shipped_universal_bot_and_never_falls_back(args, seats) -> None:
    """The real `spar play` with no --opponents, in games other than 4-player spar: the
    shipped universal bot holds every other seat through a whole hand."""
    child = spawn(*args, "--seed", "5")
    found = child.expect(
        [rf"{seats}: the built-in bot \(onnx:universal\)", "your opponents are heuristic"]
    )
    assert found == 0
    while child.expect(["your card: ", "Enter for the next hand"]) == 0:
        child.sendline("1")
    child.sendline("q")
    child.expect("final scores")
    assert finish(child) == 0


def test_the_shipped_universal_bot_plays_each_game_through_its_own_graph() -> None:
    """The game's own graph (v1 in, the game's actions out) gives the v2 graph's policy."""
    from spar_agents.export.bot import OnnxAgent, load_session
    from spar_agents.export.metadata import signature_of
    from spar_agents.signature import rules_of

    session = load_session(SHIPPED_UNIVERSAL, "bot")
    games = signature_of(session.get_modelmeta().custom_metadata_map, "bot")["games"]
    rng = np.random.default_rng(1)
    for game in games:
        rules = rules_of({"games": [game]})
        fast = OnnxAgent.from_path(rules, SHIPPED_UNIVERSAL)
        assert fast.game_session is not None
        state = random_states(rules, 48, rng)
        situation = Situation(state, History(state), np.flatnonzero(~state.terminated))
        probs = fast.act(situation, rng).probs
        view = view_for(rules)
        through_v2 = view.game_probs(fast.probs(*view.inputs(situation)))
        np.testing.assert_allclose(probs, through_v2, atol=1e-5, err_msg=str(game))
        assert probs.shape == (situation.games.size, rules.num_actions)
        slow = OnnxAgent(rules, session).act(situation, rng).probs  # no file: observation v2
        np.testing.assert_allclose(slow, through_v2, atol=1e-6)


def test_a_universal_bot_whose_graph_is_not_an_exported_actor_is_refused(tmp_path) -> None:
    import onnx

    model = onnx.load(SHIPPED_UNIVERSAL)
    for tensor in model.graph.initializer:  # a graph rewritten by another tool
        if tensor.name == "model.actor.0.bias":
            tensor.name = "first_bias"
    for node in model.graph.node:
        node.input[:] = ["first_bias" if i == "model.actor.0.bias" else i for i in node.input]
    bot = tmp_path / "renamed.onnx"
    onnx.save(model, bot)
    with pytest.raises(ValueError, match=r"renamed.onnx: not the graph of an exported actor$"):
        make_agent(f"onnx:{bot}", make_rules("sipa", players=3))


def test_the_web_tables_shipped_opponent_is_the_shipped_bot_trained_for_the_game() -> None:
    from spar_agents.shipped import default_bot_specs
    from spar_apps.web import Lobby

    lobby = Lobby(default_bot_specs())
    for form, spec in (
        ({"variant": "spar", "players": 4}, "onnx:exit4"),  # the search-loop bots, where they play
        ({"variant": "sipa", "players": 3}, "onnx:universal"),
        ({"variant": "spar", "players": 4, "ace_of_spades": True}, "onnx:universal"),
        ({"variant": "jeu_de_carte", "players": 2}, "onnx:universal"),
        ({"variant": "spar", "players": 2}, "onnx:exit2"),  # the search-loop bot, where it plays
        ({"variant": "spar", "players": 2, "end": "target:15"}, "onnx:exit2"),
    ):
        setup = lobby.setup({**form, "opponents": "shipped"})
        lineup = say_phrase(setup.lineup, "en")
        assert setup.note is None and lineup == f"the built-in bot ({spec})", form
        assert setup.hint is setup.bots[1]  # the seated bot gives the hints too
    setup = lobby.setup({"variant": "mini", "opponents": "shipped"})
    assert say_phrase(setup.lineup, "en") == "heuristic: the rule-based expert"
    note = Voice(setup.rules, "en").text(setup.note)
    assert note == "no built-in bot plays Mini with 2 players; your opponents are heuristic"


def test_the_web_tables_search_plays_with_the_policy_of_the_shipped_bot_for_the_game() -> None:
    """Search takes its policy from the first shipped bot that plays the game, the universal
    bot before the 4-player bots trained on from it: the search-loop bot at 2 players, the
    universal bot at 3 (it once asked the two-player bot for every game, and a 3-player game
    with search could not start) and at 4, where search with the match bot's policy lost to
    search with the universal bot's on duplicate deals (benchmarks/README.md), and search
    with the 4-player search-loop bot's, seated there, did no better."""
    from spar_agents.search import SearchAgent
    from spar_agents.shipped import default_bot_specs
    from spar_apps.web import Lobby
    from spar_apps.web.lobby import FormError

    lobby = Lobby(default_bot_specs(), think=0.1)
    for players, policy in ((2, "onnx:exit2"), (3, "onnx:universal"), (4, "onnx:universal")):
        setup = lobby.setup({"variant": "spar", "players": players, "opponents": "search"})
        assert isinstance(setup.bots[1], SearchAgent) and setup.searching
        assert say_phrase(setup.lineup, "en") == "search: the strongest bot (up to 0.1 s a move)"
        built = [spec for spec, rules in lobby._agents if rules == setup.rules]
        assert f"search:policy={policy},time_limit=0.1" in built, built
    with pytest.raises(FormError, match="opponents search: search"):
        lobby.setup({"variant": "mini", "opponents": "search"})  # no shipped bot plays mini


def test_the_card_is_built_from_the_run_and_the_benchmarks_commands(
    universal_bot, tmp_path, capsys
) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bot_card
    import universal_table

    from spar_apps.cli import main

    run, bot = universal_bot
    rows = universal_table.run(f"onnx:{bot}", 20, [("spar", 3, ())])
    (tmp_path / "table.json").write_text(json.dumps(rows))
    lineup = [f"onnx:{bot}", "heuristic", "heuristic"]
    argv = ["bench", *lineup, "--variant", "spar", "--players", "3", "--deals", "20", "--seed", "0"]
    assert main([*argv, "--json"]) == 0
    (tmp_path / "bench.json").write_text(capsys.readouterr().out)
    card_file = tmp_path / "card.json"
    bot_card.main(["--run", str(run), "--bot", str(bot), "--table", str(tmp_path / "table.json"),
                         "--bench", f"heuristic={tmp_path / 'bench.json'}", "--machine", "here",
                         "--out", str(card_file)])  # fmt: skip
    card = json.loads(card_file.read_text())
    assert card["trained"]["update"] == 2 and card["trained"]["config"]["game"]["mix"]
    assert len(card["games"]) == 4 and card["game"].startswith("4 games, every one it covers")
    assert card["table"]["games_above_zero"] == f"{int(rows[0]['above_zero'])} of 1"
    entry = card["bench"]["heuristic"]
    assert entry["command"] == "spar " + " ".join(argv)  # the command that gives the figure
    assert entry["mean_payoff"] == pytest.approx(rows[0]["mean_payoff"], abs=1e-4)
    assert card["inputs"].endswith(
        "it plays through that game's own graph (agents/export/specialise.py)"
    )


def test_the_card_carries_a_match_bench_and_the_command_that_trained_the_bot(
    universal_bot, tmp_path, capsys
) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bot_card

    from spar_apps.cli import main

    run, bot = universal_bot
    lineup = [f"onnx:{bot}", "heuristic", "heuristic"]
    argv = ["bench", *lineup, "--variant", "spar", "--players", "3", "--set", "end=target:5",
            "--matches", "4", "--seed", "0"]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    (tmp_path / "matches.json").write_text(json.dumps(found))
    card_file = tmp_path / "card.json"
    trained_by = "spar train ppo_universal --name mine --set run.updates=2"
    bot_card.main(["--run", str(run), "--bot", str(bot), "--trained-by", trained_by,
                   "--bench", f"matches={tmp_path / 'matches.json'}", "--out", str(card_file)])  # fmt: skip
    card = json.loads(card_file.read_text())
    assert card["trained"]["command"] == trained_by
    entry = card["bench"]["matches"]
    assert entry["command"] == "spar " + " ".join(argv)  # the command that gives the figure
    first = found["agents"][0]
    assert entry["match_share"] == pytest.approx(first["match_share"], abs=1e-4)
    assert entry["matches"] == 4 * 3 and entry["end"] == "target:5"  # every rotation
    assert entry["ci95"][0] <= entry["match_share"] <= entry["ci95"][1]
    assert entry["mean_payoff"] == pytest.approx(first["mean_payoff"], abs=1e-4)


def test_the_card_of_a_bot_without_a_table_carries_its_best_responses_figure(
    universal_bot, tmp_path, capsys
) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bot_card

    from spar_apps.cli import main

    run, bot = universal_bot
    tiny = ["--set", "rollout.games=64", "--set", "model.hidden=16,16", "--set", "eval.deals=20",
            "--set", "ppo.minibatch_size=256", "--set", "warmstart.updates=1"]  # fmt: skip
    argv = ["exploit", f"onnx:{bot}", "--variant", "spar", "--players", "3", "--updates", "1",
            "--warm-start", "heuristic", "--deals", "20", "--deals-seed", "1", "--seed", "0"]  # fmt: skip
    assert main([*argv, *tiny, "--runs-dir", str(tmp_path / "runs"), "--name", "br"]) == 0
    capsys.readouterr()
    found = json.loads((tmp_path / "runs" / "br" / "exploit.json").read_text())
    card_file = tmp_path / "card.json"
    bot_card.main(["--run", str(run), "--bot", str(bot), "--exploit", str(tmp_path / "runs" / "br"),
                   "--out", str(card_file)])  # fmt: skip
    card = json.loads(card_file.read_text())
    assert "table" not in card and card["bench"] == {}
    entry = card["exploitability"]
    assert entry["command"] == "spar " + " ".join(argv)  # the command that gives the figure
    assert entry["mean_payoff"] == pytest.approx(found["mean_payoff"], abs=1e-4)
    assert entry["updates"] == 1 and entry["deals"] == 20
    assert capsys.readouterr().out.endswith(f"a best response wins {entry['mean_payoff']:+.3f}\n")
    with pytest.raises(SystemExit):  # a per-game (v1) bot: the card's text would be wrong
        bot_card.main(["--run", str(run), "--bot", str(ROOT / "checkpoints" / "spar4.onnx"),
                       "--out", str(tmp_path / "v1.json")])  # fmt: skip
    assert "observation v1; this script writes the cards of observation-v2 bots" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "v1.json").exists()


def test_the_game_graph_masks_illegal_actions_as_the_network_does() -> None:
    from spar_agents.export import specialise
    from spar_agents.ppo import network

    assert specialise.ILLEGAL_LOGIT == network.ILLEGAL_LOGIT


def test_the_curves_of_a_mix_run_show_each_game(universal_bot, tmp_path, monkeypatch) -> None:
    import warnings

    import matplotlib.pyplot as plt

    from spar_train.curves import plot_run, read_scalars

    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: figures.append(fig) or close(fig))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty panel's legend warns
        out = plot_run(universal_bot[0], tmp_path / "curves.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    overall, each_game = figures[0].axes
    assert [line.get_label() for line in overall.get_lines()][:1] == ["vs heuristic"]
    assert each_game.get_title() == "each game vs heuristic"
    # one curve per game of the mix, one colour (and one legend entry) per variant
    scalars = read_scalars(universal_bot[0])
    lines = each_game.get_lines()
    assert len(lines) == 4 + 1  # the four games and the zero line
    for game in ("spar2", "spar3", "sipa3", "spar4_weak_hand_exchange_true"):
        steps, mean = scalars[f"eval/{game}/payoff_vs_heuristic"]
        assert (
            sum(
                np.array_equal(line.get_xdata(), steps) and np.array_equal(line.get_ydata(), mean)
                for line in lines
            )
            == 1
        ), game
    legend = [text.get_text() for text in each_game.get_legend().get_texts()]
    assert legend == ["sipa", "spar"]


def test_a_universal_bot_plays_4_player_spar_when_no_game_is_named(universal_bot) -> None:
    """The default game where the bot covers it (the shipped bot), else its first game."""
    from spar_agents.registry.spec import spec_rules

    assert spec_rules(f"onnx:{SHIPPED_UNIVERSAL}") == make_rules("spar")
    assert spec_rules(f"onnx:{universal_bot[1]}") == make_rules("spar", players=2)  # no spar4


def test_a_web_table_without_shipped_bots_offers_the_others() -> None:
    from spar_apps.web import Lobby

    lobby = Lobby([])
    assert [o["id"] for o in lobby.offer()["opponents"]] == ["heuristic", "pimc"]
