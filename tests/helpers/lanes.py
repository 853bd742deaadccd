"""The test lanes: which tests are slow, and which touch Gymnasium or Ray, kept in one place.

``tests/conftest.py`` marks the collected tests from here, so no test module needs a line of
its own:

- ``slow``: a test listed in :data:`SLOW` (a module, or one test of a module with all its
  parameters). ``python -m pytest -n auto -m "not slow"`` is the fast lane; CI runs every
  test.
- ``gym_ray``: every test of a module that imports Gymnasium, PettingZoo, Ray or a library
  built on them (:data:`LIBRARIES`) at its top, or skips without one; elsewhere, a test
  that names one of :data:`GYM_RAY` in what it runs: its code, its parameters (a command
  line), the fixtures it takes, and every name of tests/ these use, at any depth (a helper,
  a constant, an import line); a manual's example by its own code alone
  (:data:`BY_PARAMETERS`). The RLlib virtual environment (``.ci/rllib``), whose Ray pins
  its own Gymnasium, runs these.

A test that takes tens of seconds, or starts a browser, Ray or a training run of more than
a few updates, goes in :data:`SLOW`, with where its time goes.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# Node id -> where its time goes: a module, "module::test" (with all its parameters), or
# "module::test[parameters]" (one case).
# "spar in a subprocess": each start imports torch and loads Numba's cache (seconds).
SLOW: dict[str, str] = {
    # Browsers: a Chromium page plays whole hands against a spar serve.
    "tests/test_web_browser.py": "a browser plays whole hands on spar serve",
    "tests/test_friends_browser.py": "browsers play a table of friends on spar serve",
    "tests/test_duplicate_browser.py": "a browser plays a duplicate match on spar serve",
    "tests/test_web_people.py": "a browser on spar serve, people at the tables",
    # Ray: a local Ray (seconds to start), its actors import torch and train.
    "tests/test_ray.py": "a local Ray; benches and PPO runs on its actors, killed workers",
    # Load tests: many clients against a real server.
    "tests/test_web_load.py": "the web load benchmark, real restarts of spar serve",
    "tests/test_friends_load.py": "the friends load benchmark: many live connections",
    "tests/test_idle_sockets.py": "the silent-sockets benchmark: spar serve, 7 s of them",
    "tests/test_web_sockets.py::test_silent_sockets_past_the_file_limit_leave_the_server_answering_and_are_closed": "spar serve in a subprocess, its 5 s hello deadline",
    # Training runs end to end, mostly through spar in a subprocess.
    "tests/test_scaling_script.py": "benchmarks/scaling.py trains every case",
    "tests/test_same_training.py": "trains every case of the reference runs, bit for bit",
    "tests/test_train_cli.py": "spar train in subprocesses: runs, resumes, exports, solves",
    "tests/test_mix_identity.py": "spar train of a game mix in subprocesses, resumed",
    "tests/test_maskable_ppo.py": "Stable-Baselines3's MaskablePPO trains on the env",
    "tests/test_crash_safety.py::test_a_run_killed_anywhere_and_resumed_ends_as_an_unbroken_one": "runs killed at every step and resumed, in subprocesses",
    "tests/test_league.py::test_the_another_game_tutorial_runs_with_small_sizes": "the tutorial's commands: trains, solves and benches",
    "tests/test_ppo.py::test_ppo_learns_to_beat_random_in_two_player_spar": "30 updates of 512 games, evaluated on 1,500 deals",
    "tests/test_ppo.py::test_a_stopped_and_resumed_run_ends_with_the_same_weights_bit_for_bit": "three tiny runs, stopped and resumed",
    "tests/test_run_folders.py::test_a_run_killed_before_its_first_checkpoint_resumes_from_the_beginning": "spar train killed in a subprocess, then resumed",
    "tests/test_run_folders.py::test_a_second_process_is_refused_while_one_trains_and_a_killed_one_does_not_block": "two spar train subprocesses, one killed",
    "tests/test_run_folders.py::test_resume_of_a_smaller_network_through_spar": "spar train twice",
    "tests/test_run_folders.py::test_a_missing_eval_opponent_file_is_refused_before_training": "spar train in subprocesses",
    "tests/test_overlap.py::test_a_killed_overlapped_run_says_one_line_and_its_worker_none": "spar train with the overlap, killed, in a subprocess",
    "tests/test_overlap.py::test_a_killed_rollout_worker_is_replaced_and_the_run_goes_on": "a run with worker processes, one killed",
    "tests/test_overlap.py::test_a_script_without_a_main_guard_trains_with_the_overlap": "a user's script trains with worker processes, in a subprocess",
    "tests/test_overlap.py::test_an_overlapped_run_is_fixed_by_its_seed_and_resumes_exactly": "overlapped runs, stopped and resumed",
    "tests/test_overlap.py::test_a_killed_worker_is_replaced_and_one_that_keeps_dying_stops_the_run": "runs with worker processes, killed",
    "tests/test_workers.py::test_a_run_on_workers_stopped_and_resumed_is_the_run_never_stopped": "runs on worker processes, stopped and resumed",
    "tests/test_workers.py::test_the_learners_wait_is_split_into_the_workers_time_and_the_transfer": "a run on worker processes",
    "tests/test_workers.py::test_an_overlapped_checkpoint_of_the_older_form_resumes_exactly": "overlapped runs, resumed",
    "tests/test_served.py::test_the_learner_answering_the_workers_plays_the_run_they_play_answering_themselves": "runs on worker processes, twice each",
    "tests/test_served.py::test_a_killed_worker_is_replaced_while_the_learner_answers_and_nothing_is_lost": "runs on worker processes, one killed",
    "tests/test_search_loop.py::test_on_rollout_workers_each_searches_its_share_and_a_seed_still_fixes_the_run": "runs that search on worker processes",
    "tests/test_mmd.py::test_the_exact_curves_benchmark_runs_and_draws": "a benchmark script trains and plots",
    # spar (or a server, a notebook, an example) in a subprocess, many times.
    "tests/test_notebooks.py::test_notebook_runs": "a Jupyter kernel per notebook; they train",
    "tests/test_readme.py::test_example_runs_in_a_fresh_interpreter": "each example in a fresh interpreter; Tianshou and MaskablePPO train",
    "tests/test_review.py::test_the_manuals_review_commands_run_and_print_what_it_shows": "the manual's spar commands, each in a subprocess",
    "tests/test_universal.py::test_spar_play_seats_the_shipped_universal_bot_and_never_falls_back": "spar play on a pty, four times",
    "tests/test_shipped.py::test_spar_play_takes_the_game_of_its_opponent": "spar play on a pty",
    "tests/test_play.py::test_spar_play_against_the_shipped_bot_or_heuristic_where_it_does_not_fit": "spar play on a pty",
    "tests/test_play.py::test_spar_play_reviews_the_hand_just_played_with_the_v_key": "spar play on a pty",
    "tests/test_user_folder.py::test_spar_train_bench_and_play": "spar train, bench and play from a user's folder, in subprocesses",
    "tests/test_user_folder.py::test_spar_serve": "spar serve in a subprocess",
    "tests/test_web_input.py::test_spar_serve_bad_arguments_are_one_line": "spar serve in a subprocess per argument",
    "tests/test_web_input.py::test_a_bind_beyond_this_machine_warns": "spar serve in a subprocess",
    "tests/test_web_input.py::test_spar_serve_prints_its_address_serves_the_page_and_stops_on_ctrl_c": "spar serve in a subprocess",
    "tests/test_web_wire.py::test_no_hidden_card_in_any_message_over_a_thousand_hands": "a thousand hands over the web table's wire",
    "tests/test_friends_wire.py::test_a_whole_match_sends_each_seat_only_cards_it_may_know": "whole matches over live connections",
    "tests/test_friends_wire.py::test_the_exchange_and_the_turned_up_stock_card_stay_hidden_over_two_matches": "two matches over live connections",
    "tests/test_run_guards.py::test_sizes_past_the_limits_are_refused": "spar in a subprocess with capped memory, per command",
    "tests/test_run_guards.py::test_an_unreachable_ray_cluster_is_given_up": "spar in a subprocess waits for a Ray address that never answers",
    "tests/test_run_guards.py::test_a_huge_file_is_refused_by_its_size": "spar in a subprocess with capped memory, per command",
    "tests/test_run_guards.py::test_a_line_without_end_is_refused": "spar in a subprocess with capped memory, per command",
    "tests/test_run_guards.py::test_a_resume_whose_config_changed_the_saved_state_names_the_key": "tiny runs, resumed with another config",
    "tests/test_run_guards.py::test_a_huge_bot_or_policy_file_is_refused_by_its_size": "spar in a subprocess with capped memory, per command",
    # More of the same, found by the measurements of the fast lane.
    "tests/test_phone_browser.py": "a browser the size of a phone plays on spar serve",
    "tests/test_exploit.py::test_a_tiny_best_response_trains_benches_logs_and_resumes": "a best response trains, benches and resumes",
    "tests/test_workers.py::test_a_seed_and_a_worker_count_give_the_same_checkpoints_twice": "three runs on worker processes",
    "tests/test_workers.py::test_a_killed_worker_is_replaced_and_the_run_loses_nothing": "runs on worker processes, one killed",
    "tests/test_workers.py::test_a_checkpoint_resumes_only_with_the_workers_that_played_its_games": "runs on worker processes, resumed",
    "tests/test_figures.py::test_measure_reruns_the_entrys_own_command": "a benchmark's own command, rerun",
    "tests/test_compile_cache.py::test_an_edit_to_a_helper_reaches_the_cached_kernel_that_inlines_it": "four interpreters, each compiling or loading a kernel",
    "tests/test_explain.py::test_the_manuals_spar_rules_commands_run_and_print_what_it_shows": "the manual's spar commands, each in a subprocess",
    "tests/test_search_loop.py::test_the_search_loop_page_commands_run_with_small_sizes": "the manual's spar commands, each in a subprocess; they train",
    "tests/test_match.py::test_the_match_page_commands_run_with_small_sizes": "the manual's spar commands, each in a subprocess",
    "tests/test_duplicate.py::test_the_manuals_duplicate_section_runs_as_written": "the manual's spar commands, each in a subprocess",
    "tests/test_duplicate.py::test_spar_play_duplicate_in_a_terminal": "spar play on a pty",
    "tests/test_cli.py::test_console_script_record_pipe_replay": "spar record | spar replay",
    "tests/test_export.py::test_the_onnx_agent_plays_a_bench_without_importing_torch": "a bench in a subprocess that blocks torch",
    "tests/test_extras.py::test_without_ray_the_ray_option_names_the_ray_extra": "spar in a subprocess, from a site without the extras",
    "tests/test_extras.py::test_without_onnx_export_says_the_install_is_broken": "spar in a subprocess, from a site without onnx",
    "tests/test_extras.py::test_the_commands_run_without_any_extra": "spar commands in subprocesses, from a site without the extras",
    "tests/test_friends_wire.py::test_a_restarted_server_takes_up_a_table_and_its_people_come_back_with_their_links": "spar serve started, stopped and started again",
    "tests/test_friends_wire.py::test_the_records_of_a_table_replay": "a whole table over live connections, then spar replay",
    "tests/test_friends_pause.py::test_a_table_everyone_left_deals_no_hand_until_someone_comes_back_over_the_wire": "spar serve; waits out its 5 s turn timer three times",
    "tests/test_state_folder.py::test_sweep_of_hostile_state_folders[a 3 GiB game]": "a 3 GiB file written and refused",
    "tests/test_state_folder.py::test_sweep_of_hostile_state_folders[a 3 GiB table]": "a 3 GiB file written and refused",
    "tests/test_hostile_files.py::test_a_hostile_file_does_no_harm[checkpoint-huge-a 5 GiB file]": "a 5 GiB file written and refused",
    "tests/test_hostile_files.py::test_a_hostile_file_does_no_harm[config-nesting-an array nested 100,000 deep]": "an array nested 100,000 deep, parsed and refused",
}

# A test touches Gymnasium or Ray where what it runs names one of these.
GYM_RAY = re.compile(
    r"\b(gymnasium|gym\.make|make_vec|pettingzoo|raw_env|SparEnv|SparVectorEnv|SelfPlay"
    r"|register_envs|ray|rllib|stable_baselines3|sb3_contrib|MaskablePPO|tianshou)\b"
    r"|spar_env\.env\(|spar_env\.envs(\.aec|\.single|\.vector)?\s+import"  # the envs' modules
)
# The lanes' own tests: they hold the names above as text, and touch none of them.
NOT_TOUCHING = {"test_lanes.py"}
# Tests that run the code they are given (a manual's example): judged by that code alone, as
# the runner around it is the same for all (and names Ray for the examples that need it).
BY_PARAMETERS = {"test_readme.py": "test_example_runs_in_a_fresh_interpreter"}
# A module that imports one of these at its top (or skips without it) is touched whole.
LIBRARIES = {"gymnasium", "pettingzoo", "ray", "stable_baselines3", "sb3_contrib", "tianshou"}
_LOCAL = ("helpers", "test_", "friends_clients", "conftest")  # modules of tests/
_SKIPS = re.compile(r"importorskip\(\s*[\"'](\w+)")


def is_slow(nodeid: str) -> bool:
    """Whether ``nodeid`` (as pytest writes it, from the repository root) is listed slow."""
    for listed in SLOW:
        if nodeid == listed or nodeid.startswith((f"{listed}::", f"{listed}[")):
            return True
    return False


@functools.cache
def _names(path: Path) -> dict[str, tuple[str, Path | None, str]]:
    """A module of tests/ by top-level name: ``name -> (its source, module it comes from,
    its name there)``; the module is ``None`` where the name is defined here or imported
    from outside tests/ (then the source is the import line, which names the library)."""
    text = path.read_text(encoding="utf-8")
    names: dict[str, tuple[str, Path | None, str]] = {}
    for node in ast.parse(text).body:
        source = ast.get_source_segment(text, node) or ""
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                if module and module.startswith(_LOCAL):
                    there = TESTS.joinpath(*module.split(".")).with_suffix(".py")
                    names[bound] = (source, there, alias.name)
                else:
                    names[bound] = (source, None, bound)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names[node.name] = (source, None, node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = (source, None, name.id)
    return names


def _reach(path: Path, names: set[str]) -> str:
    """The sources of ``names`` in the module at ``path``, and of every name they use there
    (or in the modules of tests/ they come from), at any depth."""
    texts, seen, todo = [], set(), [(path, name) for name in names]
    while todo:
        where, name = todo.pop()
        if (where, name) in seen or not where.is_file():
            continue
        seen.add((where, name))
        if name not in _names(where):
            continue
        source, there, original = _names(where)[name]
        texts.append(source)
        if there is not None:
            todo.append((there, original))
            continue
        used = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
        todo.extend((where, n) for n in used)
    return "\n".join(texts)


@functools.cache
def imports_gym_or_ray(path: Path) -> bool:
    """Whether the module at ``path`` imports one of :data:`LIBRARIES` at its top, or skips
    where one is missing."""
    text = path.read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, ast.Import):
            roots = {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots = {(node.module or "").partition(".")[0]}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            continue
        else:
            source = ast.get_source_segment(text, node) or ""
            roots = {name.partition(".")[0] for name in _SKIPS.findall(source)}
        if roots & LIBRARIES:
            return True
    return False


def touches_gym_or_ray(path: Path, test: str, fixtures: list[str], params: dict) -> bool:
    """Whether the test ``test`` of the module at ``path`` touches Gymnasium or Ray: whether
    its module imports one at its top, or its code, the fixtures it takes, its parameters, or any name these use (at any depth,
    through the helpers and test modules they come from) name one of :data:`GYM_RAY`."""
    if path.name in NOT_TOUCHING:
        return False
    if BY_PARAMETERS.get(path.name) == test:
        return bool(GYM_RAY.search("\n".join(map(str, params.values()))))
    if imports_gym_or_ray(path):
        return True
    conftest = TESTS / "conftest.py"
    text = _reach(path, {test, *fixtures}) + _reach(conftest, set(fixtures))
    text += "\n".join(map(str, params.values()))
    return bool(GYM_RAY.search(text))
