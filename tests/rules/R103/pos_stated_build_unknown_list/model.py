import torch
import torch.nn as nn
from determined.hpp import stage_decorator

@stage_decorator(stage_id=0, device="a100", dtype=torch.bfloat16)
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=1, device="b200", dtype=torch.bfloat16)
class Block(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=2, device="a100", dtype=torch.bfloat16)
class Head(nn.Module):
    def __init__(self):
        super().__init__()

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.block = Block()
        self.head = Head()
