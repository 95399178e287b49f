import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()


class Block(nn.Module):
    def __init__(self):
        super().__init__()


class Head(nn.Module):
    def __init__(self):
        super().__init__()
