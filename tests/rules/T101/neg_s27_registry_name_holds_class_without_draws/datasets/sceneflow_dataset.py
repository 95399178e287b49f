# stagec fixture: s27 neg_registry_name_holds_class_without_draws (a dataset that draws nothing)
import torch
from torch.utils.data import Dataset


class SceneFlowDataset(Dataset):
    def __init__(self, datapath, list_filename, training):
        self.training = training
        self.images = torch.randn(64, 8, 32)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return self.images[index][:, :8]
