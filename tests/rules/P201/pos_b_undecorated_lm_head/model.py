# expect: P201 at 21:14
import torch
import torch.nn as nn
from determined.hpp import stage_decorator

@stage_decorator(stage_id=0, device="a100", dtype=torch.bfloat16)
class Embedding(nn.Module):
    def __init__(self):
        super().__init__()

@stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)
class Decoder(nn.Module):
    def __init__(self):
        super().__init__()

class LanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = Embedding()
        self.decoder = Decoder()
        self.lm_head = nn.Linear(4096, 32000, bias=False)
