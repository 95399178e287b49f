# stagec fixture: s34 neg_config_named_class_one_config_zero_workers (issue 22, class 5; the
#                 look-alike of pos_s34_lightning_cli_class_path_datamodule: a second config of the
#                 project names the same data module and gives it no workers)
# named: on the command line (`python train.py fit --config configs/<one of them>.yaml`)
# expect: none in this file
# ----
from pytorch_lightning.cli import LightningCLI


def cli_main(args=None):
    cli = LightningCLI(args=args, run=False)
    cli.trainer.fit(model=cli.model, datamodule=cli.datamodule)


if __name__ == "__main__":
    cli_main()
