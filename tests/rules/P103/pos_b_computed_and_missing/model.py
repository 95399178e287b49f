# P103: a stage_id read from a module constant, and a decorator without `dtype`.
# expect:
#   P103 at 16:17
#   P103 at 21:27
import torch
import torch.nn as nn
from determined.hpp import stage_decorator

HEAD_STAGE = 2

@stage_decorator(stage_id=0, device="a100", dtype=torch.bfloat16)
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=1, device="h100")
class Block(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=HEAD_STAGE, device="a100", dtype=torch.bfloat16)
class Head(nn.Module):
    def __init__(self):
        super().__init__()
