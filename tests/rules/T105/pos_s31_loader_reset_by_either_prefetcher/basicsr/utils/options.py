# stagec fixture: s31 pos_loader_reset_by_either_prefetcher (the options reader)
# named: with the other files
# expect: none in this file
# ----
import yaml


def parse(opt_path, is_train=True):
    with open(opt_path, mode="r") as f:
        opt = yaml.load(f, Loader=yaml.SafeLoader)
    opt["is_train"] = is_train
    for phase, dataset in opt["datasets"].items():
        dataset["phase"] = phase.split("_")[0]
    return opt
