# stagec fixture: s27 pos_base_init_through_subclass (issue 22, class 9; ResShift's shape: the
#                 trainer class the script builds defines no `__init__` of its own, so its base's
#                 `__init__(self, configs)` binds the config the loaders read)
# named: on the command line (`torchrun --nproc_per_node 8 main.py --cfg_path configs/realsr.yaml`)
# ----
import argparse

from omegaconf import OmegaConf

from trainer import TrainerSR

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cfg_path", type=str, default="./configs/training/ffhq256.yaml")
    args = parser.parse_args()
    configs = OmegaConf.load(args.cfg_path)
    trainer = TrainerSR(configs)
    trainer.train()
