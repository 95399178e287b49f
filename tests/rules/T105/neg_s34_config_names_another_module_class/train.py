# stagec fixture: s34 neg_config_names_another_module_class (issue 22, class 5; the look-alike of
#                 pos_s34_lightning_cli_class_path_datamodule: the config's `class_path:` names a
#                 class of the same name in a module this project does not have)
# named: on the command line (`python train.py fit --config configs/vocoder.yaml`)
# expect: none in this file
# ----
from pytorch_lightning.cli import LightningCLI

from vocoder.dataset import DataConfig  # noqa: F401


def cli_main(args=None):
    cli = LightningCLI(args=args, run=False)
    cli.trainer.fit(model=cli.model, datamodule=cli.datamodule)


if __name__ == "__main__":
    cli_main()
