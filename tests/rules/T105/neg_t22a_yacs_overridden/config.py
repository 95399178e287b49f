# stagec fixture: t22a neg_yacs_overridden (defaults module)
# named: on the command line with data.py and main.py
# expect: none in this file (the default it holds is reported where a loader uses it)
# ----
from yacs.config import CfgNode as CN

_C = CN()
_C.DATA = CN()
_C.DATA.BATCH_SIZE = 128
_C.DATA.NUM_WORKERS = 8
_C.TRAIN = CN()
_C.TRAIN.EPOCHS = 300


def get_config(args):
    config = _C.clone()
    update_config(config, args)
    return config


def update_config(config, args):
    config.defrost()
    if args.workers is not None:
        config.DATA.NUM_WORKERS = args.workers
    config.freeze()
