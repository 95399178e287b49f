import os

import torch

pretrained_models = {"SiT-XL-2-256x256.pt"}


def find_model(model_name):
    if model_name in pretrained_models:
        return torch.hub.load_state_dict_from_url(model_name)
    assert os.path.isfile(model_name), f"no checkpoint at {model_name}"
    checkpoint = torch.load(model_name, map_location="cpu")
    if "ema" in checkpoint:
        checkpoint = checkpoint["ema"]
    return checkpoint
