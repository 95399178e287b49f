# stagec fixture: s31 neg_unwrapped_for_saving_and_saliency (issue 22, class "other": the model
#   Accelerate unwraps after the training loop, into the same name, to save it (distil-whisper),
#   and a Grad-CAM evaluation that runs a backward on the wrapped module and steps no optimizer
#   (ALBEF's grounding evaluation))
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect: nothing
# ----
import torch
from accelerate import Accelerator


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Linear(16, 16)
        self.head = torch.nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


def gradcam(model, x):
    model.zero_grad()
    feats = model.encoder(x)
    feats.retain_grad()
    score = model.head(feats)[:, 1].sum()
    score.backward()
    return (feats.grad * feats).sum(-1)


def main():
    accelerator = Accelerator()
    student_model = Net()
    optimizer = torch.optim.AdamW(student_model.parameters(), lr=1e-4)
    student_model, optimizer = accelerator.prepare(student_model, optimizer)

    def train_step(x):
        student_model.train()
        out = student_model(x)
        loss = out.pow(2).mean()
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

    for step in range(1000):
        train_step(torch.randn(8, 16, device=accelerator.device))
    maps = gradcam(accelerator.unwrap_model(student_model), torch.randn(8, 16, device=accelerator.device))
    student_model = accelerator.unwrap_model(student_model)
    if accelerator.is_main_process:
        torch.save({"model": student_model.state_dict(), "maps": maps}, "student.pt")


if __name__ == "__main__":
    main()
