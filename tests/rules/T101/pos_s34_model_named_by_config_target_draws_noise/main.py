# stagec fixture: s34 pos_model_named_by_config_target_draws_noise (issue 22, class 1; review
#                 41a's DynamiCrafter M25: the model is built from the `target:` its config names,
#                 through `instantiate_from_config`, and no module imports it)
# named: on the command line (`python main.py --base configs/train.yaml`)
# expect: T101 at 20:5 (one seed on every rank; the model's training step draws its noise and
#         timesteps from torch's global RNG)
# ----
import argparse

from omegaconf import OmegaConf
from pytorch_lightning import Trainer, seed_everything

from utils import instantiate_from_config

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=str, default="configs/train.yaml")
    parser.add_argument("--seed", type=int, default=123)
    args = parser.parse_args()
    seed_everything(args.seed)
    config = OmegaConf.load(args.base)
    model = instantiate_from_config(config.model)
    data = instantiate_from_config(config.data)
    trainer = Trainer(accelerator="gpu", devices=8, strategy="ddp", max_steps=100000)
    trainer.fit(model, data)


if __name__ == "__main__":
    main()
