# P204 look-alike: dtypes written as aliases (`"half"`, `"bf16"`) and as a torch
# name (`torch.float32`).
# expect: none
import torch
import torch.nn as nn
from determined.hpp import stage_decorator

@stage_decorator(stage_id=0, device="a100", dtype="half")
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=1, device="h100", dtype="bf16")
class Block(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=2, device="a100", dtype=torch.float32)
class Head(nn.Module):
    def __init__(self):
        super().__init__()

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.block = Block()
        self.head = Head()
