from omegaconf import OmegaConf


def add_checkpoint_defaults(cfg):
    cfg.checkpoint_enabled = OmegaConf.select(cfg, "checkpoint_enabled", default=False)
    return cfg


def add_auto_resume_defaults(cfg):
    cfg.auto_resume_enabled = OmegaConf.select(cfg, "auto_resume_enabled", default=False)
    return cfg


def add_dali_defaults(cfg):
    cfg.dali_enabled = OmegaConf.select(cfg, "dali_enabled", default=False)
    return cfg


def add_umap_defaults(cfg):
    cfg.umap_enabled = OmegaConf.select(cfg, "umap_enabled", default=False)
    return cfg


def add_dataset_defaults(cfg):
    cfg.dataset_enabled = OmegaConf.select(cfg, "dataset_enabled", default=False)
    return cfg


def add_wandb_defaults(cfg):
    cfg.wandb_enabled = OmegaConf.select(cfg, "wandb_enabled", default=False)
    return cfg


def add_lightning_defaults(cfg):
    cfg.lightning_enabled = OmegaConf.select(cfg, "lightning_enabled", default=False)
    return cfg


def add_optimizer_defaults(cfg):
    cfg.optimizer_enabled = OmegaConf.select(cfg, "optimizer_enabled", default=False)
    return cfg


def parse_cfg(cfg):
    cfg = add_checkpoint_defaults(cfg)
    cfg = add_auto_resume_defaults(cfg)
    cfg = add_dali_defaults(cfg)
    cfg = add_umap_defaults(cfg)
    cfg = add_dataset_defaults(cfg)
    cfg = add_wandb_defaults(cfg)
    cfg = add_lightning_defaults(cfg)
    cfg = add_optimizer_defaults(cfg)
    cfg.data.num_classes = 100
    return cfg
