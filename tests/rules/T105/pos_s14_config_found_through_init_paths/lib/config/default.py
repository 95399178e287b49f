# stagec fixture: pos_s14_config_found_through_init_paths (the config defaults; not named)
# expect: none in this file
# ----
from yacs.config import CfgNode as CN

_C = CN()
_C.WORKERS = 4
_C.TRAIN = CN()
_C.TRAIN.BATCH_SIZE_PER_GPU = 8
_C.TRAIN.END_EPOCH = 484


def update_config(cfg, args):
    cfg.defrost()
    cfg.merge_from_file(args.cfg)
    cfg.freeze()
