# stagec fixture: s34 neg_config_target_no_builder_runs (issue 22, class 1; the look-alike of
#                 pos_s34_model_named_by_config_target_draws_noise: the config still names the
#                 diffusion model by `target:`, but this script builds its model itself and calls
#                 no builder of classes by name, so the diffusion model does not run in it)
# named: on the command line (`python main.py --base configs/train.yaml`)
# expect: nothing (its own model draws nothing at random in training)
# ----
import argparse

from omegaconf import OmegaConf
from pytorch_lightning import Trainer, seed_everything

from models.small import Regressor

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=str, default="configs/train.yaml")
    parser.add_argument("--seed", type=int, default=123)
    args = parser.parse_args()
    seed_everything(args.seed)
    config = OmegaConf.load(args.base)
    model = Regressor(config.model.params.channels)
    data = None
    trainer = Trainer(accelerator="gpu", devices=8, strategy="ddp", max_steps=100000)
    trainer.fit(model)


if __name__ == "__main__":
    main()
