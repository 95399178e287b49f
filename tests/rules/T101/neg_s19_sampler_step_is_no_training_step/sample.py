# stagec fixture: s19 neg_sampler_step_is_no_training_step (issue 22, class 3: a diffusion sampler's
#                 `scheduler.step(model_output, t, sample)` draws fresh noise at each step, and the
#                 ranks seed alike — but nothing trains here: an optimizer's `.step()` takes no
#                 model output, and each rank samples its own prompts)
# named: on the command line (a multi-GPU sampling script)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist


class LCMScheduler:
    def __init__(self, steps=4):
        self.timesteps = torch.linspace(999, 0, steps).long()

    def step(self, model_output, t, sample):
        denoised = sample - model_output * (t / 1000.0)
        noise = torch.randn(model_output.shape).to(model_output.device)
        return denoised + 0.1 * noise


def set_env(seed=0):
    torch.manual_seed(seed)
    torch.set_grad_enabled(False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prompts", default="prompts.txt")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    set_env(args.seed)
    scheduler = LCMScheduler()
    model = torch.nn.Conv2d(4, 4, 1).cuda().eval()
    prompts = open(args.prompts).read().splitlines()[dist.get_rank() :: dist.get_world_size()]
    for prompt in prompts:
        latents = torch.randn(1, 4, 64, 64, device="cuda")
        for t in scheduler.timesteps:
            model_pred = model(latents)
            latents = scheduler.step(model_pred, t, latents)
        torch.save(latents, prompt[:32] + ".pt")
