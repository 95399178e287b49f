# stagec fixture: pos_config_object_reexported (defaults module)
# named: on the command line with train.py, lib/__init__.py and lib/config/__init__.py
# expect: none in this file (the default it holds is reported where a loader uses it)
# ----
from yacs.config import CfgNode as CN

_C = CN()
_C.WORKERS = 8
_C.TRAIN = CN()
_C.TRAIN.END_EPOCH = 240


def update_config(cfg, args):
    cfg.defrost()
    if args.log_dir:
        cfg.LOG_DIR = args.log_dir
    cfg.freeze()
