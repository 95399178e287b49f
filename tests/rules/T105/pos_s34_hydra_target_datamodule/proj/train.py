# stagec fixture: s34 pos_hydra_target_datamodule (issue 22, class 5; review 44a's Matcha-TTS
#                 shape: Hydra builds the data module from the `_target_:` of its config group,
#                 and the module keeps its arguments with save_hyperparameters)
# named: on the command line (`python -m proj.train`)
# expect: none in this file
# ----
import hydra
import lightning as L


@hydra.main(version_base="1.3", config_path="../configs", config_name="train.yaml")
def main(cfg):
    datamodule = hydra.utils.instantiate(cfg.data)
    model = hydra.utils.instantiate(cfg.model)
    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    trainer.fit(model=model, datamodule=datamodule)


if __name__ == "__main__":
    main()
