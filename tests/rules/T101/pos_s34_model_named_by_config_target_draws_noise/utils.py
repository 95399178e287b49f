# stagec fixture: s34 pos_model_named_by_config_target_draws_noise (the builder)
# named: with main.py
# expect: none in this file
# ----
import importlib


def get_obj_from_str(string):
    module, cls = string.rsplit(".", 1)
    return getattr(importlib.import_module(module, package=None), cls)


def instantiate_from_config(config):
    return get_obj_from_str(config["target"])(**config.get("params", dict()))
