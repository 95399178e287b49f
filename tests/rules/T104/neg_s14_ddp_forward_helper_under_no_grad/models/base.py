import torch
from torch.nn.parallel import DistributedDataParallel


class ModelBase:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda")

    def to_device(self, network):
        network = network.to(self.device)
        if self.opt["dist"]:
            network = DistributedDataParallel(network, device_ids=[torch.cuda.current_device()])
        return network
