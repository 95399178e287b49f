# stagec fixture: neg_s21_seeded_by_sampling_on_main_process (the image pipeline)
# named: beside train.py, as pre-commit passes both
# expect: nothing in this file
# ----
import torch


class Pipeline:
    def __init__(self, model, device):
        self.model = model
        self.device = device

    def __call__(self, prompt, width=512, height=512, seed=123456789):
        return self.forward(prompt, width, height, seed)

    def forward(self, prompt, width, height, seed):
        torch.manual_seed(seed)
        noise = torch.randn(1, 16, height // 8, width // 8, device=self.device)
        with torch.no_grad():
            return self.model(noise)


class Sampler(Pipeline):
    def __init__(self, model, device):
        super().__init__(model, device)
