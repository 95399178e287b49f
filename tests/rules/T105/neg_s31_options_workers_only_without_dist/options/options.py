# stagec fixture: s31 neg_options_workers_only_without_dist (the options reader: the YAML file the
#   command line names, each dataset told its phase, then copied into NoneDicts all the way down)
# named: with train.py and data/__init__.py
# expect: none in this file
# ----
import yaml


def parse(opt_path, is_train=True):
    with open(opt_path, mode="r") as f:
        opt = yaml.load(f, Loader=yaml.Loader)
    opt["is_train"] = is_train
    for phase, dataset in opt["datasets"].items():
        dataset["phase"] = phase.split("_")[0]
    return opt


class NoneDict(dict):
    def __missing__(self, key):
        return None


def dict_to_nonedict(opt):
    if isinstance(opt, dict):
        new_opt = dict()
        for key, sub_opt in opt.items():
            new_opt[key] = dict_to_nonedict(sub_opt)
        return NoneDict(**new_opt)
    elif isinstance(opt, list):
        return [dict_to_nonedict(sub_opt) for sub_opt in opt]
    else:
        return opt
