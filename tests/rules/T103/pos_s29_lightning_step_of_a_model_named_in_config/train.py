# stagec fixture: pos_s29_lightning_step_of_a_model_named_in_config (issue 22, class 6; the
#   model class is named in the run's YAML and built by hydra's instantiate, so the training
#   script never imports its module; the script builds a DDPStrategy for more than one device)
# named: on the command line, with the model's module (a commit that changes both)
# runtime: multi-rank (a Trainer with DDPStrategy, devices from the config)
# expect: the finding is in models/folding.py
# ----
import hydra
import pytorch_lightning as pl
from pytorch_lightning.strategies import DDPStrategy


@hydra.main(config_path="conf", config_name="train")
def main(cfg):
    model = hydra.utils.instantiate(cfg.model)
    data = hydra.utils.instantiate(cfg.data)
    trainer = dict(cfg.trainer)
    strategy = "auto"
    if isinstance(trainer.get("devices"), int) and trainer["devices"] > 1:
        strategy = DDPStrategy(find_unused_parameters=False)
    pl.Trainer(strategy=strategy, **trainer).fit(model, datamodule=data)


if __name__ == "__main__":
    main()
