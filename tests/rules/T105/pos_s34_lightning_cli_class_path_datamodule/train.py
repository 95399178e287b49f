# stagec fixture: s34 pos_lightning_cli_class_path_datamodule (issue 22, class 5; review 44a's
#                 WavTokenizer M10: the CLI is given no classes, the config names the data module
#                 by `class_path:` and hands it its loader settings under `init_args:`)
# named: on the command line (`python train.py fit --config configs/vocoder.yaml`)
# expect: none in this file
# ----
from pytorch_lightning.cli import LightningCLI


def cli_main(args=None):
    cli = LightningCLI(args=args, run=False)
    cli.trainer.fit(model=cli.model, datamodule=cli.datamodule)


if __name__ == "__main__":
    cli_main()
