# stagec fixture: neg_yacs_small_default_merged (defaults module)
# named: on the command line with data.py and main.py
# expect: none in this file (the default it holds is reported where a loader uses it)
# ----
from yacs.config import CfgNode as CN

_C = CN()
_C.DATA = CN()
_C.DATA.BATCH_SIZE = 128
_C.DATA.NUM_WORKERS = 0
_C.TRAIN = CN()
_C.TRAIN.EPOCHS = 300


def get_config():
    return _C.clone()


def load_config(path, opts):
    """The defaults, then the run's YAML file and command line (SlowFast's and
    Swin's shape): NUM_WORKERS stays 0 unless the file or command line sets it."""
    config = get_config()
    config.merge_from_file(path)
    if opts:
        config.merge_from_list(opts)
    return config
