# stagec fixture: s24 neg_seed_helper_also_run_by_engines (issue 22, class 3; VISSL's tools: the
#                 tool seeds before the launcher spawns the ranks, but each rank runs an engine,
#                 looked up by name, that calls the same seeding helper with its own rank)
# named: on the command line (`python extract.py`)
# expect: nothing
# ----
from launcher import launch_distributed
from misc import set_seeds


def default_hook_generator(cfg):
    return []


def main(cfg, node_id):
    set_seeds(cfg, node_id)
    launch_distributed(cfg, node_id, engine_name="extract_features", hook_generator=default_hook_generator)


if __name__ == "__main__":
    main({"seed": 0, "gpus": 8}, 0)
