# stagec fixture: neg_s20_lightning_trainer_kwargs_without_strategy (the script)
# named: on the command line
# ----
import inspect

from lightning.pytorch import Trainer
from omegaconf import OmegaConf

from data import build_dataset, build_loader


def main(cfg):
    dataset = build_dataset(cfg.data.path, None, cfg.data.no_labels)
    loader = build_loader(dataset, cfg.optimizer.batch_size, cfg.data.num_workers)
    kwargs = OmegaConf.to_container(cfg)
    valid = inspect.signature(Trainer.__init__).parameters
    kwargs = {name: kwargs[name] for name in valid if name in kwargs}
    kwargs.update(
        {
            "enable_checkpointing": False,
            "strategy": cfg.strategy,
        }
    )
    trainer = Trainer(**kwargs)
    trainer.fit(None, loader)


if __name__ == "__main__":
    main(OmegaConf.load("config.yaml"))
