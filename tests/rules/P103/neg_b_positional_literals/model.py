# P103 look-alike: arguments given positionally (stage_id, device, dtype) or as
# a dtype string, all literals.
# expect: none
import torch
import torch.nn as nn
from determined.hpp import stage_decorator

@stage_decorator(0, "a100", torch.bfloat16)
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(1, "h100", dtype="bf16")
class Block(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=2, device="a100", dtype=torch.bfloat16)
class Head(nn.Module):
    def __init__(self):
        super().__init__()
